/* vsmd-pacer.c - syncfs(2) back to back on one mount, in a thread
 *
 * The worker opens the mount's root for each call and closes it after, so
 * that between calls nothing of the daemon holds the file system; during a
 * call an unmount gets "busy" (the pacer stops as soon as the writer does,
 * see vsm-pace.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* syncfs */
#include "config.h"

#include "vsmd-pacer.h"

#include "vsm-paths.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct _VsmdPacer
{
  char *mount_point;
  dev_t dev;
  gint run;   /* atomic: the owner still wants it */
  gint alive; /* atomic: the worker has not ended */
  guint rounds;
};

static void
pacer_clear (gpointer data)
{
  VsmdPacer *p = data;
  g_free (p->mount_point);
}

/* the mount's device is disk_name or one of its partitions */
static gboolean
dev_is_on_disk (dev_t dev, const char *disk_name)
{
  g_autofree char *majmin = g_strdup_printf ("%u:%u", major (dev), minor (dev));
  g_autofree char *link = vsm_path (VSM_ROOT_SYSFS, "dev", "block", majmin, NULL);
  g_autofree char *real = realpath (link, NULL);
  g_autofree char *tail = g_strconcat ("/block/", disk_name, NULL);
  g_autofree char *inner = g_strconcat (tail, "/", NULL);

  return real && (g_str_has_suffix (real, tail) || strstr (real, inner) != NULL);
}

static gboolean
one_round (VsmdPacer *p)
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

static gpointer
pacer_thread (gpointer data)
{
  VsmdPacer *p = data;

  while (g_atomic_int_get (&p->run) && one_round (p))
    g_atomic_int_inc ((gint *)&p->rounds);
  g_atomic_int_set (&p->alive, 0);
  g_atomic_rc_box_release_full (p, pacer_clear);
  return NULL;
}

VsmdPacer *
vsmd_pacer_start (const char *disk_name, const char *mount_point, GError **error)
{
  VsmdPacer *p;
  GThread *t;
  struct stat st;

  g_return_val_if_fail (disk_name != NULL && mount_point != NULL, NULL);
  if (stat (mount_point, &st) != 0)
    {
      int e = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s", mount_point,
                   g_strerror (e));
      return NULL;
    }
  if (!dev_is_on_disk (st.st_dev, disk_name))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("%s is not on %s"), mount_point,
                   disk_name);
      return NULL;
    }
  p = g_atomic_rc_box_new0 (VsmdPacer);
  p->mount_point = g_strdup (mount_point);
  p->dev = st.st_dev;
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

void
vsmd_pacer_stop (VsmdPacer *p)
{
  if (p == NULL)
    return;
  g_atomic_int_set (&p->run, 0);
  g_atomic_rc_box_release_full (p, pacer_clear);
}
