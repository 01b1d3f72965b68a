/* vsm-kernel.h - what the running kernel can do
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  VSM_FLUSH_FIX_UNKNOWN,
  VSM_FLUSH_FIX_PRESENT,
  VSM_FLUSH_FIX_ABSENT,
} VsmFlushFix;

const char *vsm_flush_fix_to_string (VsmFlushFix fix);

/* which form of the fix (told by vfat-smart probe) */
typedef enum
{
  VSM_FLUSH_FIX_VARIANT_UNKNOWN, /*< nick=unknown >*/
  /* write_inode_now (inode, 0). The hybrid (wait=0, then wait=1 only when the
   * flusher owned the inode) does the same on the probe's idle file: the probe
   * cannot tell the two apart. */
  VSM_FLUSH_FIX_VARIANT_NOWAIT, /*< nick=wait0 >*/
  /* write_inode_now (inode, 1). (The nick must stay on the value's own line, or
   * glib-mkenums makes it "wait": seen in the lab.) */
  VSM_FLUSH_FIX_VARIANT_WAIT, /*< nick=wait1 >*/
} VsmFlushFixVariant;

/* Written into the patched fat module as MODULE_VERSION by the project's
 * out-of-tree build (kernel/), so it shows in /sys/module/fat/version. */
#define VSM_FLUSH_FIX_MARKER "vfat-smart-flushfix"

typedef struct
{
  char *release;        /* uname -r */
  GPtrArray *bdi_knobs; /* names of the writable BDI attributes found */
  gboolean has_strict_limit;
  gboolean has_max_bytes;
  VsmFlushFix flush_fix;
  VsmFlushFixVariant flush_fix_variant;
  char *flush_fix_reason;
  /* the loaded patched fat module was built from another kernel source than the
   * running kernel's (an update kept the release name): what to tell, or NULL */
  char *flush_fix_stale;
  gboolean tracefs;     /* a tracefs with instances we can use */
  gboolean debugfs_bdi; /* debugfs bdi/ stats readable */
} VsmKernel;

void vsm_kernel_free (VsmKernel *k);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmKernel, vsm_kernel_free)

/* bdi: "MAJ:MIN" whose knobs to list, or NULL for any BDI on the system.
 * override: the policy's kernel-flush-fix setting (UNKNOWN means auto). */
VsmKernel *vsm_kernel_probe (const char *bdi, VsmFlushFix override);

gboolean vsm_kernel_has_knob (const VsmKernel *k, const char *name);

/* Whether the loaded patched fat module is stale: its marker
 * ("PKGVER-vfat-smart-flushfix-VARIANT/src=SRCVER", from /sys/module/fat/version)
 * names another Debian source version than the running kernel's (/proc/version:
 * "... Debian VERSION (DATE)"). TRUE only when both are known and differ;
 * built_from and running (optional) get what was found (NULL when unknown). */
gboolean vsm_flush_fix_marker_stale (const char *module_version, const char *proc_version,
                                     char **built_from, char **running);

G_END_DECLS
