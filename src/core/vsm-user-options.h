/* vsm-user-options.h - per-drive options over the admin's policy
 *
 * A user's own settings (sent by `vfat-smart agent` through vfat-smartd's
 * SetOptions) or an admin's SetOptions, for one drive and one mount: only
 * the user keys of the policy (vsm_policy_user_keys), validated by the
 * policy's own table, refused when the admin forbids user tuning or locked
 * the key, clamped within the admin's bounds. They live in the state
 * directory (BDI.options, written atomically) for as long as the mount
 * they were set for lasts, so that a restart of the daemon keeps them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-policy.h"

G_BEGIN_DECLS

#define VSM_OPTIONS_BY_USER "user"
#define VSM_OPTIONS_BY_ADMIN "admin"

VsmUserOptions *vsm_user_options_new (void);

/* The admin's policy with the options on top: each such key's value and
 * its origin (the options' source). A user's ignore-devices adds to the
 * admin's. Checked again at every use: a user's options count for nothing
 * once allow-user-tuning is false, a key locked since is the admin's, and
 * the clamp is the one in force. */
void vsm_user_options_apply (const VsmUserOptions *o, VsmPolicy *policy);

/* the file BDI.options of the state directory */
gboolean vsm_user_options_save (const char *bdi, const VsmUserOptions *o, GError **error);
/* NULL with VSM_ERROR_NOT_MANAGED when there is none */
VsmUserOptions *vsm_user_options_load (const char *bdi, GError **error);

/* parsing is separate so that tests can feed garbage */
VsmUserOptions *vsm_user_options_from_data (const char *data, gsize len, GError **error);
char *vsm_user_options_to_data (const VsmUserOptions *o, gsize *len);

/* o saved for bdi, or the file removed when o holds nothing */
gboolean vsm_user_options_store (const char *bdi, const VsmUserOptions *o, GError **error);

/* The options' ignore-devices (with the admin's) match the disk at
 * disk_syspath; *which (may be NULL) gets a copy of the pattern. It may
 * read the disk's superblock. FALSE when o has no ignore-devices. */
gboolean vsm_user_options_ignore_drive (const VsmUserOptions *o, const char *disk_syspath,
                                        char **which);

G_END_DECLS
