/* vsm-event.c - a udev event of a disk or partition: its facts, the plan
 * applied (vsm_hotplug ()), the answered-for stamps; and the disk's removal
 * (vsm_unplug ())
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-event.h"
#include "vsm-manager.h"
#include "vsm-rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
vsm_udev_device_from_event (VsmDevice *d, const char *const *envp)
{
  const char *type = g_environ_getenv ((char **)envp, "ID_FS_TYPE");

  if (type == NULL)
    return;
  g_free (d->fs_type);
  g_free (d->fs_label);
  g_free (d->fs_uuid);
  d->fs_type = *type ? g_strdup (type) : NULL;
  d->fs_label = g_strdup (g_environ_getenv ((char **)envp, "ID_FS_LABEL"));
  d->fs_uuid = g_strdup (g_environ_getenv ((char **)envp, "ID_FS_UUID"));
  d->superfloppy =
    vsm_device_is_superfloppy (d, g_environ_getenv ((char **)envp, "ID_PART_TABLE_TYPE"));
}

void
vsm_udev_disk_fs_facts (VsmDevice *d)
{
  g_autoptr (VsmState) s = NULL;

  if (d->is_partition || d->fs_type != NULL || d->syspath == NULL)
    return;
  /* the FAT partition the device's facts found in udev's database */
  if (d->disk_fs_type != NULL)
    {
      d->fs_type = g_strdup (d->disk_fs_type);
      g_free (d->fs_label);
      d->fs_label = g_strdup (d->disk_fs_label);
      return;
    }
  /* the partitions' events may not have run yet (at the plug) or their
   * entries hold nothing: keep what the record knows */
  s = d->bdi ? vsm_state_load (d->bdi, NULL) : NULL;
  if (s != NULL && vsm_fs_type_is_fat (s->fs_type))
    d->fs_type = g_strdup (s->fs_type);
}

gboolean
vsm_udev_class_from_event (const char *const *envp, VsmOverrides *o)
{
  const char *name = g_environ_getenv ((char **)envp, "VFAT_SMART_CLASS");
  VsmClass klass;

  if (name == NULL)
    return TRUE;
  if (!vsm_class_from_string (name, &klass))
    return FALSE;
  o->set_class = TRUE;
  o->klass = klass;
  return TRUE;
}

static gboolean
stamp_part_ok (const char *s, gboolean digits_only)
{
  if (s == NULL || *s == '\0' || strlen (s) > 64)
    return FALSE;
  for (const char *p = s; *p; p++)
    if (digits_only ? !g_ascii_isdigit (*p) : !g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

static char *
device_prefix (const char *const *envp)
{
  const char *maj = g_environ_getenv ((char **)envp, "MAJOR");
  const char *min = g_environ_getenv ((char **)envp, "MINOR");

  if (!stamp_part_ok (maj, TRUE) || !stamp_part_ok (min, TRUE))
    return NULL;
  return g_strdup_printf ("%s:%s:", maj, min);
}

char *
vsm_udev_answer_stamp (const char *const *envp)
{
  g_autofree char *prefix = device_prefix (envp);
  const char *type = g_environ_getenv ((char **)envp, "ID_FS_TYPE");
  const char *uuid = g_environ_getenv ((char **)envp, "ID_FS_UUID");

  if (prefix == NULL || !stamp_part_ok (type, FALSE) || !stamp_part_ok (uuid, FALSE))
    return NULL;
  return g_strdup_printf ("%s%s:%s", prefix, type, uuid);
}

/* The stamp directory, opened without following a link, a directory of
 * ours writable only by us; create: make it when it is not there. -1 with
 * error otherwise (nothing in it is touched then). */
static int
open_answers_dir (gboolean create, GError **error)
{
  g_autofree char *dir = vsm_rundir_path (VSM_RUN_FILE_UDEV_ANSWERED, NULL);
  struct stat st;
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0 && errno == ENOENT && create)
    {
      if (mkdir (dir, 0755) != 0 && errno != EEXIST)
        {
          int e = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", dir,
                       g_strerror (e));
          return -1;
        }
      fd = open (dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", dir, g_strerror (e));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid () ||
      (st.st_mode & 0022) != 0)
    {
      close (fd);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_PERM,
                   "%s: not a directory owned by uid %u and writable only by it", dir,
                   (guint)geteuid ());
      return -1;
    }
  return fd;
}

