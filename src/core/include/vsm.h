/* vsm.h - the engine: all a front end (src/cli, src/mount, src/udev,
 * src/daemon, src/common) includes from the core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Everything here is what some front end names; the other headers of
 * src/core/ are the core's own (its unit tests include them too). They
 * include this one for the shared types, never the other way round, and
 * the build keeps them off the front ends' include path (meson:
 * vsmengine_dep; tests/unit/check-facade fails on a front end that names
 * one).
 *
 * The engine's calls, one for each thing a front end wants done, each
 * recording who asked and what a person chose (the intent):
 *
 *   hotplug (event)       vsm_hotplug (): a udev add or change, planned and
 *                         applied; a change re-plans from the recorded
 *                         intent. vsm_unplug (): the disk is gone
 *   mount (disk, intent)  vsm_mount (): planned with the filesystem on the
 *                         device now and the person's choices, the mount
 *                         the step inside the knobs' transaction
 *   apply (disk, intent)  vsm_assessment_apply () on what vsm_assess ()
 *                         planned with a person's
 *                         choices (VsmOverrides), as VsmApplyOptions.source
 *   reapply (disk, why)   vsm_reapply (), vsm_reapply_device (): plans again
 *                         from the recorded intent with new measurements
 *   unmounted (disk)      vsm_unmounted (): the knobs go back when no mount
 *                         of the disk remains
 *   restore (disk | all)  vsm_restore (), vsm_restore_all (); vsm_forget ()
 *   status                vsm_status_collect ()
 *   pure, for printing    vsm_classify (), vsm_assess () (the plan), the
 *                         enums' names (vsm_class_to_string () ...)
 *
 * The rest serves the daemon's controller (the learner, the pacer, the
 * stall detector: pure code fed with samples), the per-drive options, and
 * the figures the front ends print.
 */
#pragma once

#include <gio/gio.h>
#include <glib-object.h>
#include <glib.h>
#include <gudev/gudev.h>
#include <sys/types.h>

#include "vsm-enum-types.h"
#include "vsm-flush-mode.h"

G_BEGIN_DECLS

/* ---- vsm-device ---- */

typedef enum
{
  VSM_TRANSPORT_OTHER,
  VSM_TRANSPORT_USB_STORAGE, /* Bulk-Only (usb-storage, ums-*) */
  VSM_TRANSPORT_UAS,
  VSM_TRANSPORT_USB_OTHER, /* USB, but no usb-storage/uas driver bound */
  VSM_TRANSPORT_MMC,
  VSM_TRANSPORT_NVME,
  VSM_TRANSPORT_ATA,
  VSM_TRANSPORT_VIRTIO,
  VSM_TRANSPORT_LOOP,
} VsmTransport;

const char *vsm_transport_to_string (VsmTransport transport);
gboolean vsm_transport_is_usb (VsmTransport transport);

typedef struct
{
  char *vendor_id;  /* "0781" */
  char *product_id; /* "5581" */
  char *serial;
  char *manufacturer;
  char *product;
  char *version;    /* USB version, " 3.00" trimmed */
  guint speed_mbps; /* 12, 480, 5000, 10000, ...; 0 when unknown */
  char *driver;     /* driver bound to the mass storage interface */
} VsmUsbInfo;

typedef struct
{
  char *spec;    /* what the caller gave */
  char *devnode; /* the block node it resolved to */
  char *syspath;
  gboolean is_partition;

  char *disk_node; /* the whole disk */
  char *disk_name; /* "sdb" */
  char *disk_syspath;
  guint disk_major;
  guint disk_minor;
  char *bdi; /* "MAJ:MIN" of the whole disk */
  guint n_partitions;
  gboolean superfloppy; /* the filesystem sits on the whole disk */

  VsmTransport transport;
  VsmUsbInfo *usb; /* NULL unless the disk hangs off USB */
  int lun;         /* SCSI LUN, -1 when not SCSI */
  guint n_luns;    /* disks sharing the same USB interface */
  char *vendor;    /* SCSI/device vendor string */
  char *model;

  gboolean removable;
  gboolean rotational;
  guint64 size_bytes;

  guint64 max_sectors_kb;
  guint64 max_hw_sectors_kb;
  guint64 minimum_io_size;
  guint64 optimal_io_size;
  guint64 physical_block_size;
  guint64 logical_block_size;
  char *write_cache; /* "write back" / "write through" / NULL */

  char *fs_type; /* NULL when none was found */
  char *fs_label;
  char *fs_uuid;
  char *fs_version;
  /* a whole disk with partitions: the UUID of the FAT filesystem that names
   * the drive (vsm_drive_identity): its mounted FAT partition's, else its
   * first FAT partition's; NULL for a partition or a superfloppy */
  char *disk_fs_uuid;
  /* the same disk: the type and label of that FAT partition, else of its
   * first FAT partition (from udev's database) */
  char *disk_fs_type;
  char *disk_fs_label;
} VsmDevice;

void vsm_device_free (VsmDevice *device);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmDevice, vsm_device_free)

/* Accepts a device node, a /dev/disk/by-* link, LABEL=/UUID=/PARTUUID=/
 * PARTLABEL=, a mount point, or a /sys path of a block device. */
VsmDevice *vsm_device_new_from_spec (GUdevClient *client, const char *spec, GError **error);
/* From a /sys path, with sysfs and udev's database only: the device node
 * is never opened (no superblock probe), so a dying drive cannot stall the
 * caller's main loop; the filesystem facts are udev's (none without it). */
VsmDevice *vsm_device_new_from_syspath_no_io (GUdevClient *client, const char *syspath,
                                              GError **error);

/* The disk ("MAJ:MIN") a MAJ:MIN itself, or any device spec as above,
 * names. */
char *vsm_bdi_of (const char *what, GError **error);

/* udev helpers must never block on a dying device: no superblock probing,
 * filesystem facts from the udev event only. */
void vsm_device_disable_probing (void);

/* ---- vsm-reason ---- */

typedef struct
{
  char *msgid;     /* the untranslated format; NULL: text is shown as it is */
  GPtrArray *args; /* VsmReason*, one per conversion of msgid, in order; NULL without msgid */
  char *text;      /* in English */
} VsmReason;

/* format: an N_ () string (or a literal without translation). Every
 * conversion of printf but positional ones and '*' widths. */
VsmReason *vsm_reason_new (const char *format, ...) G_GNUC_PRINTF (1, 2);

void vsm_reason_unref (VsmReason *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmReason, vsm_reason_unref)

