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

#include "vsm-program.h"
#include "vsm-udev.h"
#include "vsm.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>

static int
usage (const char *argv0, int status)
{
  fprintf (stderr, "usage: %s [SYSPATH]  (run by udev; DEVPATH, ACTION, ID_FS_* from the event)\n",
           argv0);
  return status;
}

static int
on_remove (void)
{
  const char *maj = g_getenv ("MAJOR"), *min = g_getenv ("MINOR");
  g_autofree char *bdi = NULL;
  g_autoptr (GError) error = NULL;

  if (maj == NULL || min == NULL || g_strcmp0 (g_getenv ("DEVTYPE"), "disk") != 0)
    return 0;
  bdi = g_strdup_printf ("%s:%s", maj, min);
  if (!vsm_unplug (bdi, &error))
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
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) state = NULL;
  g_autoptr (GPtrArray) props = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *syspath = NULL;
  const char *action = g_getenv ("ACTION");
  g_auto (GStrv) env = g_get_environ ();
  gint64 t0 = g_get_monotonic_time ();
  gboolean applied, is_fs;

  vsm_init_program ("vfat-smart-udev");
  /* GSettings' dconf backend may try the session bus for change
   * notifications; a system helper has none: fail fast, never autolaunch */
  g_setenv ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/vfat-smart", FALSE);
  vsm_device_disable_probing ();

  if (argc > 2 || (argc == 2 && g_str_equal (argv[1], "--help")))
    return usage (argv[0], argc == 2 ? 0 : 2);
  syspath = argc == 2
              ? g_strdup (argv[1])
              : (g_getenv ("DEVPATH") ? g_strconcat ("/sys", g_getenv ("DEVPATH"), NULL) : NULL);
  if (syspath == NULL)
    {
      fprintf (stderr, "%s: no DEVPATH in the environment and no SYSPATH given\n", argv[0]);
      return 2;
    }
  if (g_strcmp0 (action, "remove") == 0)
    return on_remove ();

  a = vsm_hotplug (syspath, (const char *const *)env, &applied, &state, notes, &error);
  for (guint i = 0; i < notes->len; i++)
    syslog (LOG_WARNING, "%s", (char *)g_ptr_array_index (notes, i));
  if (a == NULL)
    {
      if (error != NULL)
        syslog (LOG_WARNING, "%s: %s", syspath, error->message);
      return 0;
    }
  if (!applied)
    syslog (LOG_WARNING, "%s: knobs not applied, udisks keeps its defaults: %s", a->device->devnode,
            error->message);

  is_fs = a->device->is_partition || a->device->superfloppy;
  /* VFAT_SMART_UDISKS_CONF: another udisks configuration (tests) */
  props =
    vsm_udev_properties (a, applied, is_fs, (const char *const *)env,
                         g_getenv ("VFAT_SMART_UDISKS_CONF") ? g_getenv ("VFAT_SMART_UDISKS_CONF")
                                                             : VSM_UDISKS_MOUNT_OPTIONS_CONF);
  for (guint i = 0; i < props->len; i++)
    printf ("%s\n", (char *)g_ptr_array_index (props, i));
  syslog (LOG_INFO, "%s %s: class %s, %s%s, %.1f ms", action ? action : "run", a->device->devnode,
          vsm_class_to_string (a->classification->klass),
          vsm_flush_mode_to_string (a->plan->flush_mode),
          a->plan->managed ? (applied ? ", knobs applied" : ", knobs FAILED") : ", left alone",
          (double)(g_get_monotonic_time () - t0) / 1000.0);
  return 0;
}
