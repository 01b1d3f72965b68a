/* vsm-paths.h - the one seam for every system path vfat-smart reads or writes
 *
 * Every /sys, /proc, debugfs and state-directory path of the core is built
 * here, so that a test can point all of them at a tree of its own (in the
 * manner of power-profiles-daemon's ppd_utils_get_sysfs_path ()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  VSM_ROOT_SYSFS,   /* /sys */
  VSM_ROOT_PROCFS,  /* /proc */
  VSM_ROOT_DEBUGFS, /* /sys/kernel/debug */
  VSM_ROOT_STATE,   /* /run/vfat-smart, or $VFAT_SMART_STATE_DIR */
  VSM_ROOT_LIB,     /* /var/lib/vfat-smart (kept across boots), or $VFAT_SMART_LIB_DIR */
  VSM_ROOT_LAST,    /*< skip >*/
} VsmRoot;

/* The directory of a root: the system's, or what a test set. */
const char *vsm_root_dir (VsmRoot root);

/* vsm_path (VSM_ROOT_SYSFS, "class/bdi", "8:16", "max_bytes", NULL) ->
 * "/sys/class/bdi/8:16/max_bytes". Elements must not be NULL. */
char *vsm_path (VsmRoot root, const char *first_element, ...) G_GNUC_NULL_TERMINATED;

/* Tests: put a root somewhere else (NULL: back to the system's). */
void vsm_paths_set_root (VsmRoot root, const char *dir);

/* TRUE when the kernel's own /sys and /proc are in use (no test tree, and
 * in a build with -Dumockdev_testbed=true no umockdev testbed): only then
 * does changing a knob need root. UMOCKDEV_DIR is ignored otherwise. */
gboolean vsm_paths_are_system (void);

G_END_DECLS
