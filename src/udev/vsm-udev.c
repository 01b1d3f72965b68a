/* vsm-udev.c - what the udev helper reads from its event and exports
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-udev.h"

#include "vsm-paths.h"
#include "vsm-udisks.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

static gboolean
safe_key (const char *key)
{
  if (key == NULL || !g_ascii_isupper (*key))
    return FALSE;
  for (const char *p = key; *p; p++)
    if (!g_ascii_isupper (*p) && !g_ascii_isdigit (*p) && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
safe_value (const char *value)
{
  if (value == NULL)
    return FALSE;
  for (const char *p = value; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("=,$_.-", *p) == NULL)
      return FALSE;
  return TRUE;
}

char *
vsm_udev_env_line (const char *key, const char *value)
{
  if (!safe_key (key) || !safe_value (value))
    return NULL;
  return g_strdup_printf ("%s=%s", key, value);
}

static void
add (GPtrArray *out, const char *key, const char *value)
{
  char *line = vsm_udev_env_line (key, value);
  if (line != NULL)
    g_ptr_array_add (out, line);
}

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

/* the FAT partition of the disk in udev's database: the one whose UUID
 * names the disk (vsm-device.c: mounted, else the first), else the first */
static GUdevDevice *
fat_partition (GUdevClient *client, const VsmDevice *d)
{
  g_autoptr (GPtrArray) partitions = vsm_sysfs_disk_partitions (d->syspath);
  GUdevDevice *first = NULL;

  for (guint i = 0; i < partitions->len; i++)
    {
      g_autoptr (GUdevDevice) p =
        g_udev_client_query_by_sysfs_path (client, g_ptr_array_index (partitions, i));

      if (p == NULL || !vsm_fs_type_is_fat (g_udev_device_get_property (p, "ID_FS_TYPE")))
        continue;
      if (d->disk_fs_uuid &&
          g_strcmp0 (g_udev_device_get_property (p, "ID_FS_UUID"), d->disk_fs_uuid) == 0)
        {
          g_clear_object (&first);
          return g_steal_pointer (&p);
        }
      if (first == NULL)
        first = g_steal_pointer (&p);
    }
  return first;
}

void
vsm_udev_disk_fs_facts (GUdevClient *client, VsmDevice *d)
{
  g_autoptr (GUdevDevice) p = NULL;
  g_autoptr (VsmState) s = NULL;

  if (d->is_partition || d->fs_type != NULL || d->syspath == NULL)
    return;
  p = fat_partition (client, d);
  if (p != NULL)
    {
      d->fs_type = g_strdup (g_udev_device_get_property (p, "ID_FS_TYPE"));
      g_free (d->fs_label);
      d->fs_label = g_strdup (g_udev_device_get_property (p, "ID_FS_LABEL"));
      return;
    }
  /* the partitions' events may not have run yet (at the plug) or their
   * entries hold nothing: keep what the record knows */
  s = d->bdi ? vsm_state_load (d->bdi, NULL) : NULL;
  if (s != NULL && vsm_fs_type_is_fat (s->fs_type))
    d->fs_type = g_strdup (s->fs_type);
}

/* the names udisks matches a configuration section against: the node and
 * its links */
static GStrv
device_names (const char *const *envp)
{
  const char *node = envp ? g_environ_getenv ((char **)envp, "DEVNAME") : NULL;
  const char *links = envp ? g_environ_getenv ((char **)envp, "DEVLINKS") : NULL;
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_auto (GStrv) split = links ? g_strsplit (links, " ", -1) : NULL;

  if (node != NULL)
    g_strv_builder_add (b, node);
  for (char **l = split; l && *l; l++)
    if (**l != '\0')
      g_strv_builder_add (b, *l);
  return g_strv_builder_end (b);
}

/* udisks' layers below ours, with the plan's flush mode */
static char *
udisks_defaults (const VsmPlan *p, const char *const *envp, const char *udisks_conf)
{
  g_auto (GStrv) names = device_names (envp);
  g_autofree char *configured =
    vsm_udisks_configured_defaults (udisks_conf, p->fs_type, (const char *const *)names);
  char *layered = vsm_udisks_defaults_for_plan (p, configured);

  /* an admin's value with characters a udev line cannot carry: the plan's
   * own copy of udisks' built-in set, as before */
  if (!safe_value (layered))
    {
      g_free (layered);
      layered = g_strdup (p->udisks_defaults);
    }
  return layered;
}

GPtrArray *
vsm_udev_properties (const VsmAssessment *a, gboolean applied, gboolean is_fs,
                     const char *const *envp, const char *udisks_conf)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  const VsmPlan *p = a->plan;
  g_autofree char *upper = NULL;
  g_autofree char *kdef = NULL;
  g_autofree char *layered = NULL;

  add (out, "VFAT_SMART_CLASS", vsm_class_to_string (p->klass));
  add (out, "VFAT_SMART_FLUSH_MODE", vsm_flush_mode_to_string (p->flush_mode));
  add (out, "VFAT_SMART_MANAGED", p->managed ? "1" : "0");
  if (p->cap_bytes > 0 && applied)
    {
      g_autofree char *cap = g_strdup_printf ("%" G_GUINT64_FORMAT, p->cap_bytes);
      add (out, "VFAT_SMART_DIRTY_CAP", cap);
    }

  /* only where vfat-smart changes something do udisks' own defaults step
   * aside; a cap that could not be applied never means "no flush" */
  if (!is_fs || p->fs_type == NULL || !p->managed || !applied)
    return out;

  upper = g_ascii_strup (p->fs_type, -1);
  /* only the defaults: an _ALLOW set would replace udisks' own list whole */
  kdef = g_strdup_printf ("UDISKS_MOUNT_OPTIONS_%s_DEFAULTS", upper);
  layered = udisks_defaults (p, envp, udisks_conf);
  add (out, kdef, layered);
  return out;
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

gboolean
vsm_udev_note_answer (const char *const *envp, const char *bdi, gboolean answered, GError **error)
{
  g_autofree char *dir = vsm_path (VSM_ROOT_STATE, VSM_UDEV_ANSWERED_DIR, NULL);
  g_autofree char *prefix = device_prefix (envp);
  g_autofree char *stamp = answered ? vsm_udev_answer_stamp (envp) : NULL;
  g_autofree char *path = NULL;
  g_autoptr (GDir) d = NULL;
  const char *name;

  if (prefix == NULL)
    return TRUE;
  d = g_dir_open (dir, 0, NULL);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      {
        g_autofree char *old = g_build_filename (dir, name, NULL);
        if (g_unlink (old) != 0 && errno != ENOENT)
          {
            int e = errno;
            g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", old,
                         g_strerror (e));
            return FALSE;
          }
      }
  if (stamp == NULL)
    return TRUE;
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: %s", dir, g_strerror (e));
      return FALSE;
    }
  path = g_build_filename (dir, stamp, NULL);
  return g_file_set_contents_full (path, bdi ? bdi : "", -1, G_FILE_SET_CONTENTS_NONE, 0644, error);
}

void
vsm_udev_forget_answers (const char *bdi)
{
  g_autofree char *dir = vsm_path (VSM_ROOT_STATE, VSM_UDEV_ANSWERED_DIR, NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *of = NULL;

      if (g_file_get_contents (path, &of, NULL, NULL) && g_strcmp0 (of, bdi) == 0)
        (void)g_unlink (path);
    }
}
