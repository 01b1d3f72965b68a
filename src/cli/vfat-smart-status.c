/* vfat-smart-status.c - `vfat-smart status`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-display.h"
#include "vsm.h"

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

/* every label of cli_field in this file: all values in one column */
static const char *const labels[] = {
  N_ ("Kernel"),    N_ ("Stale module"),  N_ ("  Class"),   N_ ("  Flush mode"),
  N_ ("  Safety"),  N_ ("  Fallback"),    N_ ("  Mounts"),  N_ ("  Knobs"),
  N_ ("  Written"), N_ ("  Dirty now"),   N_ ("  At risk"), N_ ("  Last unmount"),
  N_ ("  History"), N_ ("  vfat-smartd"), N_ ("  Policy"),  NULL,
};

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

/* one value of the policy in force for a drive (the daemon's Policy) */
typedef struct
{
  char *key, *value, *origin;
  char *own;                /* the caller's own setting of it, when not in force */
  const char *not_in_force; /* why not */
} PolicyRow;

static void
policy_row_clear (PolicyRow *r)
{
  g_free (r->key);
  g_free (r->value);
  g_free (r->origin);
  g_free (r->own);
}

/* each value with its origin; for the user who mounted the drive, their
 * own settings not in force and why */
static GArray *
policy_rows (VsmDbusDevice *d)
{
  GVariant *policy = vsm_dbus_device_get_policy (d);
  gboolean mine = vsm_dbus_device_get_mounted_by (d) == getuid () && getuid () != 0;
  g_autoptr (GSettings) own = mine ? own_settings () : NULL;
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (PolicyRow));
  GVariantIter iter;
  const char *key, *value, *origin;

  g_array_set_clear_func (rows, (GDestroyNotify)policy_row_clear);
  if (policy == NULL)
    return rows;
  g_variant_iter_init (&iter, policy);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &key, &value, &origin))
    {
      g_autoptr (GVariant) set = NULL;
      PolicyRow r = { g_strdup (key), g_strdup (value), g_strdup (origin), NULL, NULL };

      if (!g_strv_contains (shown_keys, key))
        {
          policy_row_clear (&r);
          continue;
        }
      set = vsm_policy_is_user_key (key) ? own_setting (own, key) : NULL;
      if (set && !g_str_equal (origin, "user"))
        {
          r.own = g_variant_print (set, FALSE);
          r.not_in_force = g_str_equal (origin, "locked")
                             ? N_ ("locked by the administrator")
                             : N_ ("user tuning is off, or `vfat-smart agent` does not run");
        }
      g_array_append_val (rows, r);
    }
  return rows;
}

static void
print_policy (VsmDbusDevice *d)
{
  g_autoptr (GArray) rows = policy_rows (d);

  for (guint i = 0; i < rows->len; i++)
    {
      const PolicyRow *r = &g_array_index (rows, PolicyRow, i);

      cli_field (i == 0 ? _ ("  Policy") : "", "%-24s %s (%s)", r->key, r->value, r->origin);
      if (r->own)
        cli_field ("", _ ("%-24s your %s is not in force (%s)"), "", r->own, _ (r->not_in_force));
    }
}

/* what vfat-smartd measured, when it runs (it is never started for this) */
static void
print_daemon (const VsmStatusEntry *e, VsmDbusManager *daemon)
{
  g_autofree char *path = NULL;
  g_autoptr (VsmDbusDevice) d = NULL;
  g_autofree char *bw = NULL;
  const char *history, *source;

  if (daemon == NULL)
    return;
  path = cli_daemon_device_path (e->state->bdi);
  d = cli_daemon_device (path, NULL);
  if (d == NULL || vsm_dbus_device_get_bdi (d) == NULL)
    return;
  bw = vsm_format_rate ((double)vsm_dbus_device_get_write_bandwidth (d));
  /* the daemon's words are N_ () strings, translated here */
  source = vsm_dbus_device_get_bandwidth_source (d);
  source = source && *source ? _ (source) : "";
  /* the data at risk is the entry's one figure (take_daemon_figure) */
  cli_field (_ ("  vfat-smartd"), _ ("%s (%s); %.1f s to safe"), bw,
             vsm_dbus_device_get_write_bandwidth (d) ? source : _ ("nothing measured yet"),
             vsm_dbus_device_get_seconds_to_safe (d));
  print_policy (d);
  history = vsm_dbus_device_get_history (d);
  /* newer than the file when the daemon just recorded a mount */
  if (e->history == NULL && history && *history)
    cli_field (_ ("  History"), "%s", history);
}

