/* vsm-kernel.c - what the running kernel can do
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-kernel.h"
#include "vsm-knobs.h"
#include "vsm-paths.h"
#include "vsm-probe.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

const char *
vsm_flush_fix_to_string (VsmFlushFix fix)
{
  return vsm_enum_to_nick (VSM_TYPE_FLUSH_FIX, fix, "unknown");
}

void
vsm_kernel_free (VsmKernel *k)
{
  if (k == NULL)
    return;
  g_free (k->release);
  g_ptr_array_unref (k->bdi_knobs);
  g_free (k->flush_fix_reason);
  g_free (k->flush_fix_stale);
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

static const char *const known_knobs[] = { "min_ratio",      "max_ratio", "min_ratio_fine",
                                           "max_ratio_fine", "min_bytes", "max_bytes",
                                           "strict_limit",   NULL };

static char *
any_bdi (void)
{
  g_autofree char *path = vsm_path (VSM_ROOT_SYSFS, "class/bdi", NULL);
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return NULL;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (strchr (name, ':') != NULL)
      return g_strdup (name);
  return NULL;
}

/* the behaviour probe's cached answer for this kernel and fat module (the
 * probe itself runs only on request, never here: vfat-smart probe) */
static gboolean
probed_flush_fix (VsmKernel *k)
{
  g_autofree char *release = NULL, *key = NULL;
  g_autoptr (VsmProbeResult) r = NULL;

  vsm_probe_current_key (&release, &key);
  r = vsm_probe_cache_load (NULL, release, key);
  if (r == NULL || r->fix == VSM_FLUSH_FIX_UNKNOWN)
    return FALSE;
  k->flush_fix = r->fix;
  k->flush_fix_variant = r->variant;
  if (r->fix == VSM_FLUSH_FIX_PRESENT)
    k->flush_fix_reason =
      g_strdup_printf (_ ("probed by behaviour (%s, variant %s)"), r->evidence ? r->evidence : "",
                       vsm_flush_fix_variant_to_string (r->variant));
  else
    k->flush_fix_reason =
      g_strdup_printf (_ ("probed by behaviour (%s)"), r->evidence ? r->evidence : "");
  return TRUE;
}

/* version: the loaded fat module's /sys/module/fat/version, NULL when none */
static void
probe_flush_fix (VsmKernel *k, VsmFlushFix override, const char *version)
{
  g_autofree char *module_path = vsm_path (VSM_ROOT_SYSFS, "module/fat", NULL);

  if (override != VSM_FLUSH_FIX_UNKNOWN)
    {
      k->flush_fix = override;
      k->flush_fix_reason = g_strdup (_ ("set by policy (kernel-flush-fix)"));
      return;
    }

  if (probed_flush_fix (k))
    return;

  if (version != NULL && strstr (version, VSM_FLUSH_FIX_MARKER) != NULL)
    {
      k->flush_fix = VSM_FLUSH_FIX_PRESENT;
      k->flush_fix_reason =
        g_strdup_printf (_ ("the loaded fat module is vfat-smart's patched build (%s)"), version);
      return;
    }

  if (g_file_test (module_path, G_FILE_TEST_IS_DIR))
    {
      /* No mainline or distribution release carries the fix yet. */
      k->flush_fix = VSM_FLUSH_FIX_ABSENT;
      k->flush_fix_reason =
        g_strdup (_ ("the loaded fat module has not been probed (`vfat-smart probe`), has no fix "
                     "marker, and no released kernel carries the fix"));
      return;
    }

  k->flush_fix = VSM_FLUSH_FIX_UNKNOWN;
  k->flush_fix_reason = g_strdup (_ ("the fat module is not loaded"));
}