/* In the current locale: the translated format with the arguments in its
 * order; the English format when the translation's conversions do not
 * match the msgid's. */
char *vsm_reason_to_display (const VsmReason *r);

/* One line of text, unambiguous: a message is {MSGID|ARG|ARG...}, a
 * literal its text; '\\', '|', '{' and '}' are escaped with '\\'. */
char *vsm_reason_serialize (const VsmReason *r);

/* ---- vsm-classify ---- */

typedef enum
{
  VSM_CLASS_UNKNOWN,
  VSM_CLASS_USB_STICK,     /* flash stick on usb-storage (Bulk-Only) */
  VSM_CLASS_USB_STICK_UAS, /* flash stick that speaks UAS */
  VSM_CLASS_USB_SSD,
  VSM_CLASS_USB_HDD,
  VSM_CLASS_CARD_READER,
  VSM_CLASS_INTERNAL,
  VSM_CLASS_LAST, /*< skip >*/
} VsmClass;

const char *vsm_class_to_string (VsmClass klass);
gboolean vsm_class_from_string (const char *text, VsmClass *out);

typedef struct
{
  VsmClass klass;
  guint confidence;   /* percent */
  GPtrArray *reasons; /* VsmReason*, sentences a person can read */
} VsmClassification;

void vsm_classification_free (VsmClassification *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmClassification, vsm_classification_free)

VsmClassification *vsm_classify (const VsmDevice *device);

/* ---- vsm-kernel ---- */

typedef enum
{
  VSM_FLUSH_FIX_UNKNOWN,
  VSM_FLUSH_FIX_PRESENT,
  VSM_FLUSH_FIX_ABSENT,
} VsmFlushFix;

const char *vsm_flush_fix_to_string (VsmFlushFix fix);

/* which form of the fix (told by vfat-smart probe) */
typedef enum
{
  VSM_FLUSH_FIX_VARIANT_UNKNOWN, /*< nick=unknown >*/
  /* write_inode_now (inode, 0). The hybrid (wait=0, then wait=1 only when the
   * flusher owned the inode) does the same on the probe's idle file: the probe
   * cannot tell the two apart. */
  VSM_FLUSH_FIX_VARIANT_NOWAIT, /*< nick=wait0 >*/
  /* write_inode_now (inode, 1). (The nick must stay on the value's own line, or
   * glib-mkenums makes it "wait": seen in the lab.) */
  VSM_FLUSH_FIX_VARIANT_WAIT, /*< nick=wait1 >*/
} VsmFlushFixVariant;

typedef struct
{
  char *release;        /* uname -r */
  GPtrArray *bdi_knobs; /* names of the writable BDI attributes found */
  gboolean has_strict_limit;
  gboolean has_max_bytes;
  VsmFlushFix flush_fix;
  VsmFlushFixVariant flush_fix_variant;
  char *flush_fix_reason;
  /* the loaded patched fat module was built from another kernel source than the
   * running kernel's (an update kept the release name): what to tell, or NULL */
  char *flush_fix_stale;
  gboolean tracefs;     /* a tracefs with instances we can use */
  gboolean debugfs_bdi; /* debugfs bdi/ stats readable */
} VsmKernel;

void vsm_kernel_free (VsmKernel *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmKernel, vsm_kernel_free)

/* bdi: "MAJ:MIN" whose knobs to list, or NULL for any BDI on the system.
 * override: the policy's kernel-flush-fix setting (UNKNOWN means auto). */
VsmKernel *vsm_kernel_probe (const char *bdi, VsmFlushFix override);

/* ---- vsm-policy ---- */

const char *vsm_flush_mode_to_string (VsmFlushMode mode);

typedef struct
{
  gboolean enabled;
  VsmFlushMode flush_mode;
  double max_dirty_seconds;
  guint64 cap_min_bytes;
  guint64 cap_max_bytes;
  VsmFlushMode class_mode[VSM_CLASS_LAST]; /* AUTO: not set */
  guint64 class_bandwidth[VSM_CLASS_LAST]; /* 0: not set */
  VsmFlushFix kernel_flush_fix;            /* UNKNOWN: auto */
  gboolean allow_global_knobs;
  GStrv ignore_devices;
  gboolean allow_user_tuning;
  double user_max_dirty_seconds;
  gboolean notify_safe;
  GPtrArray *problems; /* what was wrong, in words */
  char *source;
  /* key -> where its value came from ("admin", "locked", "user"); a key
   * not in it has the built-in default */
  GHashTable *origins;
  GHashTable *values; /* key -> GVariant, as last set */
} VsmPolicy;

/* the keys a user may set for the drives that user mounts (through
 * vfat-smart agent and SetOptions); every other key is the admin's */
extern const char *const vsm_policy_user_keys[];
gboolean vsm_policy_is_user_key (const char *key);

/* "built-in", "admin", "locked" or "user" */
const char *vsm_policy_get_origin (const VsmPolicy *policy, const char *key);
/* the key's value in the policy, as GVariant text (NULL: unknown key) */
char *vsm_policy_print_value (const VsmPolicy *policy, const char *key);
/* every key of the schema, in its order */
const char *vsm_policy_key_name (gsize i);
gsize vsm_policy_n_keys (void);

void vsm_policy_free (VsmPolicy *policy);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmPolicy, vsm_policy_free)

/* Reads every key from GSettings (the installed org.vfatsmart schema);
 * without the schema the defaults are used and that is recorded. With
 * $VFAT_SMART_SETTINGS_DIR set (tests, or a system without dconf) the
 * settings are that directory's keyfile "settings", its "defaults" and
 * its "locks" (GLib's keyfile backend). Each key's origin is recorded:
 * locked (not writable), admin (not the schema's default). */
VsmPolicy *vsm_policy_load (void);

/* ---- vsm-plan ---- */

typedef struct
{
  char *name;  /* a BDI attribute ("strict_limit") or "vm.NAME" */
  char *value; /* as written */
} VsmKnob;

