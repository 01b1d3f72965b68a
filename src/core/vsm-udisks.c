/* vsm-udisks.c - udisks' mount options, layered as udisks layers them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-udisks.h"

#include <libmount.h>

char *
vsm_udisks_configured_defaults (const char *conf_path, const char *fs_type,
                                const char *const *names)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *key = NULL;

  if (conf_path == NULL || fs_type == NULL ||
      !g_key_file_load_from_file (kf, conf_path, G_KEY_FILE_NONE, NULL))
    return NULL;
  key = g_strconcat (fs_type, "_defaults", NULL);
  /* the device's own section first: it overrides [defaults] */
  for (const char *const *n = names; n && *n; n++)
    if (g_key_file_has_key (kf, *n, key, NULL))
      return g_key_file_get_string (kf, *n, key, NULL);
  return g_key_file_get_string (kf, "defaults", key, NULL);
}

char *
vsm_udisks_defaults_for_plan (const VsmPlan *plan, const char *configured)
{
  char *out;

  if (configured == NULL || plan->fs_type == NULL)
    return g_strdup (plan->udisks_defaults);
  out = g_strdup (configured);
  if (plan->flush_mode != VSM_FLUSH_MODE_KERNEL_FLUSH)
    while (mnt_optstr_remove_option (&out, "flush") == 0)
      ;
  else if (g_str_equal (plan->fs_type, "vfat") &&
           mnt_optstr_get_option (out, "flush", NULL, NULL) != 0)
    mnt_optstr_append_option (&out, "flush", NULL);
  if (plan->flush_mode == VSM_FLUSH_MODE_SYNC &&
      mnt_optstr_get_option (out, "sync", NULL, NULL) != 0)
    mnt_optstr_append_option (&out, "sync", NULL);
  if (out == NULL)
    out = g_strdup ("");
  return out;
}

char *
vsm_udisks_layered_defaults (const VsmPlan *plan, const char *conf_path, const char *const *names)
{
  g_autofree char *configured = vsm_udisks_configured_defaults (conf_path, plan->fs_type, names);
  return vsm_udisks_defaults_for_plan (plan, configured);
}
