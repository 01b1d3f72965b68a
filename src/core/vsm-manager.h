/* vsm-manager.h - the sequence every front end runs:
 * facts -> class -> plan -> apply -> record, and the status of it all
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-apply.h"
#include "vsm-classify.h"
#include "vsm-device.h"
#include "vsm-drive-history.h"
#include "vsm-history.h"
#include "vsm-intent.h"
#include "vsm-kernel.h"
#include "vsm-knobs.h"
#include "vsm-plan.h"
#include "vsm-policy.h"
#include "vsm-state.h"
#include "vsm-stats.h"

G_BEGIN_DECLS

typedef struct
{
  VsmDevice *device;
  VsmClassification *classification;
  VsmPolicy *policy;
  VsmKernel *kernel;
  VsmPlan *plan;
  VsmIntent *intent; /* what a person chose (the overrides' class and flush mode) */
} VsmAssessment;

void vsm_assessment_free (VsmAssessment *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmAssessment, vsm_assessment_free)

/* facts -> class -> plan. policy: NULL to load it from GSettings (taken
 * over otherwise); overrides: NULL or what a person decided. */
VsmAssessment *vsm_assess (GUdevClient *client, const char *spec, VsmPolicy *policy,
                           const VsmOverrides *overrides, GError **error);
/* takes device (and policy, when not NULL) over */
VsmAssessment *vsm_assess_device (VsmDevice *device, VsmPolicy *policy,
                                  const VsmOverrides *overrides);

/* Runs after the knobs are written and read back, before they are
 * recorded (the mount helper mounts here). Its failure undoes everything. */
typedef gboolean (*VsmApplyStep) (const VsmAssessment *a, gpointer data, GError **error);

/* The one apply every front end runs. A managed plan: one transaction
 * (vsm-apply.h) around step; *state gets the record, with the intent
 * (a->intent, by options->source, with the policy's origin). A plan that
 * leaves the drive alone: step runs, then whatever an earlier apply of the
 * disk left is restored (a warning when that fails after step succeeded),
 * and *state is NULL. On failure nothing is left changed. */
gboolean vsm_assessment_apply (const VsmAssessment *a, const VsmApplyOptions *options,
                               VsmApplyStep step, gpointer step_data, VsmState **state,
                               GError **error);

/* Why and with what a recorded disk is planned again. */
typedef struct
{
  const char *reason; /* why now ("the cap drifted"): logged in the record's reasons */
  guint64 bandwidth;  /* measured write bandwidth, bytes/s; 0: none (the drive's history) */
  const char *bandwidth_source;
  VsmPolicy *policy; /* the admin's, taken over; NULL: loaded */
  /* the per-drive options in force changed (SetOptions, the mount they
   * were set for ended): user_options (NULL: none) from now on */
  gboolean set_user_options;
  const VsmUserOptions *user_options;
  /* a class a person chose now (vfat-smart apply --class through the
   * daemon): it replaces the recorded one */
  gboolean set_class;
  VsmClass klass;
  /* the writeback stall fallback (vsm-stall.h): why strict_limit is
   * dropped for the drive; NULL: the plan's strict_limit */
  const char *drop_strict_limit;
} VsmReapply;

/* Plans a recorded disk again from the intent in its record, with a new
 * measurement, and applies it (only while the record is there: a restore
 * since wins). A class, a flush mode or options a person chose stay; a
 * record without an intent (older) plans from the policy as before.
 * Takes device over. *state (may be NULL) gets the record, NULL when the
 * plan now leaves the drive alone (and what was applied was restored).
 * VSM_ERROR_NOT_MANAGED when the disk has no record. */
gboolean vsm_reapply_device (VsmDevice *device, const VsmReapply *r, VsmState **state,
                             GError **error);
/* A disk planned from an intent (taken over, like device and policy,
 * NULL: loaded): the person's choices in it (class, flush mode, the
 * per-drive options) over the policy, a measurement (bandwidth 0: the
 * drive's history), the stall fallback (drop_strict_limit, NULL: none),
 * and why ("the cap drifted") among the plan's reasons. */
