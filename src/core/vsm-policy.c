/* vsm-policy.c - the GSettings policy, validated
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-policy.h"
#include "vsm-policy-keys.h"
#include "vsm-util.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <glib/gi18n.h>
#include <math.h>

const char *
vsm_flush_mode_to_string (VsmFlushMode mode)
{
  return vsm_enum_to_nick (VSM_TYPE_FLUSH_MODE, mode, "auto");
}

gboolean
vsm_flush_mode_from_string (const char *text, VsmFlushMode *out)
{
  return vsm_enum_from_nick (VSM_TYPE_FLUSH_MODE, text, (int *)out);
}

void
vsm_policy_free (VsmPolicy *p)
{
  if (p == NULL)
    return;
  g_strfreev (p->ignore_devices);
  g_ptr_array_unref (p->problems);
  g_hash_table_unref (p->origins);
  g_hash_table_unref (p->values);
  g_free (p->source);
  g_free (p);
}

G_GNUC_PRINTF (2, 3)
static gboolean
problem (VsmPolicy *p, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_ptr_array_add (p->problems, g_strdup_vprintf (format, args));
  va_end (args);
  return FALSE;
}

static gboolean
set_class_modes (VsmPolicy *p, GVariant *value)
{
  GVariantIter iter;
  const char *cls, *mode;
  gboolean ok = TRUE;

  g_variant_iter_init (&iter, value);
  while (g_variant_iter_next (&iter, "{&s&s}", &cls, &mode))
    {
      VsmClass c;
      VsmFlushMode m;

      if (!vsm_class_from_string (cls, &c) || c == VSM_CLASS_INTERNAL)
        ok = problem (p, _ ("class-flush-modes: '%s' is not a class vfat-smart manages, ignored"),
                      cls);
      else if (!vsm_flush_mode_from_string (mode, &m))
        ok = problem (p, _ ("class-flush-modes: '%s' is not a flush mode, ignored"), mode);
      else
        p->class_mode[c] = m;
    }
  return ok;
}

static gboolean
set_class_bandwidth (VsmPolicy *p, GVariant *value)
{
  GVariantIter iter;
  const char *cls;
  guint64 bw;
  gboolean ok = TRUE;

  g_variant_iter_init (&iter, value);
  while (g_variant_iter_next (&iter, "{&st}", &cls, &bw))
    {
      VsmClass c;

      if (!vsm_class_from_string (cls, &c) || c == VSM_CLASS_INTERNAL)
        ok =
          problem (p, _ ("class-bandwidth: '%s' is not a class vfat-smart manages, ignored"), cls);
      else if (bw < VSM_POLICY_MIN_BANDWIDTH || bw > VSM_POLICY_MAX_BANDWIDTH)
        ok = problem (p, _ ("class-bandwidth: %llu B/s for %s is out of range, ignored"),
                      (unsigned long long)bw, cls);
      else
        p->class_bandwidth[c] = bw;
    }
  return ok;
}

static const VsmPolicyKey *
find_key (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (vsm_policy_keys); i++)
    if (g_str_equal (vsm_policy_keys[i].name, name))
      return &vsm_policy_keys[i];
  return NULL;
}

/* the schema's type and range, for values that did not come through it */
static gboolean
check_schema (VsmPolicy *p, const VsmPolicyKey *k, GVariant *value)
{
  const GVariantType *type = G_VARIANT_TYPE (k->type);
  g_autoptr (GVariant) lo = NULL, hi = NULL;

  if (value == NULL || !g_variant_is_of_type (value, type))
    return problem (p, _ ("%s: expected a value of type %s, ignored"), k->name, k->type);
  if (k->min == NULL)
    return TRUE;
  lo = g_variant_parse (type, k->min, NULL, NULL, NULL);
  hi = g_variant_parse (type, k->max, NULL, NULL, NULL);
  g_assert (lo != NULL && hi != NULL);
  if (g_variant_compare (value, lo) >= 0 && g_variant_compare (value, hi) <= 0 &&
      (!g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE) ||
       isfinite (g_variant_get_double (value))))
    return TRUE;
  {
    g_autofree char *text = g_variant_print (value, FALSE);
    return problem (p, _ ("%s: %s is outside %s..%s, ignored"), k->name, text, k->min, k->max);
  }
}

