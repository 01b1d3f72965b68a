/* vsm-rundir.c - /run/vfat-smart: its layout, in one place
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-rundir.h"
#include "vsm-paths.h"

#include <string.h>

#define RECORD_SUFFIX ".state"
#define OPTIONS_SUFFIX ".options"
#define GLOBAL_NAME "global.state"
#define UNMOUNTS_NAME "unmounts.log"
#define UDEV_ANSWERED_NAME VSM_UDEV_ANSWERED_DIR
#define PROBE_CACHE_NAME "flush-fix-probe.ini"
#define LOCK_NAME ".lock"

const char *
vsm_rundir (void)
{
  return vsm_root_dir (VSM_ROOT_STATE);
}

static char *
per_disk (const char *bdi, const char *suffix)
{
  g_autofree char *base = NULL;

  if (bdi == NULL)
    return NULL;
  base = g_strdelimit (g_strdup (bdi), ":", '-');
  return g_strconcat (base, suffix, NULL);
}

char *
vsm_rundir_name (VsmRunFile kind, const char *bdi)
{
  switch (kind)
    {
    case VSM_RUN_FILE_RECORD:
      return per_disk (bdi, RECORD_SUFFIX);
    case VSM_RUN_FILE_OPTIONS:
      return per_disk (bdi, OPTIONS_SUFFIX);
    case VSM_RUN_FILE_GLOBAL:
      return g_strdup (GLOBAL_NAME);
    case VSM_RUN_FILE_UNMOUNTS:
      return g_strdup (UNMOUNTS_NAME);
    case VSM_RUN_FILE_UDEV_ANSWERED:
      return g_strdup (UDEV_ANSWERED_NAME);
    case VSM_RUN_FILE_PROBE_CACHE:
      return g_strdup (PROBE_CACHE_NAME);
    case VSM_RUN_FILE_LOCK:
      return g_strdup (LOCK_NAME);
    case VSM_RUN_FILE_OTHER:
    case VSM_RUN_FILE_TEMPORARY:
    default:
      return NULL;
    }
}

char *
vsm_rundir_path (VsmRunFile kind, const char *bdi)
{
  g_autofree char *name = vsm_rundir_name (kind, bdi);
  return name ? vsm_path (VSM_ROOT_STATE, name, NULL) : NULL;
}

/* "MAJ-MIN" + suffix: *bdi gets "MAJ:MIN" */
static gboolean
is_per_disk (const char *name, const char *suffix, char **bdi)
{
  gsize n = strlen (name), s = strlen (suffix);
  const char *dash;

  if (n <= s || !g_str_has_suffix (name, suffix))
    return FALSE;
  dash = memchr (name, '-', n - s);
  if (dash == NULL || dash == name || dash == name + n - s - 1)
    return FALSE;
  for (const char *p = name; p < name + n - s; p++)
    if (p != dash && !g_ascii_isdigit (*p))
      return FALSE;
  if (bdi != NULL)
    *bdi = g_strdelimit (g_strndup (name, n - s), "-", ':');
  return TRUE;
}

/* NAME.XXXXXX of an atomic write over a file of ours */
static gboolean
is_temporary (const char *name)
{
  const char *dot = strrchr (name, '.');
  g_autofree char *base = NULL;

  if (dot == NULL || strlen (dot + 1) != 6)
    return FALSE;
  for (const char *p = dot + 1; *p; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  base = g_strndup (name, (gsize)(dot - name));
  /* records (global.state among them), options, the unmount log */
  return g_str_has_suffix (base, RECORD_SUFFIX) || g_str_has_suffix (base, OPTIONS_SUFFIX) ||
         g_str_equal (base, UNMOUNTS_NAME);
}

VsmRunFile
vsm_rundir_kind_of (const char *name, char **bdi)
{
  if (bdi != NULL)
    *bdi = NULL;
  if (name == NULL || strchr (name, '/') != NULL)
    return VSM_RUN_FILE_OTHER;
  if (g_str_equal (name, GLOBAL_NAME))
    return VSM_RUN_FILE_GLOBAL;
  if (g_str_equal (name, UNMOUNTS_NAME))
    return VSM_RUN_FILE_UNMOUNTS;
  if (g_str_equal (name, UDEV_ANSWERED_NAME))
    return VSM_RUN_FILE_UDEV_ANSWERED;
  if (g_str_equal (name, PROBE_CACHE_NAME))
    return VSM_RUN_FILE_PROBE_CACHE;
  if (g_str_equal (name, LOCK_NAME))
    return VSM_RUN_FILE_LOCK;
  if (is_per_disk (name, RECORD_SUFFIX, bdi))
    return VSM_RUN_FILE_RECORD;
  if (is_per_disk (name, OPTIONS_SUFFIX, bdi))
    return VSM_RUN_FILE_OPTIONS;
  if (is_temporary (name))
    return VSM_RUN_FILE_TEMPORARY;
  return VSM_RUN_FILE_OTHER;
}
