/* vsm-policy.c - the GSettings policy, validated
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-policy.h"
#include "vsm-util.h"

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
  g_free (p->source);
  g_free (p);
}

VsmPolicy *
vsm_policy_new_default (void)
{
  VsmPolicy *p = g_new0 (VsmPolicy, 1);

  p->enabled = TRUE;
  p->flush_mode = VSM_FLUSH_MODE_AUTO;
  p->max_dirty_seconds = 2.0;
  p->cap_min_bytes = 8 * 1024 * 1024;
  p->cap_max_bytes = 256 * 1024 * 1024;
  p->kernel_flush_fix = VSM_FLUSH_FIX_UNKNOWN;
  p->allow_global_knobs = FALSE;
  p->ignore_devices = g_new0 (char *, 1);
  p->problems = g_ptr_array_new_with_free_func (g_free);
  p->source = g_strdup ("built-in defaults");
  return p;
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
type_is (VsmPolicy *p, const char *key, GVariant *value, const char *type)
{
  if (value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE (type)))
    return TRUE;
  return problem (p, _ ("%s: expected a value of type %s, ignored"), key, type);
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
        ok = problem (
          p, _ ("class-bandwidth: %" G_GUINT64_FORMAT " B/s for %s is out of range, ignored"), bw,
          cls);
      else
        p->class_bandwidth[c] = bw;
    }
  return ok;
}

gboolean
vsm_policy_set (VsmPolicy *p, const char *key, GVariant *value)
{
  if (g_str_equal (key, "enabled"))
    {
      if (!type_is (p, key, value, "b"))
        return FALSE;
      p->enabled = g_variant_get_boolean (value);
    }
  else if (g_str_equal (key, "flush-mode"))
    {
      VsmFlushMode m;
      if (!type_is (p, key, value, "s"))
        return FALSE;
      if (!vsm_flush_mode_from_string (g_variant_get_string (value, NULL), &m))
        return problem (p, _ ("flush-mode: '%s' is not a flush mode, using '%s'"),
                        g_variant_get_string (value, NULL),
                        vsm_flush_mode_to_string (p->flush_mode));
      p->flush_mode = m;
    }
  else if (g_str_equal (key, "max-dirty-seconds"))
    {
      double s;
      if (!type_is (p, key, value, "d"))
        return FALSE;
      s = g_variant_get_double (value);
      if (!isfinite (s) || s < 0.25 || s > 60)
        return problem (p, _ ("max-dirty-seconds: %g is outside 0.25..60, using %g"), s,
                        p->max_dirty_seconds);
      p->max_dirty_seconds = s;
    }
  else if (g_str_equal (key, "dirty-cap-min-bytes") || g_str_equal (key, "dirty-cap-max-bytes"))
    {
      gboolean is_min = g_str_equal (key, "dirty-cap-min-bytes");
      guint64 v, lo = 1024 * 1024,
                 hi = is_min ? G_GUINT64_CONSTANT (4) << 30 : G_GUINT64_CONSTANT (16) << 30;
      if (!type_is (p, key, value, "t"))
        return FALSE;
      v = g_variant_get_uint64 (value);
      if (v < lo || v > hi)
        return problem (p, _ ("%s: %" G_GUINT64_FORMAT " is out of range, ignored"), key, v);
      if (is_min)
        p->cap_min_bytes = v;
      else
        p->cap_max_bytes = v;
    }
  else if (g_str_equal (key, "class-flush-modes"))
    {
      if (!type_is (p, key, value, "a{ss}"))
        return FALSE;
      return set_class_modes (p, value);
    }
  else if (g_str_equal (key, "class-bandwidth"))
    {
      if (!type_is (p, key, value, "a{st}"))
        return FALSE;
      return set_class_bandwidth (p, value);
    }
  else if (g_str_equal (key, "kernel-flush-fix"))
    {
      const char *v;
      if (!type_is (p, key, value, "s"))
        return FALSE;
      v = g_variant_get_string (value, NULL);
      if (g_str_equal (v, "auto"))
        p->kernel_flush_fix = VSM_FLUSH_FIX_UNKNOWN;
      else if (g_str_equal (v, "present"))
        p->kernel_flush_fix = VSM_FLUSH_FIX_PRESENT;
      else if (g_str_equal (v, "absent"))
        p->kernel_flush_fix = VSM_FLUSH_FIX_ABSENT;
      else
        return problem (p, _ ("kernel-flush-fix: '%s' is not auto, present or absent, ignored"), v);
    }
  else if (g_str_equal (key, "allow-global-knobs"))
    {
      if (!type_is (p, key, value, "b"))
        return FALSE;
      p->allow_global_knobs = g_variant_get_boolean (value);
    }
  else if (g_str_equal (key, "ignore-devices"))
    {
      if (!type_is (p, key, value, "as"))
        return FALSE;
      g_strfreev (p->ignore_devices);
      p->ignore_devices = g_variant_dup_strv (value, NULL);
    }
  else
    {
      return problem (p, _ ("unknown policy key '%s', ignored"), key);
    }
  return TRUE;
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

static const char *const policy_keys[] = { "enabled",
                                           "flush-mode",
                                           "max-dirty-seconds",
                                           "dirty-cap-min-bytes",
                                           "dirty-cap-max-bytes",
                                           "class-flush-modes",
                                           "class-bandwidth",
                                           "kernel-flush-fix",
                                           "allow-global-knobs",
                                           "ignore-devices",
                                           NULL };

VsmPolicy *
vsm_policy_load_from_settings (GSettings *settings)
{
  VsmPolicy *p = vsm_policy_new_default ();

  for (const char *const *k = policy_keys; *k != NULL; k++)
    {
      g_autoptr (GVariant) v = g_settings_get_value (settings, *k);
      vsm_policy_set (p, *k, v);
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

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, VSM_SCHEMA_ID, TRUE);
  if (schema == NULL)
    {
      p = vsm_policy_new_default ();
      problem (p, _ ("the GSettings schema %s is not installed; using built-in defaults"),
               VSM_SCHEMA_ID);
      return p;
    }

  settings = g_settings_new_full (schema, NULL, NULL);
  return vsm_policy_load_from_settings (settings);
}
