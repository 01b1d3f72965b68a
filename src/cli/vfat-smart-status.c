/* vfat-smart-status.c - `vfat-smart status`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-mount.h"
#include "vsm-policy.h"

#include <unistd.h>

static const char *
drift_label (VsmDrift drift)
{
  switch (drift)
    {
    case VSM_DRIFT_CHANGED:
      return _ ("  <- CHANGED by someone else");
    case VSM_DRIFT_GONE:
      return _ ("  (gone)");
    case VSM_DRIFT_NONE:
    default:
      return "";
    }
}

static void print_io (const VsmStatusEntry *e);

/* the keys of the policy a drive's user meets: theirs, and the admin's
 * bounds on them */
static const char *const shown_keys[] = {
  "max-dirty-seconds",   "flush-mode",          "class-flush-modes",
  "ignore-devices",      "allow-user-tuning",   "user-max-dirty-seconds",
  "dirty-cap-min-bytes", "dirty-cap-max-bytes", NULL
};

/* the caller's own setting of key, when the caller set it */
static GVariant *
own_setting (GSettings *mine, const char *key)
{
  return mine ? g_settings_get_user_value (mine, key) : NULL;
}

static GSettings *
own_settings (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema =
    source ? g_settings_schema_source_lookup (source, VSM_SCHEMA_ID, TRUE) : NULL;

  return schema ? g_settings_new_full (schema, NULL, NULL) : NULL;
}

/* the policy in force for this drive (the daemon's Policy), each value's
 * origin; for the user who mounted it, their own settings not in force */
static void
print_policy (VsmDbusDevice *d)
{
  GVariant *policy = vsm_dbus_device_get_policy (d);
  gboolean mine = vsm_dbus_device_get_mounted_by (d) == getuid () && getuid () != 0;
  g_autoptr (GSettings) own = mine ? own_settings () : NULL;
  GVariantIter iter;
  const char *key, *value, *origin;
  gboolean first = TRUE;

  if (policy == NULL)
    return;
  g_variant_iter_init (&iter, policy);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &key, &value, &origin))
    {
      g_autoptr (GVariant) set = NULL;
      g_autofree char *set_text = NULL;

      if (!g_strv_contains (shown_keys, key))
        continue;
      cli_field (first ? _ ("  Policy") : "", "%-24s %s (%s)", key, value, origin);
      first = FALSE;
      set = vsm_policy_is_user_key (key) ? own_setting (own, key) : NULL;
      set_text = set ? g_variant_print (set, FALSE) : NULL;
      if (set_text && !g_str_equal (origin, "user"))
        cli_field ("", _ ("%-24s your %s is not in force (%s)"), "", set_text,
                   g_str_equal (origin, "locked")
                     ? _ ("locked by the administrator")
                     : _ ("user tuning is off, or `vfat-smart agent` does not run"));
    }
}

/* what vfat-smartd measured, when it runs (it is never started for this) */
static void
print_daemon (const VsmStatusEntry *e, VsmDbusManager *daemon)
{
  g_autofree char *path = NULL;
  g_autoptr (VsmDbusDevice) d = NULL;
  g_autofree char *bw = NULL, *risk = NULL;
  const char *history;

  if (daemon == NULL)
    return;
  path = cli_daemon_device_path (e->state->bdi);
  d = cli_daemon_device (path, NULL);
  if (d == NULL || vsm_dbus_device_get_bdi (d) == NULL)
    return;
  bw = vsm_format_rate ((double)vsm_dbus_device_get_write_bandwidth (d));
  risk = vsm_format_bytes (vsm_dbus_device_get_at_risk_bytes (d));
  cli_field (_ ("  vfat-smartd"), _ ("%s (%s); %s at risk, %.1f s to safe"), bw,
             vsm_dbus_device_get_write_bandwidth (d) ? vsm_dbus_device_get_bandwidth_source (d)
                                                     : _ ("nothing measured yet"),
             risk, vsm_dbus_device_get_seconds_to_safe (d));
  print_policy (d);
  history = vsm_dbus_device_get_history (d);
  /* newer than the file when the daemon just recorded a mount */
  if (e->history == NULL && history && *history)
    cli_field (_ ("  History"), "%s", history);
}

