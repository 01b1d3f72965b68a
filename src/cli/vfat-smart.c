/* vfat-smart.c - the command line front end
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-display.h"
#include "vsm-program.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

static const CliCommand commands[] = {
  { "classify", N_ ("DEVICE"), N_ ("Show what kind of drive DEVICE is, and why"), cli_classify },
  { "plan", N_ ("DEVICE"), N_ ("Show the mount options and knobs vfat-smart would use"), cli_plan },
  { "apply", N_ ("DEVICE"), N_ ("Apply the plan's writeback knobs and record the old values"),
    cli_apply },
  { "restore", N_ ("DEVICE|--all"), N_ ("Put the recorded values back and forget the drive"),
    cli_restore },
  { "forget", N_ ("DEVICE|MAJ:MIN"), N_ ("Drop a drive's record without writing any knob"),
    cli_forget },
  { "probe", "", N_ ("Tell by its behaviour whether fat has the flush fix (root)"), cli_probe },
  { "status", N_ ("[DEVICE]"), N_ ("Show managed drives: knobs, mounts, I/O, data at risk"),
    cli_status },
  { "watch", N_ ("[DEVICE]"),
    N_ ("A live line per drive from vfat-smartd: at risk, bandwidth, time"), cli_watch },
  { "agent", "", N_ ("Run in your session: your settings to your drives, \"safe to unplug\""),
    cli_agent },
};

/* options every command that has them takes, also before the command */
static gboolean
is_global_option (const char *arg)
{
  return g_str_equal (arg, "--json") || g_str_equal (arg, "-j");
}

/* vfat-smart --json status -> vfat-smart status --json: the global options
 * before the command move behind it, where its parser reads them. Returns
 * the index of the command in argv (argc when there is none). */
static int
move_global_options (int argc, char **argv)
{
  int first = 1;

  while (first < argc && is_global_option (argv[first]))
    first++;
  if (first == 1 || first == argc)
    return first;
  /* rotate: the command first, then the options it was given before it */
  {
    char *command = argv[first];
    memmove (&argv[2], &argv[1], (gsize)(first - 1) * sizeof (char *));
    argv[1] = command;
  }
  return 1;
}

static void
print_usage (FILE *to)
{
  fprintf (to, _ ("Usage: vfat-smart [--json] COMMAND [OPTIONS] [DEVICE]\n\n"));
  fprintf (to, _ ("Fast and safe copies to removable FAT/exFAT drives.\n\nCommands:\n"));
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      /* the placeholders are translated: pad by characters, not bytes */
      const char *args = *commands[i].args ? _ (commands[i].args) : "";
      int pad = 14 - (int)g_utf8_strlen (args, -1);

      fprintf (to, "  %-9s %s%*s %s\n", commands[i].name, args, MAX (pad, 0), "",
               _ (commands[i].summary));
    }
  fprintf (to, _ ("\nDEVICE is a device node (/dev/sdb1), a /dev/disk/by-* link, LABEL=, UUID=,\n"
                  "or a mount point. Each command takes --help; classify, plan, apply,\n"
                  "status and probe take --json, before or after the command.\n\n"));
  cli_print_exit_statuses (to);
  fprintf (to, _ ("\nSee vfat-smart(1) and vfat-smart-policy(5).\n"));
}

int
main (int argc, char **argv)
{
  g_autofree char *shown = NULL;

  vsm_init_program ("vfat-smart");

  if (argc < 2 || move_global_options (argc, argv) == argc)
    {
      print_usage (stderr);
      return 2;
    }
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      print_usage (stdout);
      return 0;
    }
  if (g_str_equal (argv[1], "--version") || g_str_equal (argv[1], "-V"))
    {
      g_print ("vfat-smart %s\n", PACKAGE_VERSION);
      return 0;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].run (argc - 1, argv + 1);

  shown = vsm_sanitize_for_display (argv[1]);
  g_printerr (_ ("vfat-smart: unknown command '%s'\n"), shown);
  g_printerr (_ ("Try 'vfat-smart --help'.\n"));
  return 2;
}