static gboolean
set_flush_mode (VsmPolicy *p, GVariant *v)
{
  const char *name = g_variant_get_string (v, NULL);

  if (!vsm_flush_mode_from_string (name, &p->flush_mode))
    return problem (p, _ ("flush-mode: '%s' is not a flush mode, using '%s'"), name,
                    vsm_flush_mode_to_string (p->flush_mode));
  return TRUE;
}

static gboolean
set_flush_fix (VsmPolicy *p, GVariant *v)
{
  static const VsmFlushFix fixes[] = { [VSM_FLUSH_FIX_SETTING_AUTO] = VSM_FLUSH_FIX_UNKNOWN,
                                       [VSM_FLUSH_FIX_SETTING_PRESENT] = VSM_FLUSH_FIX_PRESENT,
                                       [VSM_FLUSH_FIX_SETTING_ABSENT] = VSM_FLUSH_FIX_ABSENT };
  const char *name = g_variant_get_string (v, NULL);
  int setting;

  if (!vsm_enum_from_nick (VSM_TYPE_FLUSH_FIX_SETTING, name, &setting))
    return problem (p, _ ("kernel-flush-fix: '%s' is not auto, present or absent, ignored"), name);
  p->kernel_flush_fix = fixes[setting];
  return TRUE;
}

static gboolean
set_ignore_devices (VsmPolicy *p, GVariant *v)
{
  g_strfreev (p->ignore_devices);
  p->ignore_devices = g_variant_dup_strv (v, NULL);
  return TRUE;
}

/* a plain value goes to its field (set NULL); the others are checked */
static const struct
{
  const char *key;
  gboolean (*set) (VsmPolicy *p, GVariant *v);
  gsize offset;
} setters[] = {
  { "enabled", NULL, G_STRUCT_OFFSET (VsmPolicy, enabled) },
  { "flush-mode", set_flush_mode, 0 },
  { "max-dirty-seconds", NULL, G_STRUCT_OFFSET (VsmPolicy, max_dirty_seconds) },
  { "dirty-cap-min-bytes", NULL, G_STRUCT_OFFSET (VsmPolicy, cap_min_bytes) },
  { "dirty-cap-max-bytes", NULL, G_STRUCT_OFFSET (VsmPolicy, cap_max_bytes) },
  { "class-flush-modes", set_class_modes, 0 },
  { "class-bandwidth", set_class_bandwidth, 0 },
  { "kernel-flush-fix", set_flush_fix, 0 },
  { "allow-global-knobs", NULL, G_STRUCT_OFFSET (VsmPolicy, allow_global_knobs) },
  { "ignore-devices", set_ignore_devices, 0 },
  { "allow-user-tuning", NULL, G_STRUCT_OFFSET (VsmPolicy, allow_user_tuning) },
  { "user-max-dirty-seconds", NULL, G_STRUCT_OFFSET (VsmPolicy, user_max_dirty_seconds) },
  { "notify-safe", NULL, G_STRUCT_OFFSET (VsmPolicy, notify_safe) },
};

const char *const vsm_policy_user_keys[] = { "max-dirty-seconds", "flush-mode", "class-flush-modes",
                                             "ignore-devices", NULL };

gboolean
vsm_policy_is_user_key (const char *key)
{
  return g_strv_contains (vsm_policy_user_keys, key);
}

const char *
vsm_policy_get_origin (const VsmPolicy *p, const char *key)
{
  const char *o = g_hash_table_lookup (p->origins, key);
  return o ? o : "built-in";
}

void
vsm_policy_set_origin (VsmPolicy *p, const char *key, const char *origin)
{
  g_hash_table_insert (p->origins, g_strdup (key), g_strdup (origin));
}

gboolean
vsm_policy_is_locked (const VsmPolicy *p, const char *key)
{
  return g_strcmp0 (g_hash_table_lookup (p->origins, key), "locked") == 0;
}

char *
vsm_policy_print_value (const VsmPolicy *p, const char *key)
{
  GVariant *v = g_hash_table_lookup (p->values, key);
  return v ? g_variant_print (v, FALSE) : NULL;
}

const char *
vsm_policy_key_name (gsize i)
{
  return i < G_N_ELEMENTS (vsm_policy_keys) ? vsm_policy_keys[i].name : NULL;
}

gsize
vsm_policy_n_keys (void)
{
  return G_N_ELEMENTS (vsm_policy_keys);
}

