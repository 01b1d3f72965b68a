/* vsm-kernel.c - what the running kernel can do
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-kernel.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

const char *
vsm_flush_fix_to_string (VsmFlushFix fix)
{
  switch (fix)
    {
    case VSM_FLUSH_FIX_PRESENT:
      return "present";
    case VSM_FLUSH_FIX_ABSENT:
      return "absent";
    case VSM_FLUSH_FIX_UNKNOWN:
    default:
      return "unknown";
    }
}

void
vsm_kernel_free (VsmKernel *k)
{
  if (k == NULL)
    return;
  g_free (k->release);
  g_ptr_array_unref (k->bdi_knobs);
  g_free (k->flush_fix_reason);
  g_free (k->tracefs_path);
  g_free (k);
}

gboolean
vsm_kernel_has_knob (const VsmKernel *k, const char *name)
{
  for (guint i = 0; i < k->bdi_knobs->len; i++)
    if (g_strcmp0 (g_ptr_array_index (k->bdi_knobs, i), name) == 0)
      return TRUE;
  return FALSE;
}

static const char *const known_knobs[] = { "read_ahead_kb",  "min_ratio",      "max_ratio",
                                           "min_ratio_fine", "max_ratio_fine", "min_bytes",
                                           "max_bytes",      "strict_limit",   NULL };

static char *
any_bdi (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/sys/class/bdi", 0, NULL);
  const char *name;

  if (dir == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (strchr (name, ':') != NULL)
      return g_strdup (name);
  return NULL;
}

static void
probe_flush_fix (VsmKernel *k, VsmFlushFix override)
{
  g_autofree char *version = NULL;

  if (override != VSM_FLUSH_FIX_UNKNOWN)
    {
      k->flush_fix = override;
      k->flush_fix_reason = g_strdup (_ ("set by policy (kernel-flush-fix)"));
      return;
    }

  version = vsm_read_attr ("/sys/module/fat/version", NULL);
  if (version != NULL && strstr (version, VSM_FLUSH_FIX_MARKER) != NULL)
    {
      k->flush_fix = VSM_FLUSH_FIX_PRESENT;
      k->flush_fix_reason =
        g_strdup_printf (_ ("the loaded fat module is vfat-smart's patched build (%s)"), version);
      return;
    }

  if (g_file_test ("/sys/module/fat", G_FILE_TEST_IS_DIR))
    {
      /* No mainline or distribution release carries the fix yet. */
      k->flush_fix = VSM_FLUSH_FIX_ABSENT;
      k->flush_fix_reason = g_strdup (
        _ ("the loaded fat module has no fix marker and no released kernel carries the fix"));
      return;
    }

  k->flush_fix = VSM_FLUSH_FIX_UNKNOWN;
  k->flush_fix_reason = g_strdup (_ ("the fat module is not loaded"));
}

VsmKernel *
vsm_kernel_probe (const char *bdi, VsmFlushFix override)
{
  VsmKernel *k = g_new0 (VsmKernel, 1);
  g_autofree char *fallback = NULL;
  struct utsname u;

  if (uname (&u) == 0)
    k->release = g_strdup (u.release);
  k->bdi_knobs = g_ptr_array_new_with_free_func (g_free);

  if (bdi == NULL)
    bdi = fallback = any_bdi ();
  if (bdi != NULL)
    {
      for (const char *const *n = known_knobs; *n != NULL; n++)
        {
          g_autofree char *path = g_strdup_printf ("/sys/class/bdi/%s/%s", bdi, *n);
          if (g_file_test (path, G_FILE_TEST_EXISTS))
            g_ptr_array_add (k->bdi_knobs, g_strdup (*n));
        }
    }
  k->has_strict_limit = vsm_kernel_has_knob (k, "strict_limit");
  k->has_max_bytes = vsm_kernel_has_knob (k, "max_bytes");
  k->has_ratio_fine = vsm_kernel_has_knob (k, "max_ratio_fine");

  probe_flush_fix (k, override);

  for (const char *const *p =
         (const char *const[]){ "/sys/kernel/tracing", "/sys/kernel/debug/tracing", NULL };
       *p != NULL; p++)
    {
      g_autofree char *f = g_build_filename (*p, "instances", NULL);
      if (g_file_test (f, G_FILE_TEST_IS_DIR))
        {
          k->tracefs = TRUE;
          k->tracefs_path = g_strdup (*p);
          break;
        }
    }
  k->debugfs_bdi = g_file_test ("/sys/kernel/debug/bdi", G_FILE_TEST_IS_DIR);

  return k;
}
