/* vsm-user-options.c - per-drive options over the admin's policy
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-user-options.h"
#include "vsm-plan.h"
#include "vsm-rundir.h"
#include "vsm-knobs.h"
#include "vsm-paths.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#define GROUP "options"

VsmUserOptions *
vsm_user_options_new (void)
{
  VsmUserOptions *o = g_new0 (VsmUserOptions, 1);

  o->values =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_variant_unref);
  o->source = g_strdup (VSM_OPTIONS_BY_ADMIN);
  o->uid = G_MAXUINT32;
  return o;
}

void
vsm_user_options_free (VsmUserOptions *o)
{
  if (o == NULL)
    return;
  g_hash_table_unref (o->values);
  g_free (o->source);
  g_free (o->mount);
  g_free (o);
}

VsmUserOptions *
vsm_user_options_copy (const VsmUserOptions *o)
{
  VsmUserOptions *c = vsm_user_options_new ();
  GHashTableIter it;
  gpointer k, v;

  if (o == NULL)
    return c;
  g_hash_table_iter_init (&it, o->values);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_hash_table_insert (c->values, g_strdup (k), g_variant_ref (v));
  g_free (c->source);
  c->source = g_strdup (o->source);
  c->uid = o->uid;
  c->mount = g_strdup (o->mount);
  return c;
}

gboolean
vsm_user_options_is_empty (const VsmUserOptions *o)
{
  return o == NULL || g_hash_table_size (o->values) == 0;
}

/* one key, checked by the policy's table on a scratch policy */
static gboolean
check_value (const char *key, GVariant *value, GError **error)
{
  g_autoptr (VsmPolicy) scratch = vsm_policy_new_default ();
  guint before = scratch->problems->len;

  if (!vsm_policy_is_user_key (key))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   _ ("unknown option '%s' (max-dirty-seconds, flush-mode, class-flush-modes, "
                      "ignore-devices, reset)"),
                   key);
      return FALSE;
    }
  /* class-flush-modes keeps its good entries and reports the bad ones:
   * here any bad entry refuses the whole call */
  if (!vsm_policy_set (scratch, key, value) || scratch->problems->len > before)
    {
      g_set_error_literal (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                           g_ptr_array_index (scratch->problems, scratch->problems->len - 1));
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_user_may (const VsmPolicy *admin, const char *key, GError **error)
{
  if (!admin->allow_user_tuning)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_PERMISSION,
                   _ ("the administrator does not allow users to tune drives "
                      "(allow-user-tuning is false)"));
      return FALSE;
    }
  if (vsm_policy_is_locked (admin, key))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_PERMISSION, _ ("%s is locked by the administrator"),
                   key);
      return FALSE;
    }
  return TRUE;
}

/* a user's max-dirty-seconds within the admin's user-max-dirty-seconds */
static GVariant *
clamp_value (const VsmPolicy *admin, const char *key, GVariant *value, GPtrArray *notes)
{
  if (g_str_equal (key, "max-dirty-seconds") &&
      g_variant_get_double (value) > admin->user_max_dirty_seconds)
    {
      if (notes)
        g_ptr_array_add (notes, g_strdup_printf (_ ("max-dirty-seconds %.2f lowered to %.2f "
                                                    "(user-max-dirty-seconds)"),
                                                 g_variant_get_double (value),
                                                 admin->user_max_dirty_seconds));
      return g_variant_ref_sink (g_variant_new_double (admin->user_max_dirty_seconds));
    }
  return g_variant_ref (value);
}

gboolean
vsm_user_options_update (VsmUserOptions *o, GVariant *options, const VsmPolicy *admin,
                         gboolean as_user, guint32 uid, GPtrArray *notes, GError **error)
{
  g_autoptr (GHashTable) next =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_variant_unref);
  gboolean reset = FALSE;
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_return_val_if_fail (g_variant_is_of_type (options, G_VARIANT_TYPE_VARDICT), FALSE);
  g_variant_lookup (options, "reset", "b", &reset);
  if (!reset)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, o->values);
      while (g_hash_table_iter_next (&it, &k, &v))
        g_hash_table_insert (next, g_strdup (k), g_variant_ref (v));
    }
  g_variant_iter_init (&iter, options);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      if (g_str_equal (key, "reset") && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
        continue;
      if (!check_value (key, value, error) || (as_user && !check_user_may (admin, key, error)))
        {
          g_variant_unref (value); /* leaving g_variant_iter_loop early: ours */
          return FALSE;
        }
      g_hash_table_insert (next, g_strdup (key),
                           as_user ? clamp_value (admin, key, value, notes)
                                   : g_variant_ref (value));
    }
  g_hash_table_unref (o->values);
  o->values = g_steal_pointer (&next);
  g_free (o->source);
  o->source = g_strdup (as_user ? VSM_OPTIONS_BY_USER : VSM_OPTIONS_BY_ADMIN);
  o->uid = uid;
  return TRUE;
}