/* Each name in the directory fd (the fd stays open and owned by the caller). */
static GPtrArray *
list_answers (int dfd)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  int fd = dup (dfd);
  DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  struct dirent *e;

  if (d == NULL)
    {
      if (fd >= 0)
        close (fd);
      return names;
    }
  rewinddir (d);
  while ((e = readdir (d)) != NULL && names->len < 4096)
    if (e->d_name[0] != '.')
      g_ptr_array_add (names, g_strdup (e->d_name));
  closedir (d);
  return names;
}

/* What a stamp names: a regular file of ours, at most 64 bytes, never a
 * FIFO, a device or a link. NULL otherwise. */
static char *
read_stamp (int dfd, const char *name)
{
  char buf[65];
  struct stat st;
  ssize_t n;
  int fd = openat (dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != geteuid () || st.st_size > 64)
    {
      close (fd);
      return NULL;
    }
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  return g_strdup (buf);
}

gboolean
vsm_udev_note_answer (const char *const *envp, const char *bdi, gboolean answered, GError **error)
{
  g_autofree char *prefix = device_prefix (envp);
  g_autofree char *stamp = answered ? vsm_udev_answer_stamp (envp) : NULL;
  g_autofree char *tmp = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (GError) local = NULL;
  const char *content = bdi ? bdi : "";
  gsize len = strlen (content);
  gboolean ok;
  int dfd, fd, e;

  if (prefix == NULL)
    return TRUE;
  dfd = open_answers_dir (stamp != NULL, &local);
  if (dfd < 0)
    {
      /* no directory and nothing to stamp: nothing to do */
      if (stamp == NULL && g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  names = list_answers (dfd);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      if (g_str_has_prefix (name, prefix) && unlinkat (dfd, name, 0) != 0 && errno != ENOENT)
        {
          e = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", name,
                       g_strerror (e));
          close (dfd);
          return FALSE;
        }
    }
  if (stamp == NULL)
    {
      close (dfd);
      return TRUE;
    }
  /* a temporary of our own, its mode set whatever the umask, then renamed */
  tmp = g_strdup_printf (".%s.%d", stamp, (int)getpid ());
  (void)unlinkat (dfd, tmp, 0);
  fd = openat (dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  ok = fd >= 0 && fchmod (fd, 0644) == 0 && write (fd, content, len) == (ssize_t)len;
  e = errno;
  if (fd >= 0 && close (fd) != 0 && ok)
    {
      ok = FALSE;
      e = errno;
    }
  if (ok && renameat (dfd, tmp, dfd, stamp) != 0)
    {
      ok = FALSE;
      e = errno;
    }
  if (!ok)
    {
      if (fd >= 0)
        (void)unlinkat (dfd, tmp, 0);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", stamp,
                   g_strerror (e));
      close (dfd);
      return FALSE;
    }
  close (dfd);
  return TRUE;
}

void
vsm_udev_forget_answers (const char *bdi)
{
  g_autoptr (GPtrArray) names = NULL;
  int dfd = open_answers_dir (FALSE, NULL);

  if (dfd < 0)
    return;
  names = list_answers (dfd);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *of = read_stamp (dfd, name);

      if (of != NULL && g_strcmp0 (of, bdi) == 0)
        (void)unlinkat (dfd, name, 0);
    }
  close (dfd);
}

/* the facts of the event's device: sysfs, udev's database, the event's
 * own ID_FS_*; NULL when the device is gone (no error) or unreadable */
