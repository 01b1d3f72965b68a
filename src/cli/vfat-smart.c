/* vfat-smart.c - the command line front end
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

static const CliCommand commands[] = {
  { "classify", "DEVICE", N_ ("Show what kind of drive DEVICE is, and why"), cli_classify },
  { "plan", "DEVICE", N_ ("Show the mount options and knobs vfat-smart would use"), cli_plan },
  { "apply", "DEVICE", N_ ("Apply the plan's writeback knobs and record the old values"),
    cli_apply },
  { "restore", "DEVICE|--all", N_ ("Put the recorded values back and forget the drive"),
    cli_restore },
  { "status", "[DEVICE]", N_ ("Show managed drives: knobs, mounts, I/O, data at risk"),
    cli_status },
};

#define LABEL_WIDTH 14

gboolean
cli_parse (const char *command, const char *args, const char *summary, GOptionEntry *entries,
           int *argc, char ***argv)
{
  g_autofree char *param = g_strdup_printf ("%s %s", command, args);
  g_autoptr (GOptionContext) ctx = g_option_context_new (param);
  g_autoptr (GError) error = NULL;

  g_option_context_set_summary (ctx, summary);
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, argc, argv, &error))
    {
      g_printerr ("vfat-smart %s: %s\n", command, error->message);
      g_printerr (_ ("Try 'vfat-smart %s --help'.\n"), command);
      return FALSE;
    }
  return TRUE;
}

int
cli_usage_error (const char *command, const char *format, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("vfat-smart %s: %s\n", command, msg);
  g_printerr (_ ("Try 'vfat-smart %s --help'.\n"), command);
  return 2;
}

int
cli_fail (const GError *error)
{
  g_printerr ("vfat-smart: %s\n", error->message);
  return vsm_error_to_exit_status (error);
}

void
cli_print_json (JsonNode *node)
{
  g_autofree char *text = vsm_json_to_string (node);
  g_print ("%s\n", text);
  json_node_unref (node);
}

void
cli_field (const char *label, const char *format, ...)
{
  va_list args;
  g_autofree char *value = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *l = g_strconcat (label, *label ? ":" : "", NULL);
  int pad = LABEL_WIDTH - (int)g_utf8_strlen (l, -1);

  va_start (args, format);
  value = g_strdup_vprintf (format, args);
  va_end (args);
  clean = vsm_sanitize_for_display (value);
  g_print ("%s%*s %s\n", l, MAX (pad, 0), "", clean);
}

void
cli_list (const char *label, GPtrArray *lines)
{
  /* indented like the label */
  int indent = (int)strspn (label, " ");

  g_print ("%s:\n", label);
  for (guint i = 0; lines && i < lines->len; i++)
    {
      g_autofree char *clean = vsm_sanitize_for_display (g_ptr_array_index (lines, i));
      g_print ("%*s  - %s\n", indent, "", clean);
    }
}

int
cli_assess_command (const char *command, const char *summary, int argc, char **argv, gboolean *json,
                    VsmAssessment **out)
{
  g_autofree char *forced = NULL;
  GOptionEntry entries[] = { { "json", 'j', 0, G_OPTION_ARG_NONE, json, N_ ("Print JSON"), NULL },
                             { "class", 'c', 0, G_OPTION_ARG_STRING, &forced,
                               N_ ("Treat the drive as CLASS (usb-stick, usb-stick-uas, usb-ssd, "
                                   "usb-hdd, card-reader, unknown, internal)"),
                               "CLASS" },
                             { NULL } };
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (GError) error = NULL;
  VsmClass klass = VSM_CLASS_UNKNOWN;

  if (!cli_parse (command, "DEVICE", summary, entries, &argc, &argv))
    return 2;
  if (argc != 2)
    return cli_usage_error (command, _ ("expected exactly one DEVICE"));
  if (forced != NULL && !vsm_class_from_string (forced, &klass))
    return cli_usage_error (command, _ ("unknown class '%s'"), forced);

  client = g_udev_client_new (NULL);
  *out = vsm_assess (client, argv[1], NULL, &error);
  if (*out == NULL)
    return cli_fail (error);
  if (forced != NULL)
    vsm_assessment_set_class (*out, klass);
  return -1;
}

static void
print_usage (FILE *to)
{
  fprintf (to, _ ("Usage: vfat-smart COMMAND [OPTIONS] [DEVICE]\n\n"));
  fprintf (to, _ ("Fast and safe copies to removable FAT/exFAT drives.\n\nCommands:\n"));
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (to, "  %-9s %-14s %s\n", commands[i].name, commands[i].args, _ (commands[i].summary));
  fprintf (to, _ ("\nDEVICE is a device node (/dev/sdb1), a /dev/disk/by-* link, LABEL=, UUID=,\n"
                  "or a mount point. Each command takes --help; classify, plan, apply and\n"
                  "status take --json.\n\n"
                  "Exit status: 0 success, 1 failure, 2 usage error, 3 no such device,\n"
                  "4 device or kernel not supported, 5 permission denied (needs root),\n"
                  "6 a knob could not be written (everything was put back), 7 state\n"
                  "file problem, 8 device not managed.\n\n"
                  "See vfat-smart(1) and vfat-smart-policy(5).\n"));
}

int
main (int argc, char **argv)
{
  vsm_init_program ("vfat-smart");

  if (argc < 2)
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

  g_printerr (_ ("vfat-smart: unknown command '%s'\n"), argv[1]);
  g_printerr (_ ("Try 'vfat-smart --help'.\n"));
  return 2;
}
