/* vfat-smart-plan.c - `vfat-smart plan`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"

/* every label of cli_field below */
static const char *const labels[] = {
  N_ ("Device"), N_ ("Class"), N_ ("Flush mode"), N_ ("Mount -o"), N_ ("Knobs"),
  N_ ("Kernel"), NULL,
};

int
cli_plan (int argc, char **argv)
{
  gboolean json = FALSE;
  g_autoptr (VsmAssessment) a = NULL;
  const VsmPlan *p;
  g_autoptr (GString) knobs = g_string_new (NULL);
  int rc;

  if (!cli_assess_command (
        "plan",
        _ ("Show the mount options and writeback knobs vfat-smart would use for DEVICE,\n"
           "on this kernel and with the current policy. Changes nothing."),
        argc, argv, &json, &a, &rc))
    return rc;

  if (json)
    {
      cli_print_json (vsm_json_plan (a));
      return 0;
    }

  p = a->plan;
  cli_field_labels (labels);
  for (guint i = 0; i < p->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (p->knobs, i);
      g_string_append_printf (knobs, "%s%s=%s", i ? ", " : "", k->name, k->value);
    }
  cli_field (_ ("Device"), "%s (bdi %s)", a->device->devnode, a->device->bdi);
  cli_field (_ ("Class"), "%s%s", vsm_class_to_string (p->klass),
             p->managed ? "" : _ (" (left alone)"));
  cli_field (_ ("Flush mode"), "%s", vsm_flush_mode_to_string (p->flush_mode));
  cli_field (_ ("Mount -o"), "%s",
             p->mount_options ? p->mount_options : _ ("(not FAT: not chosen)"));
  cli_field (_ ("Knobs"), "%s", knobs->len ? knobs->str : _ ("none"));
  cli_field (_ ("Kernel"), _ ("%s; flush fix %s"), a->kernel->release ? a->kernel->release : "?",
             vsm_flush_fix_to_string (a->kernel->flush_fix));
  cli_reasons (_ ("Why"), p->reasons);
  return 0;
}
