/* vsmd-pacer.c - a sync of one mounted file system back to back, in a thread
 *
 * Each round of VSMD_PACER_PACE and VSMD_PACER_ONCE is sync_filesystem() in
 * the kernel, by one of two calls:
 * - BLKFLSBUF on the file system's block device (CAP_SYS_ADMIN): it holds
 *   no reference to the mount, only the superblock's s_umount shared
 *   (fsync_bdev() on 6.1, fs_bdev_sync() on 6.12), so an unmount during a
 *   round is not refused as busy: it waits for the round and returns once
 *   everything is written. It also drops the device's clean cached pages
 *   (invalidate_bdev()).
 * - syncfs(2) on the mount's root otherwise: the open file pins the mount,
 *   so an unmount during a round gets "busy" (the defect BLKFLSBUF removes;
 *   vfat-smartd(8), BUGS).
 * Either way nothing of the daemon holds the mount or the device between
 * rounds, and the worker stops as soon as the writer does (vsm-pace.h).
 *
 * VSMD_PACER_COMMIT is one fsync(2) of the file system's block device,
 * opened read-only (fsync needs no write access): the device's own page
 * cache, which holds FAT's buffers (both FATs, FSINFO, the directories),
 * is written and the drive's cache flushed; the files' data is not. After
 * the flusher wrote a file's data it writes the inode, which puts the file's
 * size and first cluster into its directory entry, a buffer of the device:
 * the commit makes those files reachable on the drive. An unmount during it
 * is not refused (an open block device does not pin the mount).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* syncfs */
#include "config.h"

#include "vsmd-pacer.h"

#include "vsm.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <linux/fs.h> /* BLKFLSBUF */
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* a round shorter than this is followed by a pause: no spinning on a mount
 * that has next to nothing to write */
#define MIN_ROUND_USEC (100 * 1000)

struct _VsmdPacer
{
  char *bdi;
  char *mount_point;
  char *devnode; /* /dev/block/MAJ:MIN of the file system */
  dev_t dev;
  VsmdPacerJob job;
  gint method; /* atomic: VsmdPaceMethod */
  gint run;    /* atomic: the owner still wants it */
  gint alive;  /* atomic: the worker has not ended */
  gint failed; /* atomic: it ended on an error */
  guint rounds;
  /* when its last whole sync of the file system that completed began (not
   * a commit's fsync); the worker writes it before alive goes 0, the owner
   * reads it after */
  gint64 synced_from;
  /* how long its rounds took in all, in microseconds; written by the worker
   * before alive goes 0, read by the owner after */
  gint64 busy_usec;
};

static void
pacer_clear (gpointer data)
{
  VsmdPacer *p = data;
  g_free (p->bdi);
  g_free (p->mount_point);
  g_free (p->devnode);
}

/* BdiDirtied, or 0 without per-device figures (then only the owner stops it) */
static guint64
dirtied_now (VsmdPacer *p)
{
  VsmDirtyInfo di;

  vsm_dirty_info_read (p->bdi, &di);
  return di.valid && di.per_device ? di.dirtied_bytes : 0;
}

/* the same file system is still mounted there (not the directory under it
 * after an unmount), checked without keeping anything open */
static gboolean
still_mounted (VsmdPacer *p)
{
  struct stat st;

  return stat (p->mount_point, &st) == 0 && st.st_dev == p->dev;
}

/* the file system's device, opened read-only, checked to be that device;
 * -1 with errno */
static int
open_fs_device (VsmdPacer *p)
{
  struct stat st;
  int fd = open (p->devnode, O_RDONLY | O_CLOEXEC | O_NONBLOCK), e;

  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0)
    e = errno;
  else if (S_ISBLK (st.st_mode) && st.st_rdev == p->dev)
    return fd;
  else
    e = ENODEV;
  close (fd);
  errno = e;
  return -1;
}

/* BLKFLSBUF on the file system's device; FALSE with errno when it cannot be
 * done here (then syncfs from now on) */
static gboolean
flushbuf_round (VsmdPacer *p)
{
  int fd = open_fs_device (p), e;
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = ioctl (fd, BLKFLSBUF, 0) == 0;
  e = errno;
  close (fd);
  errno = e;
  return ok;
}