/* the admin's list and the user's, without repeats */
static GVariant *
merged_ignore (const VsmPolicy *policy, GVariant *user)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_autofree const char **mine = g_variant_get_strv (user, NULL);
  g_auto (GStrv) all = NULL;

  g_strv_builder_addv (b, (const char **)policy->ignore_devices);
  for (const char **e = mine; *e; e++)
    if (!g_strv_contains ((const char *const *)policy->ignore_devices, *e))
      g_strv_builder_add (b, *e);
  all = g_strv_builder_end (b);
  return g_variant_new_strv ((const char *const *)all, -1);
}

void
vsm_user_options_apply (const VsmUserOptions *o, VsmPolicy *policy)
{
  gboolean by_user = g_strcmp0 (o->source, VSM_OPTIONS_BY_USER) == 0;
  GHashTableIter it;
  gpointer k, v;

  if (vsm_user_options_is_empty (o) || (by_user && !policy->allow_user_tuning))
    return;
  g_hash_table_iter_init (&it, o->values);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      g_autoptr (GVariant) value = NULL;

      if (by_user && vsm_policy_is_locked (policy, k))
        continue;
      value = by_user ? clamp_value (policy, k, v, NULL) : g_variant_ref (v);
      if (g_str_equal (k, "ignore-devices"))
        {
          g_variant_unref (value);
          value = g_variant_ref_sink (merged_ignore (policy, v));
        }
      if (vsm_policy_set (policy, k, value))
        vsm_policy_set_origin (policy, k, o->source);
    }
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *)a, *(const char *const *)b);
}

char *
vsm_user_options_mount_key (guint32 uid, const char *const *mount_points)
{
  GString *s = g_string_new (NULL);
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();

  /* sorted: udisks lists a drive's mount points in no fixed order */
  for (const char *const *m = mount_points; m && *m; m++)
    g_ptr_array_add (sorted, (gpointer)*m);
  g_ptr_array_sort (sorted, by_name);
  g_string_printf (s, "uid=%u", uid);
  for (guint i = 0; i < sorted->len; i++)
    g_string_append_printf (s, ";%s", (const char *)g_ptr_array_index (sorted, i));
  return g_string_free (s, FALSE);
}

/* ---- the file ---- */

void
vsm_user_options_apply_for_kernel (const VsmUserOptions *o, VsmPolicy *policy, gboolean device_cap)
{
  if (o != NULL && (device_cap || g_strcmp0 (o->source, VSM_OPTIONS_BY_USER) != 0))
    vsm_user_options_apply (o, policy);
}

static char *
file_name (const char *bdi)
{
  return vsm_rundir_name (VSM_RUN_FILE_OPTIONS, bdi);
}

static gint
compare_keys (gconstpointer a, gconstpointer b, gpointer unused)
{
  return g_strcmp0 (*(const char *const *)a, *(const char *const *)b);
}

char *
vsm_user_options_to_data (const VsmUserOptions *o, gsize *len)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();

  g_key_file_set_string (kf, GROUP, "source", o->source);
  g_key_file_set_uint64 (kf, GROUP, "uid", o->uid);
  g_key_file_set_string (kf, GROUP, "mount", o->mount ? o->mount : "");
  g_autofree gpointer *keys = NULL;
  guint n = 0;

  /* in the same order every time: a record written twice reads the same */
  keys = g_hash_table_get_keys_as_array (o->values, &n);
  g_qsort_with_data (keys, n, sizeof (gpointer), compare_keys, NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_variant_print (g_hash_table_lookup (o->values, keys[i]), TRUE);
      g_key_file_set_string (kf, "values", keys[i], text);
    }
  return g_key_file_to_data (kf, len, NULL);
}

static gboolean
bad_file (GError **error, const char *why)
{
  g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("options file: %s"), why);
  return FALSE;
}

