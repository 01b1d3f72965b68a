/* vfat-smart-udev.c - run by udev (IMPORT{program}) for USB and MMC disks
 * and their FAT partitions: classify, apply the knobs of the system-wide
 * plan, and print the properties udisks reads its mount options from.
 *
 * Fast, never blocks on the device (no superblock probing: filesystem facts
 * come from the udev event), never fails the rule: exit status is always 0
 * unless called wrongly.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-udev.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>

static void
override_from_event (VsmDevice *d)
{
  const char *type = g_getenv ("ID_FS_TYPE");

  /* the event's own ID_FS_*: the database still holds the previous event */
  if (type == NULL)
    return;
  g_free (d->fs_type);
  g_free (d->fs_label);
  g_free (d->fs_uuid);
  d->fs_type = *type ? g_strdup (type) : NULL;
  d->fs_label = g_strdup (g_getenv ("ID_FS_LABEL"));
  d->fs_uuid = g_strdup (g_getenv ("ID_FS_UUID"));
  d->superfloppy =
    !d->is_partition && d->fs_type != NULL && g_getenv ("ID_PART_TABLE_TYPE") == NULL;
}

static int
forget (const char *bdi)
{
  g_autoptr (GError) error = NULL;

  if (!vsm_knobs_restore (bdi, NULL, &error))
    {
      if (!g_error_matches (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        {
          syslog (LOG_WARNING, "bdi %s removed: %s", bdi, error->message);
          fprintf (stderr, "vfat-smart-udev: bdi %s removed: %s\n", bdi, error->message);
        }
      return 0;
    }
  syslog (LOG_INFO, "bdi %s removed: state forgotten", bdi);
  return 0;
}

int
main (int argc, char **argv)
{
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (GUdevDevice) dev = NULL;
  g_autoptr (VsmDevice) d = NULL;
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) state = NULL;
  g_autoptr (GPtrArray) props = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *syspath = NULL;
  const char *action = g_getenv ("ACTION");
  gint64 t0 = g_get_monotonic_time ();
  gboolean applied = TRUE;

  vsm_init_program ("vfat-smart-udev");
  /* GSettings' dconf backend may try the session bus for change
   * notifications; a system helper has none: fail fast, never autolaunch */
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/vfat-smart", FALSE);
  vsm_device_disable_probing ();

  if (argc > 2 || (argc == 2 && g_str_equal (argv[1], "--help")))
    {
      fprintf (stderr,
               "usage: %s [SYSPATH]  (run by udev; DEVPATH, ACTION, ID_FS_* from the event)\n",
               argv[0]);
      return argc == 2 ? 0 : 2;
    }
  syspath = argc == 2
              ? g_strdup (argv[1])
              : (g_getenv ("DEVPATH") ? g_strconcat ("/sys", g_getenv ("DEVPATH"), NULL) : NULL);
  if (syspath == NULL)
    {
      fprintf (stderr, "%s: no DEVPATH in the environment and no SYSPATH given\n", argv[0]);
      return 2;
    }

  if (g_strcmp0 (action, "remove") == 0)
    {
      const char *maj = g_getenv ("MAJOR"), *min = g_getenv ("MINOR");
      g_autofree char *bdi = NULL;
      if (maj == NULL || min == NULL || g_strcmp0 (g_getenv ("DEVTYPE"), "disk") != 0)
        return 0;
      bdi = g_strdup_printf ("%s:%s", maj, min);
      return forget (bdi);
    }

  client = g_udev_client_new (NULL);
  dev = g_udev_client_query_by_sysfs_path (client, syspath);
  if (dev == NULL)
    return 0; /* gone already */
  d = vsm_device_new_from_udev (client, dev, NULL, &error);
  if (d == NULL)
    {
      syslog (LOG_WARNING, "%s: %s", syspath, error->message);
      return 0;
    }
  override_from_event (d);
  a = vsm_assess_device (d, NULL);
  d = NULL; /* owned by the assessment */

  if (a->plan->managed)
    {
      state = vsm_knobs_apply (a->device, a->plan, "udev", &error);
      if (state == NULL)
        {
          applied = FALSE;
          syslog (LOG_WARNING, "%s: knobs not applied, udisks keeps its defaults: %s",
                  a->device->devnode, error->message);
        }
    }
  else
    {
      /* left alone (policy, ignore list, internal): undo an earlier apply */
      vsm_knobs_restore (a->device->bdi, NULL, NULL);
    }

  props = vsm_udev_properties (a, applied, a->device->is_partition || a->device->superfloppy);
  for (guint i = 0; i < props->len; i++)
    printf ("%s\n", (char *)g_ptr_array_index (props, i));

  syslog (LOG_INFO, "%s %s: class %s, %s%s, %.1f ms", action ? action : "run", a->device->devnode,
          vsm_class_to_string (a->classification->klass),
          vsm_flush_mode_to_string (a->plan->flush_mode),
          a->plan->managed ? (applied ? ", knobs applied" : ", knobs FAILED") : ", left alone",
          (double)(g_get_monotonic_time () - t0) / 1000.0);
  return 0;
}