/* --json: the policy in force, as print_policy shows it */
static void
add_policy_json (JsonBuilder *b, VsmDbusDevice *d)
{
  g_autoptr (GArray) rows = policy_rows (d);

  json_builder_set_member_name (b, "policy");
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const PolicyRow *r = &g_array_index (rows, PolicyRow, i);

      json_builder_begin_object (b);
      vsm_json_member_string (b, "key", r->key);
      vsm_json_member_setting (b, "value", r->value);
      vsm_json_member_string (b, "origin", r->origin);
      vsm_json_member_setting (b, "your_value", r->own);
      vsm_json_member_string (b, "not_in_force", r->not_in_force);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* --json: what print_daemon shows; null when vfat-smartd does not run or
 * does not know the drive */
static JsonNode *
daemon_json (const VsmStatusEntry *e, VsmDbusManager *daemon)
{
  g_autofree char *path = NULL;
  g_autoptr (VsmDbusDevice) d = NULL;
  g_autoptr (JsonBuilder) b = NULL;

  if (daemon == NULL)
    return json_node_new (JSON_NODE_NULL);
  path = cli_daemon_device_path (e->state->bdi);
  d = cli_daemon_device (path, NULL);
  if (d == NULL || vsm_dbus_device_get_bdi (d) == NULL)
    return json_node_new (JSON_NODE_NULL);
  b = json_builder_new ();
  json_builder_begin_object (b);
  vsm_json_member_int (b, "cap_bytes", (gint64)vsm_dbus_device_get_cap_bytes (d));
  vsm_json_member_int (b, "at_risk_bytes", (gint64)vsm_dbus_device_get_at_risk_bytes (d));
  json_builder_set_member_name (b, "seconds_to_safe");
  json_builder_add_double_value (b, vsm_dbus_device_get_seconds_to_safe (d));
  vsm_json_member_int (b, "write_bandwidth_bytes_s",
                       (gint64)vsm_dbus_device_get_write_bandwidth (d));
  vsm_json_member_string (b, "bandwidth_source", vsm_dbus_device_get_bandwidth_source (d));
  json_builder_set_member_name (b, "pacing");
  json_builder_add_boolean_value (b, vsm_dbus_device_get_pacing (d));
  json_builder_set_member_name (b, "safe");
  json_builder_add_boolean_value (b, vsm_dbus_device_get_safe (d));
  /* G_MAXUINT32: mounted by nobody (or not mounted) */
  json_builder_set_member_name (b, "mounted_by");
  if (vsm_dbus_device_get_mounted_by (d) == G_MAXUINT32)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, vsm_dbus_device_get_mounted_by (d));
  vsm_json_member_string (b, "history", vsm_dbus_device_get_history (d));
  add_policy_json (b, d);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* "flush_mode" is what the mount has (vsm-truth.h), beside what was
 * planned and why they differ */
static void
add_truth_json (JsonObject *o, const VsmStatusEntry *e)
{
  g_autoptr (VsmFlushTruth) t = vsm_flush_truth_for_state (e->state, e->mounts);

  json_object_set_string_member (o, "flush_mode", t->mode);
  json_object_set_string_member (o, "planned_flush_mode", t->planned);
  if (t->reason)
    json_object_set_string_member (o, "flush_mode_reason", t->reason);
  else
    json_object_set_null_member (o, "flush_mode_reason");
  if (t->safety)
    json_object_set_string_member (o, "safety", t->safety);
  json_object_set_boolean_member (o, "strict_limit_dropped", t->strict_limit_dropped);
}

/* every entry of vsm_json_status's "devices" gets its "daemon" member */
static void
add_daemon_json (JsonNode *root, const VsmStatus *status, VsmDbusManager *daemon)
{
  JsonArray *devices = json_object_get_array_member (json_node_get_object (root), "devices");

  for (guint i = 0; i < status->entries->len && i < json_array_get_length (devices); i++)
    {
      JsonObject *o = json_array_get_object_element (devices, i);

      add_truth_json (o, g_ptr_array_index (status->entries, i));
      json_object_set_member (o, "daemon",
                              daemon_json (g_ptr_array_index (status->entries, i), daemon));
    }
}

static void
print_history (const VsmStatusEntry *e)
{
  g_autofree char *text = NULL;

  if (e->history == NULL)
    return;
  text = vsm_drive_history_to_display (e->history);
  cli_field (_ ("  History"), _ ("%s (%s)"), text, e->history->identity);
}

static void
print_entry (const VsmStatusEntry *e, VsmDbusManager *daemon)
{
  const VsmState *s = e->state;
  g_autoptr (VsmFlushTruth) truth = vsm_flush_truth_for_state (s, e->mounts);
  g_autoptr (GDateTime) when = g_date_time_new_from_unix_local (s->applied_at / G_USEC_PER_SEC);
  g_autofree char *when_s = when ? g_date_time_format (when, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");

  g_print ("%s (bdi %s)%s%s\n", s->disk_node ? s->disk_node : "?", s->bdi,
           e->present ? "" : _ (" - UNPLUGGED; `vfat-smart restore --all` forgets it"),
           s->pending ? _ (" - AN APPLY WAS INTERRUPTED; the next apply or restore undoes it")
                      : "");
  cli_field (_ ("  Class"), "%s, serial %s", s->class_name ? s->class_name : "?",
             s->serial ? s->serial : "-");
  /* what the mount really has, not only what was planned */
  if (truth->reason == NULL)
    cli_field (_ ("  Flush mode"), _ ("%s (applied %s by %s)"), truth->mode, when_s,
               s->source ? s->source : "?");
  else
    {
      cli_field (_ ("  Flush mode"), _ ("%s (planned %s, applied %s by %s)"), truth->mode,
                 truth->planned, when_s, s->source ? s->source : "?");
      cli_field ("", "%s", truth->reason);
    }
  cli_field (_ ("  Safety"), "%s", truth->safety ? truth->safety : e->safety_note);
  if (truth->strict_limit_dropped)
    cli_field (_ ("  Fallback"),
               _ ("strict_limit dropped by vfat-smartd: writers were throttled with no writeback "
                  "under way (see Why); max_bytes stays"));

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

  cli_reasons (_ ("  Why"), s->reasons);
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
      g_autofree char *figure =
        g_strcmp0 (e->at_risk_kind, "device") == 0
          ? g_strdup_printf (_ ("%s (this device)"), risk)
          : g_strdup_printf (_ ("at most %s (the whole system's dirty data, within the cap)"),
                             risk);
      if (e->safe_bandwidth > 0)
        cli_field (_ ("  At risk"), _ ("%s; safe to unplug in about %.1f s (bandwidth: %s)"),
                   figure, e->seconds_to_safe, _ (e->safe_bandwidth_source));
      else
        cli_field (_ ("  At risk"), "%s", figure);
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

/* One figure of data at risk per drive: vfat-smartd's when it knows the
 * drive (it knows when the drive last wrote), else the record's bound;
 * both from vsm_at_risk_bytes () */
static void
take_daemon_figure (VsmStatusEntry *e, VsmDbusManager *daemon)
{
  g_autofree char *path = NULL;
  g_autoptr (VsmDbusDevice) d = NULL;
  const char *kind;

  if (daemon == NULL || !e->present)
    return;
  path = cli_daemon_device_path (e->state->bdi);
  d = cli_daemon_device (path, NULL);
  if (d == NULL || vsm_dbus_device_get_bdi (d) == NULL)
    return;
  kind = vsm_dbus_device_get_at_risk_scope (d);
  e->at_risk_bytes = vsm_dbus_device_get_at_risk_bytes (d);
  e->at_risk_kind = g_strcmp0 (kind, "device") == 0 ? "device" : "system";
  if (e->safe_bandwidth > 0)
    e->seconds_to_safe = (double)e->at_risk_bytes / (double)e->safe_bandwidth;
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
  if (argc == 2 && (bdi = vsm_bdi_of (argv[1], &error)) == NULL)
    return cli_fail (error);

  status = vsm_status_collect (client, bdi, &error);
  if (status == NULL)
    return cli_fail (error);
  policy = vsm_policy_load ();
  kernel = vsm_kernel_probe (NULL, policy->kernel_flush_fix);
  rc = bdi && status->entries->len == 0 ? 8 : status->corrupt->len > 0 ? 7 : 0;

  daemon = cli_daemon_manager (FALSE, NULL);
  for (guint i = 0; i < status->entries->len; i++)
    take_daemon_figure (g_ptr_array_index (status->entries, i), daemon);
  if (json)
    {
      JsonNode *root = vsm_json_status (status, kernel);

      add_daemon_json (root, status, daemon);
      cli_print_json (root);
      return rc;
    }

  cli_field_labels (labels);
  cli_field (_ ("Kernel"), _ ("%s; per-device cap %s; FAT flush fix %s"),
             kernel->release ? kernel->release : "?",
             kernel->has_strict_limit ? _ ("available") : _ ("unavailable (needs 6.2)"),
             vsm_flush_fix_to_string (kernel->flush_fix));
  if (kernel->flush_fix_stale != NULL)
    cli_field (_ ("Stale module"), "%s", kernel->flush_fix_stale);
  if (status->entries->len == 0 && bdi)
    {
      g_autofree char *shown = vsm_sanitize_for_display (argv[1]);
      g_print (_ ("%s is not managed by vfat-smart.\n"), shown);
    }
  else if (status->entries->len == 0)
    g_print (_ ("No drives are managed by vfat-smart.\n"));
  for (guint i = 0; i < status->entries->len; i++)
    {
      g_print ("\n");
      print_entry (g_ptr_array_index (status->entries, i), daemon);
    }
  return MAX (rc, print_untrusted (status->corrupt));
}