static VsmDevice *
event_device (const char *syspath, const char *const *envp, VsmOverrides *o, GPtrArray *notes,
              GError **error)
{
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  g_autoptr (GUdevDevice) dev = g_udev_client_query_by_sysfs_path (client, syspath);
  VsmDevice *d;

  if (dev == NULL)
    return NULL; /* gone already */
  d = vsm_device_new_from_udev (client, dev, envp, NULL, error);
  if (d == NULL)
    return NULL;
  vsm_udev_device_from_event (d, envp);
  vsm_udev_disk_fs_facts (d);
  if (!vsm_udev_class_from_event (envp, o))
    vsm_note (notes, "%s: VFAT_SMART_CLASS is not a class; ignored", syspath);
  return d;
}

/* A change event of a disk with a record: the intent recorded there, when
 * it holds a person's choice (a class, a flush mode, per-drive options),
 * NULL otherwise. A class the event's rule states (VFAT_SMART_CLASS) counts
 * only where the record has none. */
static VsmIntent *
recorded_intent (const VsmDevice *d, const char *const *envp, const VsmOverrides *event)
{
  g_autoptr (VsmState) s = NULL;
  VsmIntent *intent;

  if (g_strcmp0 (g_environ_getenv ((char **)envp, "ACTION"), "change") != 0 || d->bdi == NULL)
    return NULL;
  s = vsm_state_load (d->bdi, NULL);
  if (s == NULL || s->intent == NULL ||
      (!s->intent->set_class && s->intent->flush_mode == VSM_FLUSH_MODE_AUTO &&
       s->intent->user_options == NULL))
    return NULL;
  intent = vsm_intent_copy (s->intent);
  if (!intent->set_class && event->set_class)
    {
      intent->set_class = TRUE;
      intent->klass = event->klass;
    }
  return intent;
}

VsmAssessment *
vsm_hotplug (const char *syspath, const char *const *envp, gboolean *applied, VsmState **state,
             GPtrArray *notes, GError **error)
{
  /* at the plug: the vm.* knobs wait for the mount (vfat-smartd takes them) */
  const VsmApplyOptions options = { VSM_SOURCE_UDEV, VSM_LOCK_WAIT_UDEV_MS, TRUE };
  const VsmReapply change = { .reason = "udev change event" };
  g_autoptr (GError) stamp_error = NULL;
  VsmOverrides o = { 0 };
  VsmIntent *intent;
  VsmAssessment *a;
  VsmDevice *d;
  gboolean is_fs;

  g_return_val_if_fail (syspath != NULL && applied != NULL, NULL);
  *applied = FALSE;
  d = event_device (syspath, envp, &o, notes, error);
  if (d == NULL)
    return NULL;
  /* a change of a disk a person made a choice for plans from that choice,
   * as a re-apply does: the event brings new facts, not a new intent */
  intent = recorded_intent (d, envp, &o);
  a = intent ? vsm_assess_intent (d, intent, &change) : vsm_assess_device (d, NULL, &o);
  *applied = vsm_assessment_apply (a, &options, NULL, NULL, state, error);

  /* the next change event of this file system (an unmount's) keeps this
   * answer without running the helper */
  is_fs = a->device->is_partition || a->device->superfloppy;
  if (!vsm_udev_note_answer (envp, a->device->bdi, *applied && is_fs && a->device->fs_type != NULL,
                             &stamp_error))
    vsm_note (notes, "%s: %s", a->device->devnode, stamp_error->message);
  return a;
}

gboolean
vsm_unplug (const char *bdi, GError **error)
{
  /* the disk is gone: nothing of it to write back; the vm.* knobs go back
   * with their last owner */
  vsm_udev_forget_answers (bdi);
  return vsm_forget (bdi, VSM_LOCK_WAIT_UDEV_MS, NULL, error);
}
