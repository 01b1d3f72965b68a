/* vsmd-device-private.h - what the files of one managed disk share
 * (vsmd-device.c: the object and its jobs; -mounts: mount tracking and
 * history; -pace: pacing and commits; -sample: sampling and learning;
 * -dbus: the methods). Nothing outside src/daemon/vsmd-device*.c includes it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsmd-device.h"
#include "vsm-dbus-contract.h"
#include "vsmd-limits.h"
#include "vsmd-options.h"
#include "vsmd-pacer.h"

#include "vsm.h"

G_BEGIN_DECLS

/* sampling: four times a second while the disk writes or a mounted drive
 * is not yet Safe (a copy's stop is seen, its metadata
 * committed and the drive said safe within a fraction of a second:
 * vsm-pace.h), once a second while it is mounted or a job runs,
 * every few seconds while it is idle (only to notice the next write) */
#define TICK_WRITING_MS 250
/* while a process holds a file of the drive open for writing (a copy whose
 * source paused: nothing newly written, everything on the drive, and not
 * done; or an editor that keeps its document open), the processes' open
 * files are read again after this long, then twice as long each time up to
 * the maximum (a scan reads every open file of the machine) */
#define WRITERS_CHECK_USEC (G_USEC_PER_SEC)
#define WRITERS_CHECK_MAX_USEC (16 * G_USEC_PER_SEC)
#define TICK_BUSY_MS 1000
#define TICK_IDLE_MS 3000
/* how often the cap in force is compared with the one planned (max_bytes
 * is kept as a ratio of the dirty threshold and moves with it) */
#define DRIFT_CHECK_USEC (10 * G_USEC_PER_SEC)
#define DRIFT_TOLERANCE 0.1
/* re-applies per mount for a cap the kernel does not keep: then it is left */
#define DRIFT_MAX_RETRIES 3
#define NO_UID G_MAXUINT32
/* SetOptions kept by a previous run wait this long for their mount */
#define ADOPT_WAIT_USEC (10 * G_USEC_PER_SEC)
/* without per-device figures (debugfs not mounted) the system's dirty data
 * counts for a drive only this long after it last wrote: the kernel writes
 * dirty pages out after dirty_expire_centisecs (30 s) at the latest */
#define SYSTEM_SCOPE_USEC (35 * G_USEC_PER_SEC)

struct _VsmdDevice
{
  GObject parent;
  VsmdBouncer *bouncer;
  VsmDbusDevice *skeleton;
  char *bdi;
  char *object_path;
  char *disk_syspath;
  char *disk_name;
  char *identity; /* NULL: the drive cannot be told apart, nothing remembered */

  VsmLearn *learn;
  VsmLearnLimits limits;
  VsmUserOptions *options; /* SetOptions for this mount (vsmd-options.c) */
  VsmUserOptions *adopted; /* read at start, until the mount is known */
  gboolean device_cap;     /* the kernel has per-device caps (6.2+) */
  int global_for_mounted;  /* vm.* knobs last planned for mounted (1), not (0), -1: never */
  gint64 adopt_until;
  gboolean applying;     /* an apply or restore runs in a thread */
  gboolean cap_learned;  /* the learner moved the cap: applied when no apply runs */
  const char *cap_why;   /* why it moved, when not measured (static text) */
  gboolean one_big_file; /* the cap is, or is to be, the one for one big file */
  guint history_jobs;    /* history writes running in a thread */
  gboolean retired;      /* the drive or its record went: the object is off the bus */
  gboolean stopping;     /* the daemon stops: nothing new is applied */
  gboolean removed;      /* udev's remove of the disk came */
  guint tick_id;
  gint64 last_drift_check;

  gint64 last_write; /* monotonic time the disk last wrote */
  gboolean mounted;
  guint64 written_at_mount; /* the learner's count when the mount began */
  guint64 measured_this_mount;

