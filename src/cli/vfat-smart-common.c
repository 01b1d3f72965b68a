/* vfat-smart-common.c - what the vfat-smart subcommands share
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-display.h"

#include "vsm.h"

#include <string.h>
#include <unistd.h>

/* the least width of "Label:"; more when a screen's labels are wider (a
 * translation): cli_field_labels */
#define LABEL_WIDTH 14
static glong label_width = LABEL_WIDTH;

gboolean
cli_parse (const char *command, const char *args, const char *summary, GOptionEntry *entries,
           int *argc, char ***argv)
{
  /* args: an N_ () placeholder such as "DEVICE", or "" */
  g_autofree char *param = g_strdup_printf ("%s %s", command, *args ? _ (args) : "");
  g_autoptr (GOptionContext) ctx = g_option_context_new (param);
  g_autoptr (GError) error = NULL;

  g_option_context_set_summary (ctx, summary);
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (ctx, argc, argv, &error))
    {
      /* the message quotes the option as given */
      g_autofree char *clean = vsm_sanitize_for_display (error->message);
      g_printerr ("vfat-smart %s: %s\n", command, clean);
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
  g_autofree char *clean = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  /* it may quote an argument: never a raw control character */
  clean = vsm_sanitize_for_display (msg);
  g_printerr ("vfat-smart %s: %s\n", command, clean);
  g_printerr (_ ("Try 'vfat-smart %s --help'.\n"), command);
  return 2;
}

int
cli_needs_root (const char *command)
{
  if (geteuid () == 0 || !vsm_paths_are_system ())
    return 0;
  g_printerr (_ ("vfat-smart %s: needs root (try sudo)\n"), command);
  return 5;
}

int
cli_fail (const GError *error)
{
  g_autofree char *clean = vsm_sanitize_for_display (error->message);
  g_printerr ("vfat-smart: %s\n", clean);
  return cli_exit_status (error);
}

void
cli_print_lines (GPtrArray *lines)
{
  for (guint i = 0; lines && i < lines->len; i++)
    {
      g_autofree char *clean = vsm_sanitize_for_display (g_ptr_array_index (lines, i));
      g_print ("%s\n", clean);
    }
}

void
cli_print_json (JsonNode *node)
{
  g_autofree char *text = vsm_json_to_string (node);
  g_print ("%s\n", text);
  json_node_unref (node);
}

void
cli_field_labels (const char *const *labels)
{
  label_width = LABEL_WIDTH;
  for (; labels && *labels; labels++)
    label_width = MAX (label_width, vsm_display_width (_ (*labels)) + 1);
}

void
cli_field (const char *label, const char *format, ...)
{
  va_list args;
  g_autofree char *value = NULL;
  g_autofree char *clean = NULL;
  g_autofree char *l = g_strconcat (label, *label ? ":" : "", NULL);
  int pad = (int)(label_width - vsm_display_width (l));

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

void
cli_reasons (const char *label, GPtrArray *reasons)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; reasons && i < reasons->len; i++)
    g_ptr_array_add (lines, vsm_reason_to_display (g_ptr_array_index (reasons, i)));
  cli_list (label, lines);
}

gboolean
cli_assess_command (const char *command, const char *summary, int argc, char **argv, gboolean *json,
                    VsmAssessment **out, int *exit_status)
{
  g_autofree char *forced = NULL;
  GOptionEntry entries[] = { { "json", 'j', 0, G_OPTION_ARG_NONE, json, N_ ("Print JSON"), NULL },
                             { "class", 'c', 0, G_OPTION_ARG_STRING, &forced,
                               N_ ("Treat the drive as CLASS (usb-stick, usb-stick-uas, usb-ssd, "
                                   "usb-hdd, card-reader, unknown, internal)"),
                               N_ ("CLASS") },
                             { NULL } };
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (GError) error = NULL;
  VsmOverrides o = { 0 };

  *exit_status = 2;
  if (!cli_parse (command, N_ ("DEVICE"), summary, entries, &argc, &argv))
    return FALSE;
  if (argc != 2)
    {
      cli_usage_error (command, _ ("expected exactly one DEVICE"));
      return FALSE;
    }
  if (forced != NULL && !vsm_class_from_string (forced, &o.klass))
    {
      cli_usage_error (command, _ ("unknown class '%s'"), forced);
      return FALSE;
    }
  o.set_class = forced != NULL;

  client = g_udev_client_new (NULL);
  *out = vsm_assess (client, argv[1], NULL, &o, &error);
  if (*out == NULL)
    {
      *exit_status = cli_fail (error);
      return FALSE;
    }
  *exit_status = 0;
  return TRUE;
}