static gboolean
set_field (VsmPolicy *p, gsize offset, GVariant *v)
{
  gpointer field = G_STRUCT_MEMBER_P (p, offset);

  if (g_variant_is_of_type (v, G_VARIANT_TYPE_BOOLEAN))
    *(gboolean *)field = g_variant_get_boolean (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_DOUBLE))
    *(double *)field = g_variant_get_double (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT64))
    *(guint64 *)field = g_variant_get_uint64 (v);
  else
    g_assert_not_reached ();
  return TRUE;
}

gboolean
vsm_policy_set (VsmPolicy *p, const char *key, GVariant *value)
{
  const VsmPolicyKey *k = find_key (key);

  g_return_val_if_fail (p != NULL && key != NULL, FALSE);
  if (k == NULL)
    return problem (p, _ ("unknown policy key '%s', ignored"), key);
  if (!check_schema (p, k, value))
    return FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (setters); i++)
    if (g_str_equal (setters[i].key, key))
      {
        gboolean ok =
          setters[i].set ? setters[i].set (p, value) : set_field (p, setters[i].offset, value);
        if (ok)
          g_hash_table_insert (p->values, g_strdup (key), g_variant_ref_sink (value));
        return ok;
      }
  g_assert_not_reached ();
}

VsmPolicy *
vsm_policy_new_default (void)
{
  VsmPolicy *p = g_new0 (VsmPolicy, 1);

  p->problems = g_ptr_array_new_with_free_func (g_free);
  p->origins = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  p->values =
    g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_variant_unref);
  p->ignore_devices = g_new0 (char *, 1);
  for (gsize i = 0; i < G_N_ELEMENTS (vsm_policy_keys); i++)
    {
      const VsmPolicyKey *k = &vsm_policy_keys[i];
      g_autoptr (GVariant) v =
        g_variant_parse (G_VARIANT_TYPE (k->type), k->default_value, NULL, NULL, NULL);
      gboolean ok = vsm_policy_set (p, k->name, v);
      g_assert (ok);
    }
  p->source = g_strdup ("built-in defaults");
  return p;
}

void
vsm_policy_validate (VsmPolicy *p)
{
  if (p->cap_min_bytes > p->cap_max_bytes)
    {
      problem (p, _ ("dirty-cap-min-bytes is larger than dirty-cap-max-bytes; using the smaller "
                     "value for both"));
      p->cap_min_bytes = p->cap_max_bytes;
    }
}

VsmPolicy *
vsm_policy_load_from_settings (GSettings *settings)
{
  VsmPolicy *p = vsm_policy_new_default ();

  for (gsize i = 0; i < G_N_ELEMENTS (vsm_policy_keys); i++)
    {
      const VsmPolicyKey *k = &vsm_policy_keys[i];
      g_autoptr (GVariant) v = g_settings_get_value (settings, k->name);
      g_autoptr (GVariant) builtin =
        g_variant_parse (G_VARIANT_TYPE (k->type), k->default_value, NULL, NULL, NULL);

      vsm_policy_set (p, k->name, v);
      if (!g_settings_is_writable (settings, k->name))
        vsm_policy_set_origin (p, k->name, "locked");
      else if (!g_variant_equal (v, builtin))
        vsm_policy_set_origin (p, k->name, "admin");
    }

  vsm_policy_validate (p);
  g_free (p->source);
  p->source = g_strdup ("gsettings " VSM_SCHEMA_ID);
  return p;
}

VsmPolicy *
vsm_policy_load (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GSettings) settings = NULL;
  VsmPolicy *p;

  const char *dir = g_getenv ("VFAT_SMART_SETTINGS_DIR");
  GSettingsBackend *backend = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, VSM_SCHEMA_ID, TRUE);
  if (schema == NULL)
    {
      p = vsm_policy_new_default ();
      problem (p, _ ("the GSettings schema %s is not installed; using built-in defaults"),
               VSM_SCHEMA_ID);
      return p;
    }

  if (dir != NULL && *dir == '/')
    {
      g_autofree char *file = g_build_filename (dir, "settings", NULL);
      /* registers GLib's own backends' types, the keyfile one among them */
      g_object_unref (g_settings_backend_get_default ());
      backend = g_object_new (g_type_from_name ("GKeyfileSettingsBackend"), "filename", file,
                              "defaults-dir", dir, NULL);
    }
  settings = g_settings_new_full (schema, backend, NULL);
  g_clear_object (&backend);
  p = vsm_policy_load_from_settings (settings);
  if (dir != NULL && *dir == '/')
    {
      g_free (p->source);
      p->source = g_strdup_printf ("keyfile %s", dir);
    }
  return p;
}