typedef struct
{
  VsmClass klass;
  gboolean managed;         /* FALSE: vfat-smart leaves the device alone */
  VsmFlushMode flush_mode;  /* never AUTO */
  char *fs_type;            /* "vfat", "exfat", or NULL when not FAT */
  char *mount_options;      /* for mount -o; NULL when not FAT */
  char *udisks_defaults;    /* UDISKS_MOUNT_OPTIONS_<FS>_DEFAULTS (the only set changed) */
  guint64 bandwidth;        /* bytes/s the cap was computed from */
  gboolean first_cap;       /* the bandwidth is the class's starting value:
                             * VSM_LEARN_FIRST_SHARE of max-dirty-seconds */
  double cap_seconds;       /* of writing the cap holds (vsm_learn_cap_seconds ()) */
  char *bandwidth_source;   /* in English */
  VsmReason *bandwidth_why; /* the same, translated where shown */
  guint64 cap_bytes;        /* 0 without a cap */
  const char *cap_via;      /* "per-device" or "global" (vm.dirty_*), NULL without a cap */
  gboolean pace_writeback;  /* with a cap: vfat-smartd may pace one big file (vsm-pace.h) */
  GPtrArray *knobs;         /* VsmKnob*, in the order to write them */
  GPtrArray *reasons;       /* VsmReason* */
  char *left_alone_reason;  /* why, when !managed, in English */
  VsmReason *left_alone;    /* the same, translated where shown */
} VsmPlan;

/* What a person (or the daemon's measurement) decides over the policy.
 * A zeroed struct changes nothing. */
typedef struct
{
  gboolean set_class; /* --class, x-vfat-smart.class= */
  VsmClass klass;
  const char *fs_type;          /* what is on the device now, when udev had not seen it */
  gboolean probe_fs;            /* vsm_assess (): read fs_type from the superblock now */
  VsmFlushMode flush_mode;      /* AUTO: the plan decides; -o flush / -o sync */
  const char *flush_mode_why;   /* an N_ () message, a serialized VsmReason or text as it is */
  guint64 bandwidth;            /* measured write bandwidth, bytes/s; 0: none */
  const char *bandwidth_source; /* an N_ () message, a serialized VsmReason or text as it is */
  /* the daemon paces one big file (with a measured bandwidth): the cap
   * holds all of max-dirty-seconds (vsm_learn_cap_seconds ()) */
  gboolean one_big_file;
} VsmOverrides;

void vsm_plan_free (VsmPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmPlan, vsm_plan_free)

/* ---- vsm-user-options ---- */

typedef struct
{
  GHashTable *values; /* user key -> GVariant */
  char *source;       /* VSM_OPTIONS_BY_USER or VSM_OPTIONS_BY_ADMIN */
  guint32 uid;        /* who set them last */
  char *mount;        /* the mount they belong to (vsm_user_options_mount_key) */
} VsmUserOptions;

void vsm_user_options_free (VsmUserOptions *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmUserOptions, vsm_user_options_free)

VsmUserOptions *vsm_user_options_copy (const VsmUserOptions *o);
gboolean vsm_user_options_is_empty (const VsmUserOptions *o);

/* Merges SetOptions' a{sv} into o. Keys: the user keys, and "reset" (b):
 * drop what was set before. as_user: the caller is the (non-root) uid
 * that mounted the drive, and then a key the admin locked, or any key when
 * allow-user-tuning is false, is refused (VSM_ERROR_PERMISSION), and a
 * max-dirty-seconds above user-max-dirty-seconds is lowered to it (notes
 * gets a line). A bad key or value: VSM_ERROR_INVALID_ARGUMENT. On error
 * o is unchanged. */
gboolean vsm_user_options_update (VsmUserOptions *o, GVariant *options, const VsmPolicy *admin,
                                  gboolean as_user, guint32 uid, GPtrArray *notes, GError **error);

/* vsm_user_options_apply where the options may count: an admin's always,
 * a user's only where the kernel has per-device caps (no user value ever
 * reaches a vm.* knob). o may be NULL. */
void vsm_user_options_apply_for_kernel (const VsmUserOptions *o, VsmPolicy *policy,
                                        gboolean device_cap);

/* "uid=N;/media/u/STICK;..." : options belong to one mount of one user;
 * the mount points sorted (the key is the same in whatever order they
 * come) */
char *vsm_user_options_mount_key (guint32 uid, const char *const *mount_points);

gboolean vsm_user_options_remove (const char *bdi, GError **error);
/* The options a previous run saved for bdi (vfat-smartd restarted), NULL
 * when none; a file that cannot be trusted is removed (a warning). */
VsmUserOptions *vsm_user_options_adopt (const char *bdi);

/* ---- vsm-intent ---- */

/* who stated an intent (VsmIntent.source) */
#define VSM_SOURCE_UDEV "udev"
#define VSM_SOURCE_MOUNT "mount"
#define VSM_SOURCE_CLI "cli"
#define VSM_SOURCE_DAEMON "daemon"
#define VSM_SOURCE_AGENT "agent"

typedef struct
{
  char *source;       /* VSM_SOURCE_*; NULL: not known (an older record) */
  gboolean set_class; /* a person chose the class */
  VsmClass klass;
  VsmFlushMode flush_mode;      /* AUTO: the plan decides; SYNC, KERNEL_FLUSH, ...: chosen */
  VsmUserOptions *user_options; /* SetOptions in force; NULL: none */
  char *policy_origin;          /* the admin policy's source (VsmPolicy.source) */
} VsmIntent;

void vsm_intent_free (VsmIntent *intent);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmIntent, vsm_intent_free)

/* ---- vsm-state ---- */

typedef struct
{
  char *name;         /* "max_bytes", "vm.dirty_bytes" */
  char *path;         /* where it was written */
  char *original;     /* read before the first write */
  char *applied;      /* what was written */
  char *readback;     /* read right after writing */
  char *restore_path; /* what restore writes, and where */
  char *restore_value;
} VsmKnobRecord;

typedef struct
{
  char *bdi; /* "8:16" */
  char *disk_node;
  char *disk_name;
  char *disk_syspath;
  char *serial;
  char *class_name;
  char *flush_mode;
  char *fs_type;
  char *mount_options;
  char *source;     /* who applied first, and owns the knobs: "cli", "udev", "mount" */
  char *updated_by; /* who applied last ("daemon" for its re-applies); NULL in older records */
  guint64 cap_bytes;
  guint64 bandwidth;
  gint64 applied_at; /* g_get_real_time () */
  gint64 updated_at;
  char *baseline_stat;     /* /sys/block/DISK/stat at the first apply */
  gboolean pending;        /* written ahead of the knobs: an apply did not finish */
  gboolean uses_global;    /* an owner of the vm.* knobs in global.state */
  gboolean pace_writeback; /* the plan's: vfat-smartd may pace (TRUE in older records) */
  GPtrArray *knobs;        /* VsmKnobRecord*, in the order written */
  GPtrArray *reasons;      /* VsmReason* */
  VsmIntent *intent;       /* what the last apply was asked; NULL in older records */
} VsmState;

void vsm_state_free (VsmState *state);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmState, vsm_state_free)

