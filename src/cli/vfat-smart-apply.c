/* vfat-smart-apply.c - `vfat-smart apply`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm.h"

#include <unistd.h>

static void
print_state (const VsmState *s)
{
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
}

/* Not root, a drive vfat-smartd manages, and a class a person chose:
 * ApplyWith through the daemon (polkit decides, as for Apply), which keeps
 * the class in the record for every later apply. Otherwise as Apply. */
static gboolean
apply_by_daemon (const VsmAssessment *a, gboolean *by_daemon, GError **error)
{
  g_autoptr (VsmDbusManager) m = NULL;
  g_autoptr (VsmDbusDevice) d = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (GVariant) reply = NULL;
  GVariantBuilder b;

  *by_daemon = FALSE;
  if (a->intent == NULL || !a->intent->set_class)
    return cli_daemon_try (a->device->bdi, "Apply", by_daemon, error);
  if (geteuid () == 0 || !vsm_paths_are_system ())
    return TRUE;
  m = cli_daemon_manager (TRUE, NULL);
  path = cli_daemon_device_path (a->device->bdi);
  d = m ? cli_daemon_device (path, NULL) : NULL;
  if (d == NULL || vsm_dbus_device_get_bdi (d) == NULL)
    return TRUE;
  *by_daemon = TRUE;
  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "class",
                         g_variant_new_string (vsm_class_to_string (a->intent->klass)));
  reply =
    g_dbus_proxy_call_sync (G_DBUS_PROXY (d), "ApplyWith", g_variant_new ("(a{sv})", &b),
                            G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, 60000, NULL, &local);
  if (reply != NULL)
    return TRUE;
  if (g_error_matches (local, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
    /* a vfat-smartd from before ApplyWith: the class would be dropped */
    g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_SUPPORTED,
                 _ ("the running vfat-smartd cannot take --class (restart it after an upgrade, "
                    "or run this as root); nothing was changed"));
  else
    g_propagate_error (error, cli_daemon_error (local));
  return FALSE;
}

int
cli_apply (int argc, char **argv)
{
  const VsmApplyOptions options = { VSM_SOURCE_CLI, 0 };
  gboolean json = FALSE;
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) error = NULL;
  gboolean by_daemon = FALSE;
  int rc;

  if (!cli_assess_command (
        "apply",
        _ ("Write the plan's writeback knobs for the disk DEVICE is on, reading\n"
           "each back. The old values are recorded under /run/vfat-smart first\n"
           "and `vfat-smart restore` puts them back. On any failure every knob\n"
           "written is put back and the record is left as it was. Needs root.\n"
           "Mount options are not changed here: `vfat-smart plan` shows them.\n"
           "Without root, a drive vfat-smartd manages is applied through it (polkit)."),
        argc, argv, &json, &a, &rc))
    return rc;
  if (!apply_by_daemon (a, &by_daemon, &error))
    return cli_fail (error);
  if (by_daemon && (s = vsm_state_load (a->device->bdi, &error)) == NULL)
    return cli_fail (error);
  if (!by_daemon && !vsm_assessment_apply (a, &options, NULL, NULL, &s, &error))
    return cli_fail (error);
  if (s == NULL)
    {
      /* what an earlier apply left was put back */
      g_autofree char *why =
        a->plan->left_alone ? vsm_reason_to_display (a->plan->left_alone) : NULL;
      g_set_error (&error, VSM_ERROR, VSM_ERROR_LEFT_ALONE, _ ("%s is left alone: %s"),
                   a->device->disk_node, why ? why : "?");
      return cli_fail (error);
    }
  if (json)
    cli_print_json (vsm_json_state (s));
  else
    print_state (s);
  return 0;
}