  gboolean uses_global;     /* the record holds the vm.* knobs */
  guint drift_retries;      /* re-applies for drift that did not hold, this mount */
  VsmPace pace;             /* when to pace (vsm-pace.h) */
  gint64 writers_seen;      /* when a process last held a file of the drive open for
                             * writing while the figures said safe; 0: not since */
  gint64 writers_wait;      /* how long until the next look, while one does */
  const char *unsafe_why;   /* why Safe is false (static text), for the debug log */
  VsmdPacer *pacer;         /* the sync worker while pacing, settling, committing */
  guint commits;            /* metadata commits since the last settle or pacing */
  gint64 commits_usec;      /* ... and how long their fsyncs took in all */
  gboolean pace_off;        /* the worker failed on this mount: not again */
  gboolean pace_class;      /* the plan paces this drive's class (VsmState) */
  gboolean options_changed; /* the next apply records the options in force */
  gboolean class_asked;     /* the next apply records class_wanted (ApplyWith) */
  VsmClass class_wanted;
  gboolean class_waiting; /* ApplyWith's class while polkit is asked */
  VsmClass class_waiting_value;

  VsmStall stall;          /* throttled writers with no writeback (vsm-stall.h) */
  gboolean strict_on;      /* the record has strict_limit=1 applied */
  char *strict_dropped;    /* why strict_limit is dropped for this drive (a serialized
                            * VsmReason); NULL: it is not */
  guint strict_drop_tries; /* applies that did not drop it */

  /* the record as the daemon's last job left it (every write is a new
   * file by rename): its event is no news (vsmd_device_wrote_record) */
  guint64 own_record_ino;
  gint64 own_record_mtime_ns;
};

/* vsmd-device.c: the object, its record, its jobs */
void vsmd_device_emit_job_done (VsmdDevice *d);
gboolean vsmd_device_refuse_when_stopping (VsmdDevice *d, GDBusMethodInvocation *inv);
void vsmd_device_publish_flush_mode (VsmdDevice *d, const VsmState *state, GPtrArray *mounts);
void vsmd_device_read_facts (VsmdDevice *d);
/* the policy, with what SetOptions decided for this drive */
VsmPolicy *vsmd_device_policy (VsmdDevice *d);
gboolean vsmd_device_narrows_for_many_files (VsmdDevice *d);
/* the seconds the cap holds now (one_big_file or not) */
double vsmd_device_cap_seconds (VsmdDevice *d, const VsmPolicy *p);
void vsmd_device_reset_limits (VsmdDevice *d, guint64 start_bandwidth, guint64 cap_in_force);
typedef enum
{
  VSMD_JOB_REAPPLY, /* plan again from the recorded intent */
  VSMD_JOB_RESTORE, /* put the originals back */
  VSMD_JOB_OPTIONS, /* new options: a restore when they ignore the drive, else a re-apply */
} VsmdJobKind;
/* a job for reason in a worker, off the main loop; inv (may be NULL) gets
 * the answer */
void vsmd_device_start_job (VsmdDevice *d, VsmdJobKind kind, const char *reason,
                            GDBusMethodInvocation *inv);

/* vsmd-device-mounts.c: mounts and the drive's history */
void vsmd_device_record_mount (VsmdDevice *d);

/* vsmd-device-pace.c: the sync worker */
void vsmd_device_stop_pacing (VsmdDevice *d);
void vsmd_device_set_one_big_file (VsmdDevice *d, gboolean big);
void vsmd_device_update_pacing (VsmdDevice *d, const VsmDirtyInfo *di, const VsmDiskStat *st,
                                gint64 at_usec);
/* the Safe property from a sample (and from the pace state, the worker) */
void vsmd_device_update_safe (VsmdDevice *d, const VsmDirtyInfo *di);

/* vsmd-device-sample.c: sampling, learning, the cap kept */
void vsmd_device_start_ticking (VsmdDevice *d, guint ms);

/* vsmd-device-dbus.c: the methods */
void vsmd_device_connect_methods (VsmdDevice *d);
/* the per-mount options (NULL: none) from now on */
void vsmd_device_reset_options (VsmdDevice *d, VsmUserOptions *options);

G_END_DECLS