/* every value is checked again, as if it came over the bus */
static gboolean
load_values (GKeyFile *kf, VsmUserOptions *o, GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, "values", NULL, NULL);

  for (char **k = keys; k && *k; k++)
    {
      g_autofree char *text = g_key_file_get_string (kf, "values", *k, NULL);
      g_autoptr (GVariant) v = text ? g_variant_parse (NULL, text, NULL, NULL, NULL) : NULL;

      if (v == NULL || !check_value (*k, v, NULL))
        return bad_file (error, *k);
      g_hash_table_insert (o->values, g_strdup (*k), g_steal_pointer (&v));
    }
  return TRUE;
}

VsmUserOptions *
vsm_user_options_from_data (const char *data, gsize len, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (VsmUserOptions) o = vsm_user_options_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *source = NULL;
  guint64 uid;

  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &local))
    return bad_file (error, local->message), NULL;
  source = g_key_file_get_string (kf, GROUP, "source", NULL);
  uid = g_key_file_get_uint64 (kf, GROUP, "uid", &local);
  if (local != NULL || uid > G_MAXUINT32)
    return bad_file (error, "uid"), NULL;
  if (g_strcmp0 (source, VSM_OPTIONS_BY_USER) != 0 && g_strcmp0 (source, VSM_OPTIONS_BY_ADMIN))
    return bad_file (error, "source"), NULL;
  g_free (o->source);
  o->source = g_steal_pointer (&source);
  o->uid = (guint32)uid;
  o->mount = g_key_file_get_string (kf, GROUP, "mount", NULL);
  if (o->mount == NULL)
    return bad_file (error, "mount"), NULL;
  if (!load_values (kf, o, error))
    return NULL;
  return g_steal_pointer (&o);
}

gboolean
vsm_user_options_save (const char *bdi, const VsmUserOptions *o, GError **error)
{
  g_autofree char *name = NULL, *data = NULL;
  gsize len = 0;

  if (!vsm_bdi_is_valid (bdi))
    return bad_file (error, "bad bdi");
  if (vsm_user_options_is_empty (o))
    return vsm_user_options_remove (bdi, error);
  name = file_name (bdi);
  data = vsm_user_options_to_data (o, &len);
  return vsm_state_write_file (name, data, len, error);
}

VsmUserOptions *
vsm_user_options_load (const char *bdi, GError **error)
{
  g_autofree char *name = NULL, *path = NULL, *data = NULL;
  gsize len = 0;

  if (!vsm_bdi_is_valid (bdi))
    return bad_file (error, "bad bdi"), NULL;
  name = file_name (bdi);
  path = g_build_filename (vsm_rundir (), name, NULL);
  if (!vsm_state_read_file (path, &data, &len, error))
    return NULL;
  return vsm_user_options_from_data (data, len, error);
}

gboolean
vsm_user_options_remove (const char *bdi, GError **error)
{
  g_autofree char *name = NULL, *path = NULL;

  if (!vsm_bdi_is_valid (bdi))
    return bad_file (error, "bad bdi");
  name = file_name (bdi);
  path = g_build_filename (vsm_rundir (), name, NULL);
  if (g_unlink (path) < 0 && errno != ENOENT)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot remove %s: %s"), path,
                   g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

gboolean
vsm_user_options_store (const char *bdi, const VsmUserOptions *o, GError **error)
{
  return vsm_user_options_is_empty (o) ? vsm_user_options_remove (bdi, error)
                                       : vsm_user_options_save (bdi, o, error);
}

VsmUserOptions *
vsm_user_options_adopt (const char *bdi)
{
  g_autoptr (GError) error = NULL;
  VsmUserOptions *o = vsm_user_options_load (bdi, &error);

  if (o == NULL && !g_error_matches (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
    {
      g_warning ("%s: options of a previous run not trusted, dropped: %s", bdi, error->message);
      vsm_user_options_remove (bdi, NULL);
    }
  return o;
}

gboolean
vsm_user_options_ignore_drive (const VsmUserOptions *o, const char *disk_syspath, char **which)
{
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (VsmDevice) dev = NULL;
  g_autoptr (VsmPolicy) p = NULL;
  const char *pattern = NULL;

  if (o == NULL || !g_hash_table_contains (o->values, "ignore-devices"))
    return FALSE;
  p = vsm_policy_load ();
  vsm_user_options_apply (o, p);
  client = g_udev_client_new (NULL);
  dev = vsm_device_new_from_spec (client, disk_syspath, NULL);
  if (dev == NULL || !vsm_plan_device_ignored (dev, p, &pattern))
    return FALSE;
  if (which != NULL)
    *which = g_strdup (pattern);
  return TRUE;
}
