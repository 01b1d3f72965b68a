/* umount-vfat-smart.c - umount.vfat-smart, run by umount(8) for mounts that
 * mount.vfat-smart made (uhelper=vfat-smart in utab)
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
           _ ("Usage: umount.vfat-smart DIR [-flnrv] [-N NAMESPACE] [-t TYPE]\n\n"
              "Unmounts a filesystem mount.vfat-smart mounted, says how long that took\n"
              "and how much data was still unwritten, and puts the drive's writeback\n"
              "knobs back when no other mount of it remains. Usually run by umount(8).\n\n"
              "  -f  force   -l  lazy   -n  do not write utab   -r  remount read-only on failure\n"
              "  -v  verbose\n\n"
              "Exit status as umount(8): 0 success, 1 usage or permissions, 32 failure.\n"
              "See mount.vfat-smart(8).\n"));
}

int
main (int argc, char **argv)
{
  VsmUmountRequest req;
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  gboolean verbose = FALSE;
  int rc;

  vsm_init_program ("umount.vfat-smart");

  if (argc == 2 && (g_str_equal (argv[1], "-h") || g_str_equal (argv[1], "--help")))
    {
      usage (stdout);
      return MNT_EX_SUCCESS;
    }
  if (!vsm_umount_parse_args (argc, argv, &req, &verbose, &message))
    {
      fprintf (stderr, "umount.vfat-smart: %s\n", message);
      usage (stderr);
      return MNT_EX_USAGE;
    }

  vsm_umount_run (&req, notes, &error);
  rc = vsm_mount_error_to_exit_status (error);
  if (verbose)
    vsm_print_notes ("umount.vfat-smart", notes);
  if (error != NULL)
    {
      g_autofree char *clean = vsm_sanitize_for_display (error->message);
      fprintf (stderr, "umount.vfat-smart: %s\n", clean);
    }
  return rc;
}
