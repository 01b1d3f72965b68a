/* vsm-kernel.h - what the running kernel can do
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>

G_BEGIN_DECLS

/* Written into the patched fat module as MODULE_VERSION by the project's
 * out-of-tree build (kernel/), so it shows in /sys/module/fat/version. */
#define VSM_FLUSH_FIX_MARKER "vfat-smart-flushfix"

gboolean vsm_kernel_has_knob (const VsmKernel *k, const char *name);

/* Whether the loaded patched fat module is stale: its marker
 * ("PKGVER-vfat-smart-flushfix-VARIANT/src=SRCVER", from /sys/module/fat/version)
 * names another Debian source version than the running kernel's (/proc/version:
 * "... Debian VERSION (DATE)"). TRUE only when both are known and differ;
 * built_from and running (optional) get what was found (NULL when unknown). */
gboolean vsm_flush_fix_marker_stale (const char *module_version, const char *proc_version,
                                     char **built_from, char **running);

G_END_DECLS