VsmState *vsm_state_load (const char *bdi, GError **error);
/* every managed disk, sorted by bdi; NULL with error when the directory is
 * unreadable. corrupt (may be NULL) gets "FILE: why" for each state file
 * that cannot be trusted: they are never obeyed, and never hidden. */
GPtrArray *vsm_state_list (GPtrArray *corrupt, GError **error);

/* ---- vsm-apply ---- */

/* how long a front end waits for another vfat-smart's lock */
#define VSM_LOCK_WAIT_UDEV_MS 1000
#define VSM_LOCK_WAIT_MS 10000

typedef struct
{
  const char *source; /* "cli", "udev", "mount", "daemon": recorded */
  guint lock_wait_ms; /* 0: VSM_LOCK_WAIT_MS */
  /* the vm.* knobs of a plan only while a filesystem of the disk is mounted
   * (udev at the plug, the daemon at every mount and unmount); otherwise
   * this disk holds none of them (and lets go of them if it did) */
  gboolean global_while_mounted;
  /* only a disk that has a record (checked under the lock): a re-apply of
   * vfat-smartd must not undo a restore that ran since it decided. A
   * pending record (an apply that did not finish) counts: it is undone,
   * then this plan is applied in its place. */
  gboolean only_if_recorded;
  /* what was asked, recorded with the knobs; NULL: source only, nothing
   * chosen by hand */
  const VsmIntent *intent;
} VsmApplyOptions;

/* Puts every recorded original of the disk back and forgets it (a disk that
 * is gone, or whose numbers now belong to another disk, needs nothing put
 * back). The vm.* knobs go back when their last owner goes.
 * VSM_ERROR_NOT_MANAGED when nothing is recorded. */
gboolean vsm_restore (const char *bdi, guint lock_wait_ms, GPtrArray *report, GError **error);

/* Forgets the disk without writing its knobs (it is gone, or its record is
 * not to be trusted); still restores the vm.* knobs when it was their last
 * owner. */
gboolean vsm_forget (const char *bdi, guint lock_wait_ms, GPtrArray *report, GError **error);

/* restore for every recorded disk, then drops vm.* owners without a record
 * and reports corrupt records (VSM_ERROR_STATE: they are not obeyed; see
 * vsm_forget_file). */
gboolean vsm_restore_all (GPtrArray *report, GError **error);

/* Lets go of vm.* owners that have no record (a crash between writing the
 * knobs and the record, a full /run): the knobs go back when no owner is
 * left. What vfat-smartd does at start; restore --all does it too. */
gboolean vsm_release_phantom_owners (GPtrArray *report, GError **error);

/* Forgets a corrupt record by file name, writing nothing;
 * VSM_ERROR_NOT_MANAGED when no such file is there. */
gboolean vsm_forget_file (const char *name, GError **error);

/* ---- vsm-drive-history ---- */

typedef struct
{
  gint64 at_usec;    /* g_get_real_time () at the end of the mount */
  guint64 bandwidth; /* measured during the mount, bytes/s; 0: nothing measured */
  guint64 cap_bytes; /* the cap in force at the end */
  guint64 bytes_written;
  double seconds_to_safe; /* how long the unmount took; < 0 unknown */
} VsmDriveMount;

typedef struct
{
  char *identity;
  guint64 bandwidth; /* the learned value the next plug starts from; 0: none */
  gint64 updated_usec;
  GArray *mounts; /* VsmDriveMount, newest last */
} VsmDriveHistory;

void vsm_drive_history_free (VsmDriveHistory *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmDriveHistory, vsm_drive_history_free)

/* "usb:0781:5581:SERIAL" or "uuid:ABCD-1234"; the one rule every front
 * end names a drive by: the USB vid:pid + serial, else the UUID of the
 * filesystem (the device's own: a partition or a superfloppy; for a whole
 * partitioned disk, its mounted FAT partition's, else its first FAT
 * partition's: VsmDevice.disk_fs_uuid). NULL when the drive tells
 * neither (a drive without a serial and without a filesystem UUID is not
 * remembered: two such drives could not be told apart). Characters outside
 * [A-Za-z0-9._-] are %XX-escaped, the result cut at 200 bytes. */
char *vsm_drive_identity (const VsmDevice *device);

/* One drive, from the file (NULL, VSM_ERROR_NOT_FOUND: nothing known). */
VsmDriveHistory *vsm_drive_history_load (const char *identity, GError **error);
/* Adds a mount to the drive's history (creating it), keeps the learned
 * bandwidth when the mount measured one, and trims the file to its bounds
 * (the least recently updated drives go first). */
gboolean vsm_drive_history_record (const char *identity, const VsmDriveMount *mount,
                                   GError **error);

/* "last 5 mounts: 18.2 MB/s" */
char *vsm_drive_history_describe (const VsmDriveHistory *h);
/* the same in the reader's language, for a person (describe's English
 * stays for logs, records and the bus) */
char *vsm_drive_history_to_display (const VsmDriveHistory *h);

/* ---- vsm-history ---- */

typedef struct
{
  char *bdi;
  char *target;
  gint64 at_usec; /* g_get_real_time () */
  double seconds; /* how long the unmount took */
  guint64 dirty_bytes;
  gboolean per_device; /* FALSE: dirty_bytes is the whole system's figure */
} VsmUnmountRecord;

void vsm_unmount_record_free (VsmUnmountRecord *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmUnmountRecord, vsm_unmount_record_free)

gboolean vsm_history_append_unmount (const VsmUnmountRecord *r, GError **error);
/* the last max unmounts of bdi, newest last; bad lines are skipped */
GPtrArray *vsm_history_unmounts (const char *bdi, guint max);

/* ---- vsm-knobs ---- */

/* The knob's value now as a number; FALSE when it cannot be read (an
 * unknown knob, a kernel without it). */
gboolean vsm_knob_read_u64 (const char *bdi, const char *name, guint64 *out);
/* The kernel has the knob for the disk (BDI knobs arrived in 6.2) */
gboolean vsm_knob_exists (const char *bdi, const char *name);

typedef enum
{
  VSM_DRIFT_NONE,    /* as applied */
  VSM_DRIFT_CHANGED, /* someone else changed it */
  VSM_DRIFT_GONE,    /* cannot be read: device unplugged */
} VsmDrift;

/* ---- vsm-stats ---- */

#define VSM_DISK_STAT_FIELDS 17

typedef struct
{
  guint64 field[VSM_DISK_STAT_FIELDS];
  guint n_fields; /* 11 before 4.18, 15 before 5.5, 17 since */
} VsmDiskStat;