static gboolean
syncfs_round (VsmdPacer *p)
{
  struct stat st;
  int fd = open (p->mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  /* still the same file system (not the directory under it after an unmount) */
  ok = fstat (fd, &st) == 0 && st.st_dev == p->dev && syncfs (fd) == 0;
  close (fd);
  return ok;
}

static gboolean
commit_round (VsmdPacer *p)
{
  int fd, e;
  gboolean ok;

  if (!still_mounted (p) || (fd = open_fs_device (p)) < 0)
    return FALSE;
  ok = fsync (fd) == 0;
  e = errno;
  close (fd);
  errno = e;
  return ok;
}

static gboolean
one_round (VsmdPacer *p)
{
  if (p->job == VSMD_PACER_COMMIT)
    return commit_round (p);
  if (g_atomic_int_get (&p->method) == VSMD_PACE_BLKFLSBUF)
    {
      if (!still_mounted (p))
        return FALSE;
      if (flushbuf_round (p))
        return TRUE;
      /* e.g. without CAP_SYS_ADMIN (EACCES): an eject during a round says busy */
      g_message ("%s: BLKFLSBUF on %s: %s; pacing with syncfs", p->bdi, p->devnode,
                 g_strerror (errno));
      g_atomic_int_set (&p->method, VSMD_PACE_SYNCFS);
    }
  return syncfs_round (p);
}

static gpointer
pacer_thread (gpointer data)
{
  VsmdPacer *p = data;

  while (g_atomic_int_get (&p->run))
    {
      guint64 before = dirtied_now (p);
      gint64 t0 = g_get_monotonic_time ();

      if (!one_round (p))
        {
          g_atomic_int_set (&p->failed, 1);
          break;
        }
      if (p->job != VSMD_PACER_COMMIT)
        p->synced_from = t0;
      p->busy_usec += g_get_monotonic_time () - t0;
      g_atomic_int_inc ((gint *)&p->rounds);
      if (p->job != VSMD_PACER_PACE)
        break;
      /* nothing new while it ran: the writer stopped; end now (what is
       * left is the flusher's or the unmount's to write) */
      if (before > 0 && dirtied_now (p) <= before)
        break;
      if (g_get_monotonic_time () - t0 < MIN_ROUND_USEC)
        g_usleep (MIN_ROUND_USEC);
    }
  g_atomic_int_set (&p->alive, 0);
  g_atomic_rc_box_release_full (p, pacer_clear);
  return NULL;
}

VsmdPacer *
vsmd_pacer_start (const char *bdi, const char *disk_name, const char *mount_point, VsmdPacerJob job,
                  GError **error)
{
  g_autofree char *disk = NULL;
  VsmdPacer *p;
  GThread *t;
  struct stat st;

  g_return_val_if_fail (bdi != NULL && disk_name != NULL && mount_point != NULL, NULL);
  if (stat (mount_point, &st) != 0)
    {
      int e = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s", mount_point,
                   g_strerror (e));
      return NULL;
    }
  disk = vsm_path (VSM_ROOT_SYSFS, "block", disk_name, NULL);
  if (!vsm_devno_is_on_disk (st.st_dev, disk))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("%s is not on %s"), mount_point,
                   disk_name);
      return NULL;
    }
  p = g_atomic_rc_box_new0 (VsmdPacer);
  p->bdi = g_strdup (bdi);
  p->mount_point = g_strdup (mount_point);
  p->devnode = g_strdup_printf ("/dev/block/%u:%u", major (st.st_dev), minor (st.st_dev));
  p->dev = st.st_dev;
  p->job = job;
  p->method = VSMD_PACE_BLKFLSBUF;
  p->run = p->alive = 1;
  t = g_thread_try_new ("vsmd-pacer", pacer_thread, g_atomic_rc_box_acquire (p), error);
  if (t == NULL)
    {
      g_atomic_rc_box_release_full (p, pacer_clear);
      g_atomic_rc_box_release_full (p, pacer_clear);
      return NULL;
    }
  g_thread_unref (t);
  return p;
}

VsmdPacerJob
vsmd_pacer_get_job (VsmdPacer *p)
{
  return p->job;
}

gboolean
vsmd_pacer_is_running (VsmdPacer *p)
{
  return g_atomic_int_get (&p->alive) != 0;
}

guint
vsmd_pacer_get_rounds (VsmdPacer *p)
{
  return (guint)g_atomic_int_get ((gint *)&p->rounds);
}

VsmdPaceMethod
vsmd_pacer_get_method (VsmdPacer *p)
{
  return (VsmdPaceMethod)g_atomic_int_get (&p->method);
}

const char *
vsmd_pace_method_name (VsmdPaceMethod method)
{
  return method == VSMD_PACE_BLKFLSBUF ? "BLKFLSBUF" : "syncfs";
}

gint64
vsmd_pacer_get_synced_from (VsmdPacer *p)
{
  return vsmd_pacer_is_running (p) ? 0 : p->synced_from;
}

gint64
vsmd_pacer_get_busy_usec (VsmdPacer *p)
{
  return vsmd_pacer_is_running (p) ? 0 : p->busy_usec;
}

gboolean
vsmd_pacer_failed (VsmdPacer *p)
{
  return g_atomic_int_get (&p->failed) != 0;
}

void
vsmd_pacer_request_stop (VsmdPacer *p)
{
  g_atomic_int_set (&p->run, 0);
}

void
vsmd_pacer_free (VsmdPacer *p)
{
  if (p == NULL)
    return;
  g_atomic_int_set (&p->run, 0);
  g_atomic_rc_box_release_full (p, pacer_clear);
}
