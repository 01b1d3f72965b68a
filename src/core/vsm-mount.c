/* vsm-mount.c - mounts through libmount
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-mount.h"

#include <libmount.h>
#include <string.h>

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

GPtrArray *
vsm_mounts_for_disk (GUdevClient *client, const char *disk_syspath)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_mount_info_free);
  struct libmnt_table *tb = mnt_new_table ();
  struct libmnt_iter *it = mnt_new_iter (MNT_ITER_FORWARD);
  struct libmnt_fs *fs;

  if (tb == NULL || it == NULL || disk_syspath == NULL || mnt_table_parse_mtab (tb, NULL) != 0)
    goto out;

  while (mnt_table_next_fs (tb, it, &fs) == 0)
    {
      dev_t devno = mnt_fs_get_devno (fs);
      g_autoptr (GUdevDevice) dev = NULL;
      g_autoptr (GUdevDevice) disk = NULL;
      VsmMountInfo *m;

      if (devno == 0)
        continue;
      dev = g_udev_client_query_by_device_number (client, G_UDEV_DEVICE_TYPE_BLOCK, devno);
      if (dev == NULL)
        continue;
      if (g_strcmp0 (g_udev_device_get_devtype (dev), "partition") == 0)
        disk = g_udev_device_get_parent_with_subsystem (dev, "block", "disk");
      else
        disk = g_object_ref (dev);
      if (disk == NULL || g_strcmp0 (g_udev_device_get_sysfs_path (disk), disk_syspath) != 0)
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