/* raw: the line as read, for the state file */
gboolean vsm_disk_stat_read (const char *disk_name, VsmDiskStat *out, char **raw, GError **error);

typedef struct
{
  gboolean valid; /* FALSE when counters went backwards */
  guint64 write_ios;
  guint64 write_bytes;
  guint64 flush_ios;
  gboolean has_flush; /* the kernel counts flushes (17 fields) */
  guint64 busy_ms;    /* io_ticks */
  double avg_write_request_bytes;
  double write_throughput; /* bytes per busy second */
} VsmIoDelta;

typedef struct
{
  gboolean per_device; /* TRUE: from debugfs bdi stats; FALSE: global meminfo */
  gboolean valid;
  guint64 dirty_bytes;
  guint64 writeback_bytes;
  guint64 bdi_thresh_bytes;
  guint64 dirty_thresh_bytes;
  guint64 bandwidth;       /* kernel's write bandwidth estimate, bytes/s; 0 unknown */
  guint64 dirtied_bytes;   /* BdiDirtied: dirtied since boot (grows while written) */
  guint64 dirty_inodes;    /* b_dirty + b_io + b_more_io: inodes waiting */
  gboolean has_inodes;     /* the kernel printed the inode lists */
  guint64 residual_bytes;  /* counted as 0: within the counters' error, see below */
  guint64 error_bytes;     /* that error bound on this machine (debugfs figures) */
  guint64 bg_thresh_bytes; /* BackgroundThresh: the system's background threshold */
} VsmDirtyInfo;

/* debugfs' BdiReclaimable and BdiWriteback are per-CPU counters read
 * without summing (wb_stat(), percpu_counter_read_positive()): they can stay
 * off by up to wb_stat_error() = nr_cpu_ids x WB_STAT_BATCH pages long after
 * the drive is clean (64 KiB seen in the lab's 2-CPU guest; 2.5 MiB on a
 * 16-CPU machine). The error bound in bytes for this machine: */
guint64 vsm_wb_stat_error_bytes (guint nr_cpu_ids, guint64 page_size);
/* debugfs bdi/MAJ:MIN/stats when readable (the dirty residue discounted),
 * else /proc/meminfo */
void vsm_dirty_info_read (const char *bdi, VsmDirtyInfo *out);

/* Data at risk on a drive, the one figure status, watch, the daemon and the
 * agent show. With debugfs, the drive's own dirty and writeback bytes
 * (kind "device"). Without, the whole system's: an upper bound, within the
 * drive's cap when it has one (cap 0: none), and nothing when the drive has
 * not written lately (kind "system"). *kind (may be NULL) gets the kind. */
guint64 vsm_at_risk_bytes (const VsmDirtyInfo *di, guint64 cap, gboolean wrote_lately,
                           const char **kind);

/* Writes the block layer has in flight to the disk bdi (the W of its
 * sysfs inflight); 0 when it cannot be read. */
guint64 vsm_disk_writes_in_flight (const char *bdi);

/* ---- vsm-learn ---- */

#define VSM_LEARN_HYSTERESIS 0.2

typedef struct
{
  double max_dirty_seconds;
  guint64 cap_min_bytes;
  guint64 cap_max_bytes;
} VsmLearnLimits;

typedef struct _VsmLearn VsmLearn;

/* start_bandwidth: what the plan started from (bytes/s, > 0) */
VsmLearn *vsm_learn_new (const VsmLearnLimits *limits, guint64 start_bandwidth);
void vsm_learn_free (VsmLearn *learn);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmLearn, vsm_learn_free)

/* New limits (SetOptions, a policy change) and the cap now in force (what
 * another apply wrote): what was measured stays, the next change is
 * judged against cap_in_force. */
void vsm_learn_set_limits (VsmLearn *learn, const VsmLearnLimits *limits, guint64 cap_in_force);

/* One sample. Returns TRUE when the cap changed (read it with
 * vsm_learn_get_cap ()); counters going backwards restart the stretch. */
gboolean vsm_learn_feed (VsmLearn *learn, gint64 at_usec, const VsmDiskStat *stat);

/* bytes/s measured so far, 0 before the first measurement */
guint64 vsm_learn_get_bandwidth (const VsmLearn *learn);
/* the bandwidth the cap follows: measured, else the starting value */
guint64 vsm_learn_get_cap_bandwidth (const VsmLearn *learn);
guint64 vsm_learn_get_cap (const VsmLearn *learn);
/* bytes written since the first sample */
guint64 vsm_learn_get_bytes_written (const VsmLearn *learn);

/* cap for a bandwidth: bandwidth x seconds, clamped, whole MiB; the one
 * formula of the cap, the plan's (vsm-plan) and the learner's */
guint64 vsm_learn_cap_for (const VsmLearnLimits *limits, guint64 bandwidth);
/* the seconds of writing a cap holds: all of max_dirty_seconds where
 * vfat-smartd does not pace (paced FALSE: SSDs, hard disks) and while it
 * paces one big file, VSM_LEARN_MANY_FILES_SHARE of it otherwise */
double vsm_learn_cap_seconds (double max_dirty_seconds, gboolean paced, gboolean one_big_file);
/* new seconds for the cap (the limits' max_dirty_seconds); with a
 * measurement the cap follows at once, without damping: TRUE when it moved */
gboolean vsm_learn_set_seconds (VsmLearn *learn, double seconds);

/* ---- vsm-manager ---- */

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

/* A mount (mount.vfat-smart): what a person asked for one device. */
typedef struct
{
  const char *spec;              /* node, LABEL=, UUID=, by-* link */
  const VsmOverrides *overrides; /* the person's choices (class, -o flush or sync); may be NULL */
  const char *options; /* the person's -o as the kernel gets them: they win over the plan's */
  gboolean dry_run;    /* mount -f: the mount step alone, no knob written, nothing recorded */
} VsmMountIntent;

/* The mount itself, with the options to mount with (the plan's, the
 * person's winning over them); between the knobs and the record, as
 * VsmApplyStep. */
typedef gboolean (*VsmMountStep) (const VsmAssessment *a, const char *options, gpointer data,
                                  GError **error);

/* mount (disk, intent), in one call: the device's facts with the filesystem
 * on it now (udev may not have seen it yet), planned with the person's
 * choices, the knobs applied with step as the mount, recorded as the
 * mount's. VSM_ERROR_NOT_SUPPORTED when the device holds neither FAT nor
 * exFAT (nothing changed). *assessment (may be NULL) gets the plan
 * whenever one was made, failure or not, for what a front end prints;
 * *state the record (NULL: left alone, or a dry run). */
