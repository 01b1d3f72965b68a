/* fuzz-policy.c - vsm_policy_set (): hostile GSettings values (dconf can
 * hold anything an administrator, or a broken tool, wrote)
 *
 * The input is GVariant text. It is parsed twice, untyped and as the type
 * the key has in the schema, and each value is set on every key of the
 * schema (and one that is not in it) of a default policy.
 *
 * Promises checked: TRUE exactly when no problem was recorded; whatever
 * the value, every field stays within what the schema documents
 * (max-dirty-seconds 0.25..60, caps 1 MiB..4/16 GiB, flush modes and
 * classes in their enums, "internal" never gets a mode or bandwidth,
 * bandwidths 0 or within limits); every problem is valid UTF-8; after
 * vsm_policy_validate () min <= max.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-policy.h"

#include <math.h>

static const struct
{
  const char *key, *type;
} keys[] = {
  { "enabled", "b" },
  { "flush-mode", "s" },
  { "max-dirty-seconds", "d" },
  { "dirty-cap-min-bytes", "t" },
  { "dirty-cap-max-bytes", "t" },
  { "class-flush-modes", "a{ss}" },
  { "class-bandwidth", "a{st}" },
  { "kernel-flush-fix", "s" },
  { "allow-global-knobs", "b" },
  { "ignore-devices", "as" },
  { "no-such-key", "s" },
};

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

static void
check_policy (const VsmPolicy *p)
{
  fuzz_assert (p->flush_mode < VSM_FLUSH_MODE_LAST);
  fuzz_assert (isfinite (p->max_dirty_seconds) && p->max_dirty_seconds >= 0.25 &&
               p->max_dirty_seconds <= 60);
  fuzz_assert (p->cap_min_bytes >= 1024 * 1024 && p->cap_min_bytes <= (G_GUINT64_CONSTANT (4) << 30));
  fuzz_assert (p->cap_max_bytes >= 1024 * 1024 && p->cap_max_bytes <= (G_GUINT64_CONSTANT (16) << 30));
  for (guint c = 0; c < VSM_CLASS_LAST; c++)
    {
      fuzz_assert (p->class_mode[c] < VSM_FLUSH_MODE_LAST);
      fuzz_assert (p->class_bandwidth[c] == 0 ||
                   (p->class_bandwidth[c] >= VSM_POLICY_MIN_BANDWIDTH &&
                    p->class_bandwidth[c] <= VSM_POLICY_MAX_BANDWIDTH));
    }
  fuzz_assert (p->class_mode[VSM_CLASS_INTERNAL] == VSM_FLUSH_MODE_AUTO);
  fuzz_assert (p->class_bandwidth[VSM_CLASS_INTERNAL] == 0);
  fuzz_assert (p->kernel_flush_fix <= VSM_FLUSH_FIX_ABSENT);
  fuzz_assert (p->ignore_devices != NULL);
  for (guint i = 0; i < p->problems->len; i++)
    fuzz_assert (g_utf8_validate (g_ptr_array_index (p->problems, i), -1, NULL));
}

static void
try_value (GVariant *value)
{
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
      gboolean ok = vsm_policy_set (p, keys[k].key, value);

      fuzz_assert (ok == (p->problems->len == 0));
      check_policy (p);
      vsm_policy_validate (p);
      fuzz_assert (p->cap_min_bytes <= p->cap_max_bytes);
      check_policy (p);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;

  if (size > 4096) /* g_variant_parse () is slow on deep nesting */
    return 0;
  text = fuzz_strdup (data, size);
  /* GSettings hands out only valid GVariants; g_variant_parse () itself
   * criticals on invalid UTF-8 text (GLib 2.74), which is not ours to find */
  if (!g_utf8_validate (text, -1, NULL))
    return 0;
  {
    g_autoptr (GVariant) v = g_variant_parse (NULL, text, NULL, NULL, NULL);
    if (v != NULL)
      try_value (v);
  }
  for (gsize k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      g_autoptr (GVariant) v =
        g_variant_parse (G_VARIANT_TYPE (keys[k].type), text, NULL, NULL, NULL);
      if (v != NULL)
        try_value (v);
    }
  return 0;
}
