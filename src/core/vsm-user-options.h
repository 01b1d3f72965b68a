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

#include "vsm-policy.h"

G_BEGIN_DECLS

#define VSM_OPTIONS_BY_USER "user"
#define VSM_OPTIONS_BY_ADMIN "admin"

typedef struct
{
  GHashTable *values; /* user key -> GVariant */
  char *source;       /* VSM_OPTIONS_BY_USER or VSM_OPTIONS_BY_ADMIN */
  guint32 uid;        /* who set them last */
  char *mount;        /* the mount they belong to (vsm_user_options_mount_key) */
} VsmUserOptions;

VsmUserOptions *vsm_user_options_new (void);
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

/* The admin's policy with the options on top: each such key's value and
 * its origin (the options' source). A user's ignore-devices adds to the
 * admin's. Checked again at every use: a user's options count for nothing
 * once allow-user-tuning is false, a key locked since is the admin's, and
 * the clamp is the one in force. */
void vsm_user_options_apply (const VsmUserOptions *o, VsmPolicy *policy);

/* vsm_user_options_apply where the options may count: an admin's always,
 * a user's only where the kernel has per-device caps (no user value ever
 * reaches a vm.* knob). o may be NULL. */
void vsm_user_options_apply_for_kernel (const VsmUserOptions *o, VsmPolicy *policy,
                                        gboolean device_cap);

/* "uid=N;/media/u/STICK;..." : options belong to one mount of one user;
 * the mount points sorted (the key is the same in whatever order they
 * come) */
char *vsm_user_options_mount_key (guint32 uid, const char *const *mount_points);

/* the file BDI.options of the state directory */
gboolean vsm_user_options_save (const char *bdi, const VsmUserOptions *o, GError **error);
/* NULL with VSM_ERROR_NOT_MANAGED when there is none */
VsmUserOptions *vsm_user_options_load (const char *bdi, GError **error);
gboolean vsm_user_options_remove (const char *bdi, GError **error);
/* o saved for bdi, or the file removed when o holds nothing */
gboolean vsm_user_options_store (const char *bdi, const VsmUserOptions *o, GError **error);
/* The options a previous run saved for bdi (vfat-smartd restarted), NULL
 * when none; a file that cannot be trusted is removed (a warning). */
VsmUserOptions *vsm_user_options_adopt (const char *bdi);

/* parsing is separate so that tests can feed garbage */
VsmUserOptions *vsm_user_options_from_data (const char *data, gsize len, GError **error);
char *vsm_user_options_to_data (const VsmUserOptions *o, gsize *len);

/* The options' ignore-devices (with the admin's) match the disk at
 * disk_syspath; *which (may be NULL) gets a copy of the pattern. It may
 * read the disk's superblock. FALSE when o has no ignore-devices. */
gboolean vsm_user_options_ignore_drive (const VsmUserOptions *o, const char *disk_syspath,
                                        char **which);

G_END_DECLS
