/* vfat-smart-restore.c - `vfat-smart restore`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"

int
cli_restore (int argc, char **argv)
{
  gboolean all = FALSE;
  GOptionEntry entries[] = {
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all, N_ ("Restore every managed drive"), NULL }, { NULL }
  };
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *bdi = NULL;
  gboolean ok, by_daemon = FALSE;

  if (!cli_parse ("restore", N_ ("DEVICE|--all"),
                  _ ("Put back every value vfat-smart recorded for the disk DEVICE is on\n"
                     "(a drive that was unplugged needs nothing), and forget it. With --all,\n"
                     "every recorded drive; records that cannot be trusted are reported and\n"
                     "left alone (exit status 7). Needs root; without root, a drive\n"
                     "vfat-smartd manages is restored through it (polkit)."),
                  entries, &argc, &argv))
    return 2;
  if (all == (argc == 2) || argc > 2)
    return cli_usage_error ("restore", _ ("give either one DEVICE or --all"));

  if (all && cli_needs_root ("restore") != 0)
    return 5;
  if (all)
    ok = vsm_restore_all (report, &error);
  else
    ok = (bdi = vsm_bdi_of (argv[1], &error)) != NULL &&
         cli_daemon_try (bdi, "Restore", &by_daemon, &error) &&
         (by_daemon || vsm_restore (bdi, 0, report, &error));

  cli_print_lines (report);
  if (!ok)
    return cli_fail (error);
  if (by_daemon)
    g_print (_ ("Restored by vfat-smartd: %s\n"), bdi);
  if (all && report->len == 0)
    g_print (_ ("No managed drives.\n"));
  return 0;
}