VsmAssessment *vsm_assess_intent (VsmDevice *device, VsmIntent *intent, VsmPolicy *policy,
                                  guint64 bandwidth, const char *bandwidth_source,
                                  const char *drop_strict_limit, const char *reason);
/* the same for the disk with bdi, found by the syspath in its record */
gboolean vsm_reapply (GUdevClient *client, const char *bdi, const VsmReapply *r, VsmState **state,
                      GError **error);

typedef struct
{
  VsmKnobRecord *record; /* borrowed from the state */
  char *now;
  VsmDrift drift;
  gboolean global;
} VsmKnobStatus;

typedef struct
{
  VsmState *state;
  gboolean present;  /* the disk is still there */
  GPtrArray *mounts; /* VsmMountInfo* */
  GPtrArray *knobs;  /* VsmKnobStatus* */
  VsmIoDelta io;
  double seconds_since_apply;
  VsmDirtyInfo dirty;
  guint64 at_risk_bytes;             /* vsm_at_risk_bytes (); vfat-smartd's figure when it runs */
  const char *at_risk_kind;          /* "device" or "system" (an upper bound) */
  guint64 safe_bandwidth;            /* bytes/s used for the estimate */
  const char *safe_bandwidth_source; /* N_ () text: untranslated (JSON), _ () to show */
  double seconds_to_safe;
  char *safety_note;              /* how this compares to udisks' default */
  VsmUnmountRecord *last_unmount; /* NULL when none is recorded */
  VsmDriveHistory *history;       /* what vfat-smartd learned; NULL when nothing */
} VsmStatusEntry;

void vsm_status_entry_free (VsmStatusEntry *e);

typedef struct
{
  GPtrArray *entries; /* VsmStatusEntry* */
  GPtrArray *corrupt; /* char*: records that cannot be trusted */
} VsmStatus;

void vsm_status_free (VsmStatus *status);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmStatus, vsm_status_free)

/* bdi: one disk, or NULL for all managed disks */
VsmStatus *vsm_status_collect (GUdevClient *client, const char *bdi, GError **error);

/* Drops what the daemon learned about a drive: what is a drive identity
 * ("usb:VID:PID:SERIAL", "uuid:UUID") or a device spec of a drive that is
 * plugged in. *identity (may be NULL) gets the identity. */
gboolean vsm_forget_drive_history (GUdevClient *client, const char *what, char **identity,
                                   GError **error);

/* A disk was unmounted: its knobs go back once no mount of it remains,
 * when they were applied for a mount (udev's stay for the next mount).
 * notes (may be NULL) gets what was done, one line each. */
gboolean vsm_unmounted (const VsmDevice *d, GPtrArray *notes, GError **error);

/* Without per-device caps and with allow-global-knobs, a mount or an
 * unmount changes whether the drive holds the vm.* knobs: TRUE when a
 * re-apply is due (*planned_for: what the last one was for, updated). */
gboolean vsm_global_knobs_due (gboolean device_cap, gboolean mounted, int *planned_for);

/* hotplug: a udev event (add, change) of a disk or partition, in one call.
 * The device's facts from sysfs, udev's database and the event itself
 * (envp: ID_FS_*, ID_PART_TABLE_TYPE, a class an earlier rule set in
 * VFAT_SMART_CLASS), planned and applied as udev's (the vm.* knobs wait for
 * a mount), and the answered-for stamp left or dropped. Never reads the
 * drive. Returns NULL when the device is gone (error unset) or cannot be
 * read (error set); else the assessment, with *applied TRUE when the plan
 * is in place (*state: the record, NULL when the drive is left alone) and
 * FALSE with error set when it could not be applied. notes (may be NULL):
 * warnings, one line each. */
VsmAssessment *vsm_hotplug (const char *syspath, const char *const *envp, gboolean *applied,
                            VsmState **state, GPtrArray *notes, GError **error);

/* unplug: the disk bdi ("MAJ:MIN") is gone: its record and its
 * answered-for stamps are dropped, nothing written back (the vm.* knobs go
 * back with their last owner). VSM_ERROR_NOT_MANAGED when it had none. */
gboolean vsm_unplug (const char *bdi, GError **error);

G_END_DECLS
