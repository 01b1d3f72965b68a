/* mount-vfat-smart.c - mount.vfat-smart, run by mount(8) for -t vfat-smart
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-display.h"
#include "vsm-mount-helper.h"
#include "vsm-program.h"

#include <glib/gi18n.h>
#include <libmount.h>
#include <locale.h>
#include <stdio.h>
#include <syslog.h>

static void
usage (FILE *to)
{
  fprintf (to,
           _ ("Usage: mount.vfat-smart SPEC DIR [-sfnrvw] [-N NAMESPACE] [-o OPTIONS] [-t TYPE]\n\n"
              "Mounts a FAT or exFAT filesystem with the options and writeback knobs\n"
              "vfat-smart chooses for the drive; options given with -o win over the plan\n"
              "(flush or sync turn the dirty cap off). Usually run by mount(8):\n"
              "  mount -t vfat-smart /dev/sdb1 /mnt -o uid=1000\n\n"
              "  -f  fake: plan, but change nothing     -n  do not write utab\n"
              "  -s  tolerate unknown options           -r  read-only   -w  read-write\n"
              "  -v  say what is done and why           -o  options     -N  mount namespace\n"
              "  -o vfat-smart.class=CLASS              treat the drive as CLASS\n\n"
              "Exit status as mount(8): 0 success, 1 usage or permissions, 32 mount failure.\n"
              "See mount.vfat-smart(8).\n"));
}

int
main (int argc, char **argv)
{
  VsmMountRequest req;
  g_autofree char *options = NULL;
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  gboolean verbose = FALSE;
  int rc;

  vsm_init_program ("mount.vfat-smart");

  if (argc == 2 && (g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "--help")))
    {
      usage (stdout);
      return MNT_EX_SUCCESS;
    }
  if (argc == 2 && (g_str_equal (argv[1], "-V") || g_str_equal (argv[1], "--version")))
    {
      printf ("mount.vfat-smart (vfat-smart %s)\n", PACKAGE_VERSION);
      return MNT_EX_SUCCESS;
    }
  if (!vsm_mount_parse_args (argc, argv, &req, &verbose, &options, &message))
    {
      fprintf (stderr, "mount.vfat-smart: %s\n", message);
      usage (stderr);
      return MNT_EX_USAGE;
    }

  vsm_mount_run (&req, notes, &error);
  rc = vsm_mount_error_to_exit_status (error);
  if (verbose)
    vsm_print_notes ("mount.vfat-smart", notes);
  if (error != NULL)
    {
      g_autofree char *clean = vsm_sanitize_for_display (error->message);
      fprintf (stderr, "mount.vfat-smart: %s\n", clean);
      syslog (LOG_ERR, "%s", clean);
    }
  return rc;
}