gboolean vsm_mount (const VsmMountIntent *m, VsmMountStep step, gpointer data,
                    VsmAssessment **assessment, VsmState **state, GError **error);

/* Why and with what a recorded disk is planned again. */
typedef struct
{
  const char *reason; /* why now ("the cap drifted"): logged in the record's reasons */
  guint64 bandwidth;  /* measured write bandwidth, bytes/s; 0: none (the drive's history) */
  const char *bandwidth_source;
  VsmPolicy *policy; /* the admin's, taken over; NULL: loaded */
  /* the per-drive options in force changed (SetOptions, the mount they
   * were set for ended): user_options (NULL: none) from now on. They are
   * kept first (vsm_user_options_store (): what a restart adopts); when
   * their ignore-devices match the drive, it is restored instead of
   * planned (*state NULL, a line in notes). */
  gboolean set_user_options;
  const VsmUserOptions *user_options;
  /* a class a person chose now (vfat-smart apply --class through the
   * daemon): it replaces the recorded one */
  gboolean set_class;
  VsmClass klass;
  /* the writeback stall fallback (vsm-stall.h): why strict_limit is
   * dropped for the drive; NULL: the plan's strict_limit */
  const char *drop_strict_limit;
  /* the daemon paces one big file: the cap for it (VsmOverrides) */
  gboolean one_big_file;
  /* may be NULL: what was done besides the plan, one line each */
  GPtrArray *notes;
} VsmReapply;

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

/* ---- vsm-mount ---- */

typedef struct
{
  char *source;
  char *target;
  char *fstype;
  char *options;      /* VFS and filesystem options as the kernel shows them */
  char *user_options; /* from utab: uhelper=, x-* */
} VsmMountInfo;

/* Mounts of the disk at disk_syspath or any of its partitions. */
GPtrArray *vsm_mounts_for_disk (const char *disk_syspath);
/* The one "device of disk" check: devno is the disk's (its sysfs
 * directory, or /sys/block/NAME) or one of its partitions'. */
gboolean vsm_devno_is_on_disk (dev_t devno, const char *disk_syspath);

/* Whether a process holds a file on the disk at disk_syspath (any of its
 * file systems) open for writing: a writer that paused, not one that is done
 * (/proc/PID/fd, see vsm-mount.c). */
gboolean vsm_disk_has_open_writers (const char *disk_syspath);

/* TRUE when libmount can read every option of optstr (no open quote). */
gboolean vsm_options_are_valid (const char *optstr);

/* ---- vsm-pace ---- */

typedef struct
{
  gboolean have_last;
  guint64 last_dirtied;
  gboolean writing;         /* the last sample saw newly dirtied data */
  gint64 last_writing_usec; /* when a sample last saw newly dirtied data */
  gboolean unsettled;       /* data was dirtied since the last settle */
  gint64 agree_since_usec;  /* 0: the last sample did not call for pacing */
  gboolean pacing;
  gboolean have_stat;
  VsmDiskStat last_stat;    /* the disk's stat at stat_usec */
  gint64 stat_usec;         /* the start of the busy share's window */
  double busy;              /* the busy share of the last whole window */
  gint64 last_usec;         /* the last sample */
  gint64 last_commit_usec;  /* 0: none yet */
  gint64 commit_ended_usec; /* when the last metadata commit ended; 0: none */
  gint64 synced_usec;       /* when the last whole sync of the file system that
                            * completed began (vsm_pace_synced()); 0: none */
  guint64 cap;              /* the cap at the last sample */
  gint64 cap_changed_usec;  /* when the cap last changed or an apply ran; 0: never */
  gboolean applying;        /* an apply of the drive's limits runs */
  /* the cap for one big file (vsm_pace_one_big_file ()) */
  gboolean one_big_file;
  gboolean many_files;    /* since the last settle: then never one big file */
  gint64 many_since_usec; /* 0: the last sample did not see many files written */
} VsmPace;

/* One sample of the drive (per-device figures only: without debugfs there
 * is no telling one writer from many, and it never paces). stat: the
 * disk's /sys/block/DISK/stat read at at_usec (monotonic), NULL when it
 * could not be read (then the drive counts as busy). cap: the cap in
 * force, bytes (0: none, never paces). Returns whether to pace now. */
gboolean vsm_pace_feed (VsmPace *pace, const VsmDirtyInfo *di, const VsmDiskStat *stat,
                        gint64 at_usec, guint64 cap);

/* Whether an apply of the drive's limits runs at at_usec, told before every
 * vsm_pace_feed(). While one runs the cap may change under a writer, and
 * the cap the samples know is not yet the one in force: a writer held by a
 * lower cap is quiet while what was dirtied above it drains, however little
 * of the old cap that is (the lab's 7.2 daemon check: the cap from 38 to
 * 10 MiB, 35 MiB at risk, a settle in the middle of the copy once less than
 * three quarters of the old cap was left). No settle while it runs, and the
 * wait after a cap change (vsm_pace_settle()) counts from its end. */
void vsm_pace_applying (VsmPace *pace, gboolean applying, gint64 at_usec);

/* After vsm_pace_feed(): whether the cap should hold all of
 * max-dirty-seconds (vsm_learn_cap_seconds ()). TRUE from when one big
 * file is paced; FALSE again after the settle that follows its end or
 * once the drive is safe (vsm_pace_safe ()), or once the writer wrote many
 * files (more than VSM_PACE_MAX_INODES inodes dirty) for
 * VSM_PACE_MANY_FILES_USEC: then until the next settle. */
gboolean vsm_pace_one_big_file (VsmPace *pace, const VsmDirtyInfo *di, gint64 at_usec);

/* How the sync worker ended, for vsm_pace_restart(). */
typedef enum
{
  VSM_PACE_ENDED_PACING, /* a pacing run, asked to stop or done */
  VSM_PACE_ENDED_SETTLE, /* the settle's one sync */
  VSM_PACE_ENDED_FAILED, /* it could not sync: the mount is not paced again */
} VsmPaceEnded;

/* The sync worker ended: the samples start afresh and must agree again
 * before pacing, and what a sync's round dirtied itself (FAT's buffers) is
 * no writer. After a pacing run what is still at risk in di waits for a
 * settle as if written at at_usec: pacing asked to stop while cp still wrote
 * leaves what was dirtied during its last round (the lab saw 4 MiB wait 4 s
 * and more after cp returned, with nothing left to write it). After a
 * settle nothing does: its sync wrote what was there when it began, and a
 * writer since is seen by the next samples (what the counters keep after a
 * sync re-armed the settle every 0.8 s for 4 s in x-notice-pny32g-7.2's
 * rerun, and Safe stayed false meanwhile). The last cap change is kept. */
