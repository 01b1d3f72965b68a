/* vsm-paths.h - the one seam for every system path vfat-smart reads or writes
 *
 * Every /sys, /proc, debugfs and state-directory path of the core is built
 * here, so that a test can point all of them at a tree of its own (in the
 * manner of power-profiles-daemon's ppd_utils_get_sysfs_path ()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>

G_BEGIN_DECLS

/* The directory of a root: the system's, or what a test set. */
const char *vsm_root_dir (VsmRoot root);

/* Tests: put a root somewhere else (NULL: back to the system's). */
void vsm_paths_set_root (VsmRoot root, const char *dir);

G_END_DECLS
