/* vsmd-options.h - SetOptions: a user's or an admin's options for one drive
 *
 * The bus side of vsm-user-options: who may set what (the bouncer's grant
 * decides whether the caller is the drive's user or an admin), the file
 * that keeps them across a restart of the daemon, and the Policy property
 * that says where each value in force came from.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"
#include "vsm-dbus-contract.h"

G_BEGIN_DECLS

/* The options the call leaves (current with the call's on top), or NULL
 * when they are refused: the invocation is answered then. */
VsmUserOptions *vsmd_options_update (const char *bdi, const VsmUserOptions *current,
                                     GDBusMethodInvocation *invocation, guint32 caller_uid,
                                     const char *granted);

/* Who owns the first mount point's root directory: FAT has no owners,
 * its root is the uid= of the mount. For a mount libmount does not list
 * (yet) with uid=; G_MAXUINT32 when none. */
guint32 vsmd_options_mount_point_owner (const char *const *mount_points);

/* The policy for one drive: the options on top (a user's only where the
 * kernel has per-device caps: no user value reaches a vm.* knob), and the
 * vm.* knobs only while the drive is mounted. */
void vsmd_options_policy_for (VsmPolicy *policy, const VsmUserOptions *options, gboolean mounted,
                              gboolean device_cap);
gboolean vsmd_options_kernel_has_device_cap (const char *bdi);

/* the Policy property from the policy in force */
void vsmd_options_publish (VsmDbusDevice *skeleton, const VsmPolicy *policy);

G_END_DECLS