static void
print_history (const VsmStatusEntry *e)
{
  g_autofree char *text = NULL;

  if (e->history == NULL)
    return;
  text = vsm_drive_history_describe (e->history);
  cli_field (_ ("  History"), _ ("%s (%s)"), text, e->history->identity);
}

static void
print_entry (const VsmStatusEntry *e, VsmDbusManager *daemon)
{
  const VsmState *s = e->state;
  g_autoptr (GDateTime) when = g_date_time_new_from_unix_local (s->applied_at / G_USEC_PER_SEC);
  g_autofree char *when_s = when ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");

  g_print ("%s (bdi %s)%s%s\n", s->disk_node ? s->disk_node : "?", s->bdi,
           e->present ? "" : _ (" - UNPLUGGED; `vfat-smart restore --all` forgets it"),
           s->pending ? _ (" - AN APPLY WAS INTERRUPTED; the next apply or restore undoes it")
                      : "");
  cli_field (_ ("  Class"), "%s, serial %s", s->class_name ? s->class_name : "?",
             s->serial ? s->serial : "-");
  cli_field (_ ("  Flush mode"), _ ("%s (applied %s by %s)"), s->flush_mode ? s->flush_mode : "?",
             when_s, s->source ? s->source : "?");
  cli_field (_ ("  Safety"), "%s", e->safety_note);

  if (e->mounts->len == 0)
    cli_field (_ ("  Mounts"), _ ("not mounted"));
  for (guint i = 0; i < e->mounts->len; i++)
    {
      VsmMountInfo *m = g_ptr_array_index (e->mounts, i);
      cli_field (i == 0 ? _ ("  Mounts") : "", "%s on %s type %s (%s)", m->source, m->target,
                 m->fstype, m->options ? m->options : "");
    }

  if (e->knobs->len == 0)
    cli_field (_ ("  Knobs"), _ ("none (nothing to change on this kernel)"));
  for (guint i = 0; i < e->knobs->len; i++)
    {
      VsmKnobStatus *k = g_ptr_array_index (e->knobs, i);
      cli_field (i == 0 ? _ ("  Knobs") : "", "%-24s %s -> %s -> %s%s%s", k->record->name,
                 k->record->original ? k->record->original : "?",
                 k->record->applied ? k->record->applied : "?", k->now ? k->now : "-",
                 drift_label (k->drift),
                 !k->global ? ""
                 : k->drift == VSM_DRIFT_CHANGED
                   ? _ (" (acts on every disk; left alone, not restored)")
                   : _ (" (acts on every disk)"));
    }

  cli_list (_ ("  Why"), s->reasons);
  print_io (e);
  print_history (e);
  print_daemon (e, daemon);
}

static void
print_io (const VsmStatusEntry *e)
{
  if (e->io.valid)
    {
      g_autofree char *bytes = vsm_format_bytes (e->io.write_bytes);
      g_autofree char *avg = vsm_format_bytes ((guint64)e->io.avg_write_request_bytes);
      g_autofree char *rate = vsm_format_rate (e->io.write_throughput);
      g_autofree char *flushes = e->io.has_flush
                                   ? g_strdup_printf ("%" G_GUINT64_FORMAT, e->io.flush_ios)
                                   : g_strdup (_ ("not counted"));
      cli_field (
        _ ("  Written"), _ ("%s in %llu requests (avg %s), %s flushes, %s over %.1f s busy"), bytes,
        (unsigned long long)e->io.write_ios, avg, flushes, rate, (double)e->io.busy_ms / 1000.0);
    }
  else
    cli_field (_ ("  Written"), _ ("unknown (no baseline or the device changed)"));

  if (e->dirty.valid)
    {
      g_autofree char *dirty = vsm_format_bytes (e->dirty.dirty_bytes);
      g_autofree char *wb = vsm_format_bytes (e->dirty.writeback_bytes);
      g_autofree char *bw = vsm_format_rate ((double)e->dirty.bandwidth);
      cli_field (_ ("  Dirty now"), _ ("%s dirty, %s in writeback%s%s%s"), dirty, wb,
                 e->dirty.per_device ? _ (" (this device); kernel estimate ")
                                     : _ (" (whole system: debugfs not mounted)"),
                 e->dirty.per_device ? bw : "", "");
    }
  if (e->present)
    {
      g_autofree char *risk = vsm_format_bytes (e->at_risk_bytes);
      const char *scope = e->dirty.per_device ? "" : _ ("at most ");
      if (e->safe_bandwidth > 0)
        cli_field (_ ("  At risk"), _ ("%s%s; safe to unplug in about %.1f s (bandwidth: %s)"),
                   scope, risk, e->seconds_to_safe, _ (e->safe_bandwidth_source));
      else
        cli_field (_ ("  At risk"), "%s%s", scope, risk);
    }
  if (e->last_unmount != NULL)
    {
      g_autoptr (GDateTime) when =
        g_date_time_new_from_unix_local (e->last_unmount->at_usec / G_USEC_PER_SEC);
      g_autofree char *when_s = when ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : NULL;
      g_autofree char *dirty = vsm_format_bytes (e->last_unmount->dirty_bytes);
      cli_field (_ ("  Last unmount"), _ ("%s from %s took %.2f s with %s%s unwritten"),
                 when_s ? when_s : "?", e->last_unmount->target, e->last_unmount->seconds,
                 e->last_unmount->per_device ? "" : _ ("at most "), dirty);
    }
}

