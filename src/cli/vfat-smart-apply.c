/* vfat-smart-apply.c - `vfat-smart apply` and `vfat-smart restore`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"

int
cli_apply (int argc, char **argv)
{
  gboolean json = FALSE;
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) error = NULL;
  int rc =
    cli_assess_command ("apply",
                        _ ("Write the plan's writeback knobs for the disk DEVICE is on, reading\n"
                           "each back. The old values are recorded under /run/vfat-smart and\n"
                           "`vfat-smart restore` puts them back. On any failure every knob is\n"
                           "put back and nothing is recorded. Needs root. Mount options are not\n"
                           "changed here: `vfat-smart plan` shows them."),
                        argc, argv, &json, &a);

  if (rc >= 0)
    return rc;
  s = vsm_assessment_apply (a, "cli", &error);
  if (s == NULL)
    return cli_fail (error);

  if (json)
    {
      cli_print_json (vsm_json_state (s));
      return 0;
    }
  g_print (_ ("%s (%s, %s): %s\n"), s->disk_node, s->bdi, s->class_name, s->flush_mode);
  for (guint i = 0; i < s->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (s->knobs, i);
      g_print ("  %-14s %s -> %s\n", r->name, r->original ? r->original : "?", r->readback);
    }
  if (s->knobs->len == 0)
    g_print (_ ("  no knobs to change on this kernel\n"));
  if (s->mount_options)
    g_print (_ ("  mount with: -o %s\n"), s->mount_options);
  return 0;
}

int
cli_restore (int argc, char **argv)
{
  gboolean all = FALSE;
  GOptionEntry entries[] = {
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all, N_ ("Restore every managed drive"), NULL }, { NULL }
  };
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (!cli_parse ("restore", "DEVICE|--all",
                  _ ("Put back every value vfat-smart recorded for the disk DEVICE is on\n"
                     "(a drive that was unplugged needs nothing), and forget it. Needs root."),
                  entries, &argc, &argv))
    return 2;
  if (all == (argc == 2) || argc > 2)
    return cli_usage_error ("restore", _ ("give either one DEVICE or --all"));

  if (all)
    ok = vsm_restore_all (report, &error);
  else
    {
      g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
      g_autoptr (VsmDevice) d = vsm_device_new_from_spec (client, argv[1], &error);
      ok = d != NULL && vsm_knobs_restore (d->bdi, report, &error);
    }

  for (guint i = 0; i < report->len; i++)
    g_print ("%s\n", (char *)g_ptr_array_index (report, i));
  if (!ok)
    return cli_fail (error);
  if (all && report->len == 0)
    g_print (_ ("No managed drives.\n"));
  return 0;
}
