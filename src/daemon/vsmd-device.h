/* vsmd-device.h - one managed disk on the bus:
 * /org/vfatsmart/VfatSmart1/devices/MAJ_MIN
 *
 * It follows the disk's record (/run/vfat-smart), measures its write
 * bandwidth while it writes (vsm-learn) and moves the cap with it through
 * the one apply transaction, publishes the data at risk, and remembers the
 * drive's mounts (vsm-drive-history).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"
#include "vsmd-bouncer.h"

#include <gio/gio.h>

G_BEGIN_DECLS

#define VSMD_TYPE_DEVICE (vsmd_device_get_type ())
G_DECLARE_FINAL_TYPE (VsmdDevice, vsmd_device, VSMD, DEVICE, GObject)

/* state: the disk's record (copied from) */
VsmdDevice *vsmd_device_new (VsmdBouncer *bouncer, const VsmState *state);

const char *vsmd_device_get_bdi (VsmdDevice *device);
const char *vsmd_device_get_object_path (VsmdDevice *device);
guint64 vsmd_device_get_at_risk_bytes (VsmdDevice *device);
/* data is at risk, or an apply is running */
gboolean vsmd_device_is_busy (VsmdDevice *device);
/* what of it runs in workers: the apply or restore, the history writes
 * ("job-done" when each ended) */
guint vsmd_device_workers (VsmdDevice *device);
/* the daemon stops: no new apply or restore (a call gets Busy), the
 * running one ends */
void vsmd_device_stop (VsmdDevice *device);

gboolean vsmd_device_export (VsmdDevice *device, GDBusConnection *connection, GError **error);
void vsmd_device_unexport (VsmdDevice *device);

/* the record was found pending (an apply that did not finish): undo it and
 * apply this drive's plan in its place, off the main loop */
void vsmd_device_finish_pending (VsmdDevice *device);
/* The record is there and its last change is the daemon's own (a job of
 * this disk runs, or the record is as its last job left it): the
 * directory watch's event for it is no news. A record that went always is. */
gboolean vsmd_device_wrote_record (VsmdDevice *device);
/* the record changed on disk (another front end applied) */
void vsmd_device_update_state (VsmdDevice *device, const VsmState *state);
/* mount points from udisks (NULL: ask libmount) */
void vsmd_device_set_mount_points (VsmdDevice *device, const char *const *mount_points);
const char *vsmd_device_get_disk_syspath (VsmdDevice *device);
/* udev said the disk was removed (its sysfs directory may still be there
 * for a moment) */
void vsmd_device_set_removed (VsmdDevice *device, gboolean removed);
/* the disk went away or its record is gone: off the bus; a mount of a
 * disk that went ends in the history */
void vsmd_device_retire (VsmdDevice *device);

G_END_DECLS
