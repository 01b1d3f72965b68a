/* vsm-drive-history.h - what vfat-smart learned about each drive, kept
 * across plugs and boots
 *
 * One key file, /var/lib/vfat-smart/drives.history: a group per drive
 * identity (USB vid:pid + serial, else the filesystem UUID) with the
 * learned bandwidth and its last mounts (bandwidth, cap, bytes written,
 * seconds to safe). Written atomically (fsync, rename), bounded in drives,
 * mounts per drive and bytes; read like a state file (regular, ours), never
 * more than the bound, every value checked, a bad entry skipped alone. A
 * change (record, forget) over a file that cannot be trusted or read
 * writes it anew, bounded.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-device.h"

G_BEGIN_DECLS

#define VSM_DRIVE_HISTORY_MAX_DRIVES 64
#define VSM_DRIVE_HISTORY_MAX_MOUNTS 8
#define VSM_DRIVE_HISTORY_MAX_BYTES (256 * 1024)

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
gboolean vsm_drive_identity_is_valid (const char *identity);

/* The file parsed, entry by entry: a line that is not a key file's, a
 * group whose name is not a drive identity, a bad value or a bad mount is
 * skipped alone (a drive that lost its learned bandwidth takes its newest
 * measured mount's), and said in problems (strings, may be NULL); past
 * VSM_DRIVE_HISTORY_MAX_BYTES nothing is read (cut at a line's end). Never
 * NULL for any bytes in practice (error only if GKeyFile refused the
 * sound lines). */
GPtrArray *vsm_drive_history_parse (const char *data, gsize len, GPtrArray *problems,
                                    GError **error);
char *vsm_drive_history_serialize (GPtrArray *drives, gsize *len);

/* One drive, from the file (NULL, VSM_ERROR_NOT_FOUND: nothing known). */
VsmDriveHistory *vsm_drive_history_load (const char *identity, GError **error);
/* Adds a mount to the drive's history (creating it), keeps the learned
 * bandwidth when the mount measured one, and trims the file to its bounds
 * (the least recently updated drives go first). */
gboolean vsm_drive_history_record (const char *identity, const VsmDriveMount *mount,
                                   GError **error);
/* Drops the drive's history (VSM_ERROR_NOT_FOUND when none). */
gboolean vsm_drive_history_forget (const char *identity, GError **error);

/* "last 5 mounts: 18.2 MB/s" */
char *vsm_drive_history_describe (const VsmDriveHistory *h);

G_END_DECLS