/* the Debian version after "key" in "text" (its last occurrence), or NULL */
static char *
debian_version_after (const char *text, const char *key)
{
  const char *p = NULL, *q;
  gsize n;

  for (q = text; (q = strstr (q, key)) != NULL; q++)
    p = q;
  if (p == NULL)
    return NULL;
  p += strlen (key);
  n = strspn (p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.+~:-");
  if (n == 0 || !g_ascii_isdigit (p[0]) || (p[n] != '\0' && !g_ascii_isspace (p[n])))
    return NULL;
  return g_strndup (p, n);
}

/* Whether the loaded patched fat module is stale: built from another kernel source than
 * the running kernel's. module_version: /sys/module/fat/version, whose marker
 * "PKGVER-vfat-smart-flushfix-VARIANT/src=SRCVER" (kernel/dkms/Kbuild) names the Debian
 * version of the source it was built from; proc_version: /proc/version, where Debian's
 * kernels end with "Debian VERSION (DATE)", the version of the image package. After an
 * update of the kernel package that keeps the release name, dkms (before 3.1) does not
 * rebuild, and the module built from the old source keeps loading into the new kernel.
 * TRUE only when both versions are known and differ; built_from and running (optional)
 * get what was found (NULL when unknown). */
gboolean
vsm_flush_fix_marker_stale (const char *module_version, const char *proc_version, char **built_from,
                            char **running)
{
  g_autofree char *built = NULL, *run = NULL;
  gboolean stale;

  if (module_version != NULL && strstr (module_version, VSM_FLUSH_FIX_MARKER "-") != NULL)
    built = debian_version_after (strstr (module_version, VSM_FLUSH_FIX_MARKER "-"), "/src=");
  if (proc_version != NULL)
    run = debian_version_after (proc_version, " Debian ");
  stale = built != NULL && run != NULL && strcmp (built, run) != 0;
  if (built_from != NULL)
    *built_from = g_steal_pointer (&built);
  if (running != NULL)
    *running = g_steal_pointer (&run);
  return stale;
}

static char *
stale_module (const char *version)
{
  g_autofree char *proc_path = NULL, *proc = NULL;
  g_autofree char *built = NULL, *running = NULL;

  if (version == NULL || strstr (version, VSM_FLUSH_FIX_MARKER) == NULL)
    return NULL; /* not the patched build: /proc/version is not needed */
  proc_path = vsm_path (VSM_ROOT_PROCFS, "version", NULL);
  proc = vsm_read_attr (proc_path, NULL);
  if (!vsm_flush_fix_marker_stale (version, proc, &built, &running))
    return NULL;
  return g_strdup_printf (_ ("the loaded patched fat module was built from the kernel source "
                             "%s, the running kernel is %s: run dkms autoinstall and reload "
                             "the fat module, or reboot"),
                          built, running);
}

VsmKernel *
vsm_kernel_probe (const char *bdi, VsmFlushFix override)
{
  VsmKernel *k = g_new0 (VsmKernel, 1);
  g_autofree char *fallback = NULL, *version_path = NULL, *version = NULL;
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
          g_autofree char *path = vsm_knob_path (bdi, *n);
          if (g_file_test (path, G_FILE_TEST_EXISTS))
            g_ptr_array_add (k->bdi_knobs, g_strdup (*n));
        }
    }
  k->has_strict_limit = vsm_kernel_has_knob (k, "strict_limit");
  k->has_max_bytes = vsm_kernel_has_knob (k, "max_bytes");

  version_path = vsm_path (VSM_ROOT_SYSFS, "module/fat/version", NULL);
  version = vsm_read_attr (version_path, NULL);
  probe_flush_fix (k, override, version);
  k->flush_fix_stale = stale_module (version);

  {
    g_autofree char *tracing = vsm_path (VSM_ROOT_SYSFS, "kernel/tracing/instances", NULL);
    g_autofree char *old_tracing = vsm_path (VSM_ROOT_DEBUGFS, "tracing/instances", NULL);
    g_autofree char *bdi_stats = vsm_path (VSM_ROOT_DEBUGFS, "bdi", NULL);

    k->tracefs =
      g_file_test (tracing, G_FILE_TEST_IS_DIR) || g_file_test (old_tracing, G_FILE_TEST_IS_DIR);
    k->debugfs_bdi = g_file_test (bdi_stats, G_FILE_TEST_IS_DIR);
  }

  return k;
}