static int
print_untrusted (GPtrArray *corrupt)
{
  if (corrupt->len == 0)
    return 0;
  g_print ("\n");
  cli_list (_ ("Records that cannot be trusted (not obeyed; check the knobs they name, then "
               "`vfat-smart forget FILE`)"),
            corrupt);
  return 7;
}

int
cli_status (int argc, char **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = { { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print JSON"), NULL },
                             { NULL } };
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  g_autoptr (VsmStatus) status = NULL;
  g_autoptr (VsmKernel) kernel = NULL;
  g_autoptr (VsmPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *bdi = NULL;
  g_autoptr (VsmDbusManager) daemon = NULL;
  int rc;

  if (!cli_parse ("status", N_ ("[DEVICE]"),
                  _ ("Show every drive vfat-smart manages (or the one DEVICE is on): class,\n"
                     "mounts with their real options, each knob as before -> applied -> now,\n"
                     "I/O since apply, dirty data now and when it is safe to unplug, and the\n"
                     "last unmount; when vfat-smartd runs, what it measured and the drive's\n"
                     "history. Exit status 8 when DEVICE is not managed, 7 when a record\n"
                     "cannot be trusted."),
                  entries, &argc, &argv))
    return 2;
  if (argc > 2)
    return cli_usage_error ("status", _ ("expected at most one DEVICE"));
  if (argc == 2 && (bdi = cli_resolve_bdi (argv[1], &error)) == NULL)
    return cli_fail (error);

  status = vsm_status_collect (client, bdi, &error);
  if (status == NULL)
    return cli_fail (error);
  policy = vsm_policy_load ();
  kernel = vsm_kernel_probe (NULL, policy->kernel_flush_fix);
  rc = bdi && status->entries->len == 0 ? 8 : status->corrupt->len > 0 ? 7 : 0;

  if (json)
    {
      cli_print_json (vsm_json_status (status, kernel));
      return rc;
    }

  daemon = cli_daemon_manager (FALSE, NULL);
  cli_field (_ ("Kernel"), _ ("%s; per-device cap %s; FAT flush fix %s"),
             kernel->release ? kernel->release : "?",
             kernel->has_strict_limit ? _ ("available") : _ ("unavailable (needs 6.2)"),
             vsm_flush_fix_to_string (kernel->flush_fix));
  if (status->entries->len == 0 && bdi)
    g_print (_ ("%s is not managed by vfat-smart.\n"), argv[1]);
  else if (status->entries->len == 0)
    g_print (_ ("No drives are managed by vfat-smart.\n"));
  for (guint i = 0; i < status->entries->len; i++)
    {
      g_print ("\n");
      print_entry (g_ptr_array_index (status->entries, i), daemon);
    }
  return MAX (rc, print_untrusted (status->corrupt));
}
