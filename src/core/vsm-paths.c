/* vsm-paths.c - the one seam for every system path
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-paths.h"

static char *roots[VSM_ROOT_LAST];

static const char *
system_dir (VsmRoot root)
{
  const char *env;

  switch (root)
    {
    case VSM_ROOT_SYSFS:
      return "/sys";
    case VSM_ROOT_PROCFS:
      return "/proc";
    case VSM_ROOT_DEBUGFS:
      return "/sys/kernel/debug";
    case VSM_ROOT_STATE:
      /* the host tests keep their state apart from the system's */
      env = g_getenv ("VFAT_SMART_STATE_DIR");
      return env && *env == '/' ? env : VSM_STATE_DIR;
    case VSM_ROOT_LIB:
      env = g_getenv ("VFAT_SMART_LIB_DIR");
      return env && *env == '/' ? env : VSM_LIB_DIR;
    case VSM_ROOT_LAST:
    default:
      g_assert_not_reached ();
    }
}

const char *
vsm_root_dir (VsmRoot root)
{
  g_return_val_if_fail (root < VSM_ROOT_LAST, NULL);
  return roots[root] ? roots[root] : system_dir (root);
}

char *
vsm_path (VsmRoot root, const char *first_element, ...)
{
  va_list args;
  GString *path;

  g_return_val_if_fail (root < VSM_ROOT_LAST, NULL);
  g_return_val_if_fail (first_element != NULL, NULL);

  path = g_string_new (vsm_root_dir (root));
  va_start (args, first_element);
  for (const char *e = first_element; e != NULL; e = va_arg (args, const char *))
    {
      if (path->len == 0 || path->str[path->len - 1] != '/')
        g_string_append_c (path, '/');
      g_string_append (path, e);
    }
  va_end (args);
  return g_string_free (path, FALSE);
}

void
vsm_paths_set_root (VsmRoot root, const char *dir)
{
  g_return_if_fail (root < VSM_ROOT_LAST);
  g_free (roots[root]);
  roots[root] = g_strdup (dir);
}

gboolean
vsm_paths_are_system (void)
{
  /* the environment is the caller's: only a test build believes it */
#ifdef VSM_UMOCKDEV_TESTBED
  if (g_getenv ("UMOCKDEV_DIR") != NULL)
    return FALSE;
#endif
  return roots[VSM_ROOT_SYSFS] == NULL && roots[VSM_ROOT_PROCFS] == NULL;
}
