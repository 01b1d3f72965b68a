/* vsmd-pacer.h - a worker that keeps syncfs(2) running on a mount while
 * one big file is written to it (when: src/core/vsm-pace.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _VsmdPacer VsmdPacer;

/* Starts the worker on mount_point, after checking that the file system
 * mounted there lives on disk_name (a partition of it, or the disk). */
VsmdPacer *vsmd_pacer_start (const char *disk_name, const char *mount_point, GError **error);
/* FALSE once the worker ended on its own (the mount went, syncfs failed) */
gboolean vsmd_pacer_is_running (VsmdPacer *pacer);
/* syncfs calls that returned so far */
guint vsmd_pacer_get_rounds (VsmdPacer *pacer);
/* Asks the worker to end after its current syncfs; never waits for it
 * (that can take the cap's worth of writing). Drops the handle. */
void vsmd_pacer_stop (VsmdPacer *pacer);

G_END_DECLS
