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

#include "vsm.h"

#include "vsm-device.h"

G_BEGIN_DECLS

#define VSM_DRIVE_HISTORY_MAX_DRIVES 64
#define VSM_DRIVE_HISTORY_MAX_MOUNTS 8
#define VSM_DRIVE_HISTORY_MAX_BYTES (256 * 1024)

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

/* Drops the drive's history (VSM_ERROR_NOT_FOUND when none). */
gboolean vsm_drive_history_forget (const char *identity, GError **error);

G_END_DECLS
