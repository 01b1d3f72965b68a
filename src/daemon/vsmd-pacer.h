/* vsmd-pacer.h - a worker that keeps the kernel syncing a mounted file
 * system while one big file is written to it (when: src/core/vsm-pace.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _VsmdPacer VsmdPacer;

/* how a round syncs the file system (vsmd-pacer.c says why) */
typedef enum
{
  VSMD_PACE_BLKFLSBUF, /* the block device's BLKFLSBUF: an unmount waits, never "busy" */
  VSMD_PACE_SYNCFS,    /* syncfs(2) on the mount, without CAP_SYS_ADMIN: "busy" during a round */
} VsmdPaceMethod;

/* what the worker does */
typedef enum
{
  VSMD_PACER_PACE,   /* syncs back to back until a round saw nothing newly dirtied */
  VSMD_PACER_ONCE,   /* one sync (the settle after a writer stopped) */
  VSMD_PACER_COMMIT, /* one fsync(2) of the file system's block device: the FAT and
                      * directory buffers the flusher left dirty, no file data */
} VsmdPacerJob;

/* Starts the worker on mount_point, after checking that the file system
 * mounted there lives on disk_name (a partition of it, or the disk). bdi:
 * the disk's, whose debugfs figures tell a pacing worker when the writer
 * stopped (it ends after a round during which nothing new was dirtied). */
VsmdPacer *vsmd_pacer_start (const char *bdi, const char *disk_name, const char *mount_point,
                             VsmdPacerJob job, GError **error);
VsmdPacerJob vsmd_pacer_get_job (VsmdPacer *pacer);
/* FALSE once the worker has ended (asked to, the writer stopped, the mount
 * went, a round failed) */
gboolean vsmd_pacer_is_running (VsmdPacer *pacer);
/* TRUE when it ended on an error (the mount went, a round failed) */
gboolean vsmd_pacer_failed (VsmdPacer *pacer);
/* Once it ended: when its last completed round that synced the whole file
 * system (PACE, ONCE) began, monotonic; 0 for none, or while it runs */
gint64 vsmd_pacer_get_synced_from (VsmdPacer *pacer);
/* rounds that returned so far */
guint vsmd_pacer_get_rounds (VsmdPacer *pacer);
/* how long its completed rounds took in all (a commit: its fsync), in
 * microseconds; 0 while it runs */
gint64 vsmd_pacer_get_busy_usec (VsmdPacer *pacer);
/* BLKFLSBUF until it failed once (e.g. no CAP_SYS_ADMIN), then syncfs */
VsmdPaceMethod vsmd_pacer_get_method (VsmdPacer *pacer);
const char *vsmd_pace_method_name (VsmdPaceMethod method);
/* Asks the worker to end after its current round; never waits for it
 * (that can take the cap's worth of writing). */
void vsmd_pacer_request_stop (VsmdPacer *pacer);
/* Drops the handle (the worker keeps what it needs until it ends). */
void vsmd_pacer_free (VsmdPacer *pacer);

G_END_DECLS
