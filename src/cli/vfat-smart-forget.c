/* vfat-smart-forget.c - `vfat-smart forget`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-display.h"
#include "vsm.h"

#include <string.h>

static int
forget_history (const char *what)
{
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *identity = NULL;
  g_autofree char *shown = NULL;

  if (!vsm_forget_drive_history (client, what, &identity, &error))
    return cli_fail (error);
  shown = vsm_sanitize_for_display (identity);
  g_print (_ ("Forgotten history: %s\n"), shown);
  return 0;
}

int
cli_forget (int argc, char **argv)
{
  gboolean history = FALSE;
  GOptionEntry entries[] = {
    { "history", 0, 0, G_OPTION_ARG_NONE, &history,
      N_ ("Drop what the daemon learned about the drive (its bandwidth and past mounts) instead; "
          "DEVICE may also be a drive identity such as usb:VID:PID:SERIAL"),
      NULL },
    { NULL }
  };
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autofree char *bdi = NULL;
  g_autofree char *shown = NULL;
  gboolean ok;
  int rc;

  if (!cli_parse ("forget", N_ ("[--history] DEVICE|MAJ:MIN|FILE.state"),
                  _ ("Drop what vfat-smart recorded for a drive without writing any of its\n"
                     "knobs: for a record that cannot be trusted (see `vfat-smart status`)\n"
                     "or a drive whose knobs someone else has put back. The vm.* knobs are\n"
                     "still restored when this drive was their last user. Needs root (exit\n"
                     "status 5 without it); exit status 8 when nothing is recorded."),
                  entries, &argc, &argv))
    return 2;
  if (argc != 2)
    return cli_usage_error ("forget", _ ("expected exactly one DEVICE, MAJ:MIN or FILE.state"));

  if ((rc = cli_needs_root ("forget")) != 0)
    return rc;

  if (history)
    return forget_history (argv[1]);
  if (g_str_has_suffix (argv[1], ".state") && strchr (argv[1], '/') == NULL)
    ok = vsm_forget_file (argv[1], &error);
  else
    ok = (bdi = vsm_bdi_of (argv[1], &error)) != NULL && vsm_forget (bdi, 0, report, &error);
  cli_print_lines (report);
  if (!ok)
    return cli_fail (error);
  shown = vsm_sanitize_for_display (bdi ? bdi : argv[1]);
  g_print (_ ("Forgotten: %s\n"), shown);
  return 0;
}
