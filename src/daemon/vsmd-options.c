/* vsmd-options.c - SetOptions: a user's or an admin's options for one drive
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-options.h"
#include "vsmd-bouncer.h"
#include "vsm-dbus-contract.h"

#include "vsm.h"

#include <sys/stat.h>

VsmUserOptions *
vsmd_options_update (const char *bdi, const VsmUserOptions *current, GDBusMethodInvocation *inv,
                     guint32 uid, const char *granted)
{
  g_autoptr (GVariant) options =
    g_variant_get_child_value (g_dbus_method_invocation_get_parameters (inv), 0);
  g_autoptr (VsmPolicy) admin = vsm_policy_load ();
  g_autoptr (VsmUserOptions) o = vsm_user_options_copy (current);
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  gboolean as_user = g_strcmp0 (granted, VSMD_ACTION_TUNE_OWN) == 0;

  if (!vsm_user_options_update (o, options, admin, as_user, uid, notes, &error))
    {
      gboolean denied = g_error_matches (error, VSM_ERROR, VSM_ERROR_PERMISSION);
      g_message ("%s: SetOptions of uid %u refused: %s", bdi, uid, error->message);
      g_dbus_method_invocation_return_error_literal (
        inv, denied ? VSM_DBUS_ERROR : VSM_ERROR,
        denied ? VSM_DBUS_ERROR_NOT_AUTHORIZED : VSM_ERROR_INVALID_ARGUMENT, error->message);
      return NULL;
    }
  for (guint i = 0; i < notes->len; i++)
    g_message ("%s: uid %u: %s", bdi, uid, (char *)g_ptr_array_index (notes, i));
  g_message ("%s: options of uid %u (%s): %u keys", bdi, uid, o->source,
             g_hash_table_size (o->values));
  return g_steal_pointer (&o);
}

void
vsmd_options_publish (VsmDbusDevice *skeleton, const VsmPolicy *p)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(sss)"));
  for (gsize i = 0; i < vsm_policy_n_keys (); i++)
    {
      const char *key = vsm_policy_key_name (i);
      g_autofree char *value = vsm_policy_print_value (p, key);
      g_variant_builder_add (&b, "(sss)", key, value ? value : "", vsm_policy_get_origin (p, key));
    }
  vsm_dbus_device_set_policy (skeleton, g_variant_builder_end (&b));
}

guint32
vsmd_options_mount_point_owner (const char *const *mount_points)
{
  struct stat st;

  if (mount_points == NULL || mount_points[0] == NULL || stat (mount_points[0], &st) < 0 ||
      !S_ISDIR (st.st_mode))
    return G_MAXUINT32;
  return st.st_uid;
}

void
vsmd_options_policy_for (VsmPolicy *p, const VsmUserOptions *o, gboolean mounted,
                         gboolean device_cap)
{
  vsm_user_options_apply_for_kernel (o, p, device_cap);
  if (!device_cap && !mounted)
    p->allow_global_knobs = FALSE;
}

gboolean
vsmd_options_kernel_has_device_cap (const char *bdi)
{
  g_autoptr (VsmKernel) k = vsm_kernel_probe (bdi, VSM_FLUSH_FIX_UNKNOWN);
  return k->has_strict_limit && k->has_max_bytes;
}