void vsm_pace_restart (VsmPace *pace, const VsmDirtyInfo *di, gint64 at_usec, VsmPaceEnded how);

/* After vsm_pace_feed(): TRUE once when the writer has stopped (nothing
 * newly dirtied for VSM_PACE_SETTLE_USEC, or VSM_PACE_SETTLE_HELD_USEC
 * while the cap can hold a writer (vsm_pace_held_by_cap()), after a sample
 * that saw some; no apply running (vsm_pace_applying()), no cap change
 * within VSM_PACE_CAP_CHANGE_HOLD_USEC while the cap can hold a writer; a
 * cap, and no more than the cap at risk) and
 * data of the drive is still at risk or an inode waits (its directory
 * entry, the FAT blocks): then one sync of the file system commits what it
 * left. Without it, once the data is below the background threshold,
 * the files' directory entries and FAT chains (dirty buffers of the block
 * device) are not written soon: in the lab a pull 40 s after a copy of
 * 1000 x 64 KiB, 0.1 MiB at risk, lost at least 11 MiB of files whose
 * data was on the drive (bench/notes.md, x-settle-small). Not again until
 * new data is dirtied. */
gboolean vsm_pace_settle (VsmPace *pace, const VsmDirtyInfo *di);
/* Whether a cap of cap bytes can hold a writer with what di has at risk:
 * strict_limit lets writers run free below three quarters of it
 * (VSM_PACE_HELD_FILL). */
gboolean vsm_pace_held_by_cap (const VsmDirtyInfo *di, guint64 cap);

/* After vsm_pace_feed(): TRUE when everything written to the drive is on
 * it, as far as the writeback figures tell (the caller checks that no write
 * is in flight, vsm_disk_writes_in_flight()): nothing newly dirtied for
 * VSM_PACE_SETTLE_USEC (a copy between two files is not done), and either
 * nothing dirty or under writeback
 * and no inode waiting to be written (a FAT file's directory entry), or a
 * whole sync of the file system that began after the last write completed
 * and what the counters still show is within their error (error_bytes).
 * After a sync the kernel keeps listing an inode it cleaned (the block
 * device's, whose pages hold both FATs and the directories) until the
 * flusher looks again, up to dirty_expire_centisecs later, and with an
 * inode listed the dirty figure's residue is not discounted: in the lab's
 * 2-CPU guest 64 KiB dirty and 64 KiB under writeback stayed after every
 * copy. FALSE without per-device figures: then nothing tells. */
gboolean vsm_pace_safe (const VsmPace *pace, const VsmDirtyInfo *di);
/* Why vsm_pace_safe() says no, in a few words for the log ("writing", "data
 * at risk", ...), NULL when it says yes. */
const char *vsm_pace_not_safe (const VsmPace *pace, const VsmDirtyInfo *di);

/* A whole sync of the file system (the settle's, a pacing round's) that
 * began at started_usec completed without error. */
void vsm_pace_synced (VsmPace *pace, gint64 started_usec);

/* A metadata commit ended at at_usec: the writer may have waited for it
 * (a directory block it needed was being written), so the quiet that tells
 * vsm_pace_settle () the writer stopped counts from then. */
void vsm_pace_commit_ended (VsmPace *pace, gint64 at_usec);

/* After vsm_pace_feed(): TRUE when the metadata a writer left should be
 * committed now (one fsync of the file system's block device): new data
 * was dirtied since the last sample, the writer is not paced (pacing syncs
 * everything anyway), and the last commit is period_usec old
 * (vsm_pace_commit_period()). */
gboolean vsm_pace_commit_due (VsmPace *pace, gint64 at_usec, gint64 period_usec);

/* How often a writer's metadata is committed, microseconds: half the cap's
 * seconds at the drive's bandwidth (a pull then loses the cap's data and at
 * most half as long again of files written but not yet reachable), within
 * VSM_PACE_COMMIT_MIN_USEC and VSM_PACE_COMMIT_MAX_USEC; the longest when
 * either is unknown (0). */
gint64 vsm_pace_commit_period (guint64 cap, guint64 bandwidth);

/* ---- vsm-paths ---- */

typedef enum
{
  VSM_ROOT_SYSFS,   /* /sys */
  VSM_ROOT_PROCFS,  /* /proc */
  VSM_ROOT_DEBUGFS, /* /sys/kernel/debug */
  VSM_ROOT_STATE,   /* /run/vfat-smart, or $VFAT_SMART_STATE_DIR */
  VSM_ROOT_LIB,     /* /var/lib/vfat-smart (kept across boots), or $VFAT_SMART_LIB_DIR */
  VSM_ROOT_LAST,    /*< skip >*/
} VsmRoot;

/* vsm_path (VSM_ROOT_SYSFS, "class/bdi", "8:16", "max_bytes", NULL) ->
 * "/sys/class/bdi/8:16/max_bytes". Elements must not be NULL. */
char *vsm_path (VsmRoot root, const char *first_element, ...) G_GNUC_NULL_TERMINATED;

/* TRUE when the kernel's own /sys and /proc are in use (no test tree, and
 * in a build with -Dumockdev_testbed=true no umockdev testbed): only then
 * does changing a knob need root. UMOCKDEV_DIR is ignored otherwise. */
gboolean vsm_paths_are_system (void);

/* ---- vsm-probe ---- */

const char *vsm_flush_fix_variant_to_string (VsmFlushFixVariant v);

typedef struct
{
  VsmFlushFix fix;
  VsmFlushFixVariant variant;
  char *release;    /* uname -r when probed */
  char *srcversion; /* the fat module's identity, see vsm_probe_current_key () */
  char *evidence;   /* one line: what the probe saw */
  gint64 probed_at; /* g_get_real_time () */
  gboolean from_cache;
} VsmProbeResult;

void vsm_probe_result_free (VsmProbeResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmProbeResult, vsm_probe_result_free)

/* The cached answer if its key matches (unless force), else the probe (unless
 * cached_only), cached. NULL with error when nothing could be told; *store_note
 * (may be NULL) gets why a fresh answer could not be cached. */
VsmProbeResult *vsm_probe_find_answer (const char *tracefs_root, const char *cache_dir,
                                       gboolean force, gboolean cached_only, char **store_note,
                                       GError **error);

/* ---- vsm-rundir ---- */

