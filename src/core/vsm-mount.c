/* vsm-mount.c - mounts through libmount
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-mount.h"

#include "vsm-device.h"
#include "vsm-util.h"

#include <dirent.h>
#include <fcntl.h>
#include <libmount.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void
vsm_mount_info_free (VsmMountInfo *m)
{
  if (m == NULL)
    return;
  g_free (m->source);
  g_free (m->target);
  g_free (m->fstype);
  g_free (m->options);
  g_free (m->user_options);
  g_free (m);
}

/* the device number in a sysfs directory's "dev" ("MAJ:MIN") */
static gboolean
sysfs_devno (const char *syspath, dev_t *out)
{
  g_autofree char *path = g_build_filename (syspath, "dev", NULL);
  g_autofree char *text = vsm_read_attr (path, NULL);
  const char *colon = text ? strchr (text, ':') : NULL;
  g_autofree char *maj = colon ? g_strndup (text, colon - text) : NULL;
  guint64 a, b;

  if (colon == NULL || !vsm_parse_u64 (maj, &a) || !vsm_parse_u64 (colon + 1, &b) ||
      a > G_MAXUINT32 || b > G_MAXUINT32)
    return FALSE;
  *out = makedev ((unsigned)a, (unsigned)b);
  return TRUE;
}

/* the device numbers of the disk and its partitions, from sysfs (no udev
 * device per mount: see vsm_sysfs_disk_partitions ()); empty when the
 * disk is gone */
static GArray *
disk_devnos (const char *disk_syspath)
{
  GArray *devnos = g_array_new (FALSE, FALSE, sizeof (dev_t));
  g_autoptr (GPtrArray) partitions = NULL;
  dev_t devno;

  if (disk_syspath == NULL || !sysfs_devno (disk_syspath, &devno))
    return devnos;
  g_array_append_val (devnos, devno);
  partitions = vsm_sysfs_disk_partitions (disk_syspath);
  for (guint i = 0; i < partitions->len; i++)
    if (sysfs_devno (g_ptr_array_index (partitions, i), &devno))
      g_array_append_val (devnos, devno);
  return devnos;
}

static gboolean
devnos_contain (GArray *devnos, dev_t devno)
{
  for (guint i = 0; devno != 0 && i < devnos->len; i++)
    if (g_array_index (devnos, dev_t, i) == devno)
      return TRUE;
  return FALSE;
}

gboolean
vsm_devno_is_on_disk (dev_t devno, const char *disk_syspath)
{
  g_autoptr (GArray) devnos = disk_devnos (disk_syspath);
  return devnos_contain (devnos, devno);
}

/* The processes' open files, one fstatat() each and no open but each
 * process's fd directory: a /proc/PID/fd link has its file's open mode in its
 * own permission bits (S_IWUSR for write), and a file's st_dev is its file
 * system's device. Processes that go meanwhile are skipped. */
gboolean
vsm_disk_has_open_writers (const char *disk_syspath)
{
  g_autoptr (GArray) devnos = disk_devnos (disk_syspath);
  g_autofree char *proc = vsm_path (VSM_ROOT_PROCFS, ".", NULL);
  g_autoptr (GDir) dir = NULL;
  const char *pid;
  gboolean found = FALSE;

  if (devnos->len == 0 || (dir = g_dir_open (proc, 0, NULL)) == NULL)
    return FALSE;
  while (!found && (pid = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *fd_path = NULL;
      DIR *fds;
      struct dirent *e;
      int dfd;

      if (!g_ascii_isdigit (pid[0]))
        continue;
      fd_path = g_build_filename (proc, pid, "fd", NULL);
      dfd = open (fd_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd < 0 || (fds = fdopendir (dfd)) == NULL)
        {
          if (dfd >= 0)
            close (dfd);
          continue;
        }
      while (!found && (e = readdir (fds)) != NULL)
        {
          struct stat link, file;

          if (e->d_name[0] == '.' || fstatat (dfd, e->d_name, &link, AT_SYMLINK_NOFOLLOW) != 0 ||
              (link.st_mode & S_IWUSR) == 0 || fstatat (dfd, e->d_name, &file, 0) != 0)
            continue;
          found = devnos_contain (devnos, file.st_dev);
        }
      closedir (fds);
    }
  return found;
}

GPtrArray *
vsm_mounts_for_disk (const char *disk_syspath)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_mount_info_free);
  g_autoptr (GArray) devnos = disk_devnos (disk_syspath);
  struct libmnt_table *tb = NULL;
  struct libmnt_iter *it = NULL;
  struct libmnt_fs *fs;

  if (devnos->len == 0)
    return out;
  tb = mnt_new_table ();
  it = mnt_new_iter (MNT_ITER_FORWARD);
  if (tb == NULL || it == NULL || mnt_table_parse_mtab (tb, NULL) != 0)
    goto out;

  while (mnt_table_next_fs (tb, it, &fs) == 0)
    {
      VsmMountInfo *m;

      if (!devnos_contain (devnos, mnt_fs_get_devno (fs)))
        continue;

      m = g_new0 (VsmMountInfo, 1);
      m->source = g_strdup (mnt_fs_get_source (fs));
      m->target = g_strdup (mnt_fs_get_target (fs));
      m->fstype = g_strdup (mnt_fs_get_fstype (fs));
      m->options = mnt_fs_strdup_options (fs);
      m->user_options = g_strdup (mnt_fs_get_user_options (fs));
      g_ptr_array_add (out, m);
    }

out:
  mnt_free_iter (it);
  mnt_unref_table (tb);
  return out;
}

gboolean
vsm_disk_is_mounted (const char *disk_syspath)
{
  g_autoptr (GPtrArray) mounts = vsm_mounts_for_disk (disk_syspath);

  return mounts->len > 0;
}

static const char *const opposites[][2] = {
  { "flush", "noflush" }, /* noflush is no vfat option: only a marker */
  { "sync", "async" },
};

static void
remove_option (char **optstr, const char *name)
{
  while (*optstr && mnt_optstr_remove_option (optstr, name) == 0)
    ;
}

gboolean
vsm_options_are_valid (const char *optstr)
{
  char *next = (char *)optstr;
  char *name, *value;
  size_t nsz, vsz;
  int rc;

  if (optstr == NULL)
    return TRUE;
  while ((rc = mnt_optstr_next_option (&next, &name, &nsz, &value, &vsz)) == 0)
    ;
  /* at an open quote libmount says "end" and leaves the rest unread */
  return rc == 1 && (next == NULL || *next == '\0');
}

char *
vsm_options_merge (const char *base, const char *wins)
{
  char *result = g_strdup (base ? base : "");
  char *next = (char *)wins;
  char *name, *value;
  size_t nsz, vsz;

  while (wins && mnt_optstr_next_option (&next, &name, &nsz, &value, &vsz) == 0)
    {
      g_autofree char *n = g_strndup (name, nsz);
      g_autofree char *v = value ? g_strndup (value, vsz) : NULL;

      remove_option (&result, n);
      for (gsize i = 0; i < G_N_ELEMENTS (opposites); i++)
        {
          if (g_str_equal (n, opposites[i][0]))
            remove_option (&result, opposites[i][1]);
          else if (g_str_equal (n, opposites[i][1]))
            remove_option (&result, opposites[i][0]);
        }
      if (g_str_equal (n, "noflush"))
        continue;
      mnt_optstr_append_option (&result, n, v);
    }
  return result;
}
