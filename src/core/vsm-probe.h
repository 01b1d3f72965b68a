/* vsm-probe.h - does the running fat module have the flush fix? Ask its behaviour.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The fix (kernel/0001-*.patch) makes fat_flush_inodes() call write_inode_now(),
 * which goes through writeback_single_inode() with nr_to_write = LONG_MAX. The old
 * code calls sync_inode_metadata() (nr_to_write = 0) and then filemap_fdatawrite().
 * The probe loop-mounts a tiny FAT image with "flush", writes and closes one file
 * while tracing writeback:writeback_single_inode_start and
 * writeback:writeback_write_inode_start for its own pid in a private tracefs
 * instance, and reads the answer from the events for that file's inode. It needs
 * root, tracefs and loop devices, loads the fat module when it is not loaded, and
 * takes about a second: run it off the hot path (vfat-smart probe, the daemon),
 * never from the udev helper. Results are cached per kernel release and fat
 * module: its srcversion when it has one (modules with MODULE_VERSION), else its
 * taint flags, core size and load address (so a reload is probed again).
 */
#pragma once

#include "vsm.h"

#include "vsm-kernel.h"

#include <glib.h>

G_BEGIN_DECLS

/* Decides from the text of a tracefs "trace" file: events of task pid for inode
 * ino. Returns FALSE (and UNKNOWN) when no event for that inode was seen. */
gboolean vsm_probe_parse_trace (const char *trace, guint64 ino, int pid, VsmFlushFix *fix,
                                VsmFlushFixVariant *variant, char **evidence);

/* A 1.44 MB FAT12 file system image, empty. */
GBytes *vsm_probe_fat12_image (void);

/* Runs the probe now. tracefs_root NULL: /sys/kernel/tracing, then
 * /sys/kernel/debug/tracing. work_dir NULL: /run/vfat-smart. */
VsmProbeResult *vsm_probe_flush_fix_run (const char *tracefs_root, const char *work_dir,
                                         GError **error);

/* The cache: cache_dir NULL is /run/vfat-smart (modules can be swapped at run time;
 * the key covers that). load returns NULL unless release and srcversion match. */
VsmProbeResult *vsm_probe_cache_load (const char *cache_dir, const char *release,
                                      const char *srcversion);
gboolean vsm_probe_cache_store (const char *cache_dir, const VsmProbeResult *r, GError **error);

/* The cache key: the kernel release, and the fat module's identity:
 * "srcversion=..." or "taint=...,coresize=...,text=..." (the .text address is
 * 0 for non-root readers), "builtin", or NULL when fat is not loaded. */
void vsm_probe_current_key (char **release, char **srcversion);

G_END_DECLS