typedef enum
{
  VSM_RUN_FILE_OTHER, /* not one of ours */
  VSM_RUN_FILE_RECORD,
  VSM_RUN_FILE_OPTIONS,
  VSM_RUN_FILE_GLOBAL,
  VSM_RUN_FILE_UNMOUNTS,
  VSM_RUN_FILE_UDEV_ANSWERED,
  VSM_RUN_FILE_PROBE_CACHE,
  VSM_RUN_FILE_LOCK,
  VSM_RUN_FILE_TEMPORARY,
} VsmRunFile;

/* the directory (vsm-paths' state root) */
const char *vsm_rundir (void);
/* the same, as a path */
char *vsm_rundir_path (VsmRunFile kind, const char *bdi);
/* what kind of file name (a base name in the directory) is; *bdi (may be
 * NULL) gets "MAJ:MIN" for a record or options */
VsmRunFile vsm_rundir_kind_of (const char *name, char **bdi);

/* ---- vsm-stall ---- */

typedef struct
{
  gint64 at_usec;          /* monotonic */
  gboolean per_device;     /* the figures are the device's (debugfs); else nothing is told */
  guint64 dirty_bytes;     /* BdiReclaimable */
  guint64 writeback_bytes; /* BdiWriteback */
  guint64 limit_bytes;     /* the device's threshold (BdiDirtyThresh, at most the cap); 0 unknown */
  guint64 bg_limit_bytes;  /* its background threshold; 0: taken as half the limit */
  guint64 write_sectors;   /* /sys/block/DISK/stat field 7 */
} VsmStallSample;

typedef struct
{
  gint64 window_usec;  /* what is looked at: 30 s */
  gint64 stall_usec;   /* throttled with no writeback this long within the window: 15 s */
  gint64 max_gap_usec; /* samples further apart than this are not joined: 5 s */
  guint64 slack_bytes; /* writeback figures up to this are the counter's error */
} VsmStallLimits;

#define VSM_STALL_RING 64

typedef struct
{
  gint64 end_usec;
  gint64 length_usec;
  gboolean idle; /* throttled at both ends, nothing in writeback, no sector written */
} VsmStallInterval;

typedef struct
{
  VsmStallLimits limits;
  gboolean have_last;
  VsmStallSample last;
  gboolean last_throttled;
  VsmStallInterval ring[VSM_STALL_RING];
  guint next;
  gint64 idle_usec; /* within the window, after the last feed */
} VsmStall;

typedef enum
{
  VSM_STALL_UNKNOWN, /* no per-device figures */
  VSM_STALL_NONE,
  VSM_STALL_SUSPECT, /* throttled with no writeback, not yet long enough */
  VSM_STALL_STALLED,
} VsmStallVerdict;

/* limits: NULL for the defaults above */
void vsm_stall_init (VsmStall *stall, const VsmStallLimits *limits);
VsmStallVerdict vsm_stall_feed (VsmStall *stall, const VsmStallSample *sample);

/* A sample from what the daemon reads each tick; cap_bytes: the cap in
 * force (0: none) */
void vsm_stall_sample_from (VsmStallSample *out, gint64 at_usec, const VsmDirtyInfo *dirty,
                            const VsmDiskStat *stat, guint64 cap_bytes);

/* ---- vsm-truth ---- */

typedef struct
{
  char *mode;    /* "kernel-flush", "dirty-cap", "sync", "off" */
  char *planned; /* the record's flush mode */
  char *reason;  /* why mode is not the planned one; NULL when it is */
  char *safety;  /* how it compares to udisks' default; NULL when mode is the planned one */
  gboolean cap_in_place;
  gboolean strict_limit_dropped; /* vfat-smartd's stall fallback (vsm-stall.h) */
} VsmFlushTruth;

void vsm_flush_truth_free (VsmFlushTruth *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmFlushTruth, vsm_flush_truth_free)

/* The same for a record and the disk's mounts (VsmMountInfo*, may be
 * NULL: read them) */
VsmFlushTruth *vsm_flush_truth_for_state (const VsmState *state, GPtrArray *mounts);

/* the record has strict_limit=1 applied */
gboolean vsm_state_strict_limit_on (const VsmState *state);

/* ---- vsm-udisks ---- */

#define VSM_UDISKS_MOUNT_OPTIONS_CONF "/etc/udisks2/mount_options.conf"

/* Both in one: the defaults udisks should take for the plan's filesystem
 * on the device named by names, layered over conf_path (NULL: none, udisks'
 * built-in set). */
char *vsm_udisks_layered_defaults (const VsmPlan *plan, const char *conf_path,
                                   const char *const *names);

/* ---- vsm-util ---- */

#define VSM_ERROR (vsm_error_quark ())
GQuark vsm_error_quark (void);

/* Each code has one meaning; the command line maps each to one exit
 * status (src/cli/vfat-smart-exit.c). */
typedef enum
{
  VSM_ERROR_FAILED,           /* anything else */
  VSM_ERROR_INVALID_ARGUMENT, /* bad option, bad value */
  VSM_ERROR_NOT_FOUND,        /* no such device, not a block device */
  VSM_ERROR_NOT_SUPPORTED,    /* the kernel lacks a knob, or not FAT */
  VSM_ERROR_PERMISSION,       /* needs root */
  VSM_ERROR_APPLY,            /* writing a knob failed (what was undone is in the message) */
  VSM_ERROR_STATE,            /* state file unreadable, unsafe or inconsistent */
  VSM_ERROR_NOT_MANAGED,      /* the device has no recorded state */
  VSM_ERROR_LEFT_ALONE,       /* the plan leaves the device alone (internal, policy) */
  VSM_ERROR_BUSY,             /* another vfat-smart holds the state lock */
} VsmError;

gboolean vsm_parse_u64 (const char *text, guint64 *out);
gboolean vsm_parse_i64 (const char *text, gint64 *out);

/* g_format_size_full (), with a plain space before the unit where the
 * output charset is not UTF-8 (g_get_charset ()); "38.0 MiB" */
char *vsm_format_size (guint64 bytes, GFormatSizeFlags flags);
char *vsm_format_bytes (guint64 bytes);

/* one line for a person (a front end prints them) added to notes (may be NULL) */
void vsm_note (GPtrArray *notes, const char *format, ...) G_GNUC_PRINTF (2, 3);
char *vsm_format_rate (double bytes_per_second);

/* The nick of an enum value (generated with glib-mkenums), or fallback. */
const char *vsm_enum_to_nick (GType type, int value, const char *fallback);

G_END_DECLS
