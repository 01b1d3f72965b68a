/* vsm-udev.c - what the udev helper reads from its event and exports
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-udev.h"

#include "vsm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gboolean
safe_key (const char *key)
{
  if (key == NULL || !g_ascii_isupper (*key))
    return FALSE;
  for (const char *p = key; *p; p++)
    if (!g_ascii_isupper (*p) && !g_ascii_isdigit (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
safe_value (const char *value)
{
  if (value == NULL)
    return FALSE;
  for (const char *p = value; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("=,$_.-", *p) == NULL)
      return FALSE;
  return TRUE;
}

char *
vsm_udev_env_line (const char *key, const char *value)
{
  if (!safe_key (key) || !safe_value (value))
    return NULL;
  return g_strdup_printf ("%s=%s", key, value);
}

static void
add (GPtrArray *out, const char *key, const char *value)
{
  char *line = vsm_udev_env_line (key, value);
  if (line != NULL)
    g_ptr_array_add (out, line);
}

/* the names udisks matches a configuration section against: the node and
 * its links */
static GStrv
device_names (const char *const *envp)
{
  const char *node = envp ? g_environ_getenv ((char **)envp, "DEVNAME") : NULL;
  const char *links = envp ? g_environ_getenv ((char **)envp, "DEVLINKS") : NULL;
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_auto (GStrv) split = links ? g_strsplit (links, " ", -1) : NULL;

  if (node != NULL)
    g_strv_builder_add (b, node);
  for (char **l = split; l && *l; l++)
    if (**l != '\0')
      g_strv_builder_add (b, *l);
  return g_strv_builder_end (b);
}

/* udisks' layers below ours, with the plan's flush mode */
static char *
udisks_defaults (const VsmPlan *p, const char *const *envp, const char *udisks_conf)
{
  g_auto (GStrv) names = device_names (envp);
  char *layered = vsm_udisks_layered_defaults (p, udisks_conf, (const char *const *)names);

  /* an admin's value with characters a udev line cannot carry: the plan's
   * own copy of udisks' built-in set, as before */
  if (!safe_value (layered))
    {
      g_free (layered);
      layered = g_strdup (p->udisks_defaults);
    }
  return layered;
}

GPtrArray *
vsm_udev_properties (const VsmAssessment *a, gboolean applied, gboolean is_fs,
                     const char *const *envp, const char *udisks_conf)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  const VsmPlan *p = a->plan;
  g_autofree char *upper = NULL;
  g_autofree char *kdef = NULL;
  g_autofree char *layered = NULL;

  add (out, "VFAT_SMART_CLASS", vsm_class_to_string (p->klass));
  add (out, "VFAT_SMART_FLUSH_MODE", vsm_flush_mode_to_string (p->flush_mode));
  add (out, "VFAT_SMART_MANAGED", p->managed ? "1" : "0");
  if (p->cap_bytes > 0 && applied)
    {
      g_autofree char *cap = g_strdup_printf ("%" G_GUINT64_FORMAT, p->cap_bytes);
      add (out, "VFAT_SMART_DIRTY_CAP", cap);
    }

  /* only where vfat-smart changes something do udisks' own defaults step
   * aside; a cap that could not be applied never means "no flush" */
  if (!is_fs || p->fs_type == NULL || !p->managed || !applied)
    return out;

  upper = g_ascii_strup (p->fs_type, -1);
  /* only the defaults: an _ALLOW set would replace udisks' own list whole */
  kdef = g_strdup_printf ("UDISKS_MOUNT_OPTIONS_%s_DEFAULTS", upper);
  layered = udisks_defaults (p, envp, udisks_conf);
  add (out, kdef, layered);
  return out;
}
