/* vsm-json.c - the JSON contract of `vfat-smart ... --json`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-json.h"
#include "vsm-display.h"
#include "vsm.h"

#include <string.h>

static void
member_string (JsonBuilder *b, const char *name, const char *value)
{
  g_autofree char *valid = vsm_make_valid_utf8 (value);

  json_builder_set_member_name (b, name);
  if (valid)
    json_builder_add_string_value (b, valid);
  else
    json_builder_add_null_value (b);
}

static void
member_int (JsonBuilder *b, const char *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}

void
vsm_json_member_string (JsonBuilder *b, const char *name, const char *value)
{
  member_string (b, name, value);
}

void
vsm_json_member_int (JsonBuilder *b, const char *name, gint64 value)
{
  member_int (b, name, value);
}

static void
member_double (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, value);
}

static void
member_bool (JsonBuilder *b, const char *name, gboolean value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_boolean_value (b, value);
}

/* a knob's value: sysfs and sysctl numbers as JSON numbers; anything
 * else (a value that is not a number) as the string it is */
static void
member_knob_value (JsonBuilder *b, const char *name, const char *value)
{
  gint64 n;

  if (value != NULL && vsm_parse_i64 (value, &n))
    member_int (b, name, n);
  else
    member_string (b, name, value);
}

void
vsm_json_member_setting (JsonBuilder *b, const char *name, const char *printed)
{
  g_autoptr (GVariant) v = NULL;

  if (printed != NULL)
    v = g_variant_parse (NULL, printed, NULL, NULL, NULL);
  json_builder_set_member_name (b, name);
  if (v != NULL)
    json_builder_add_value (b, json_gvariant_serialize (v));
  else if (printed != NULL)
    json_builder_add_string_value (b, printed);
  else
    json_builder_add_null_value (b);
}

static void
member_strings (JsonBuilder *b, const char *name, GPtrArray *strings)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (guint i = 0; strings && i < strings->len; i++)
    {
      g_autofree char *valid = vsm_make_valid_utf8 (g_ptr_array_index (strings, i));
      json_builder_add_string_value (b, valid);
    }
  json_builder_end_array (b);
}

/* "reasons" in English (stable), and "reason_ids": each one's untranslated
 * message (null for text kept as it is) and its arguments in English */
static void
member_reasons (JsonBuilder *b, GPtrArray *reasons)
{
  json_builder_set_member_name (b, "reasons");
  json_builder_begin_array (b);
  for (guint i = 0; reasons && i < reasons->len; i++)
    {
      const VsmReason *r = g_ptr_array_index (reasons, i);
      g_autofree char *valid = vsm_make_valid_utf8 (r->text);
      json_builder_add_string_value (b, valid);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "reason_ids");
  json_builder_begin_array (b);
  for (guint i = 0; reasons && i < reasons->len; i++)
    {
      const VsmReason *r = g_ptr_array_index (reasons, i);
      g_autofree char *id = r->msgid ? vsm_make_valid_utf8 (r->msgid) : NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      if (id)
        json_builder_add_string_value (b, id);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "args");
      json_builder_begin_array (b);
      for (guint k = 0; r->args && k < r->args->len; k++)
        {
          const VsmReason *arg = g_ptr_array_index (r->args, k);
          g_autofree char *valid = vsm_make_valid_utf8 (arg->text);
          json_builder_add_string_value (b, valid);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_device (JsonBuilder *b, const VsmDevice *d)
{
  member_string (b, "device", d->devnode);
  member_string (b, "disk", d->disk_node);
  member_string (b, "bdi", d->bdi);
  member_bool (b, "partition", d->is_partition);
  member_string (b, "transport", vsm_transport_to_string (d->transport));
  member_bool (b, "removable", d->removable);
  member_bool (b, "rotational", d->rotational);
  member_int (b, "size_bytes", (gint64)d->size_bytes);
  member_string (b, "vendor", d->vendor);
  member_string (b, "model", d->model);
  member_int (b, "lun", d->lun);
  member_int (b, "luns", d->n_luns);
  member_int (b, "partitions", d->n_partitions);
  member_bool (b, "superfloppy", d->superfloppy);

  json_builder_set_member_name (b, "usb");
  if (d->usb)
    {
      json_builder_begin_object (b);
      member_string (b, "vendor_id", d->usb->vendor_id);
      member_string (b, "product_id", d->usb->product_id);
      member_int (b, "speed_mbps", d->usb->speed_mbps);
      member_string (b, "serial", d->usb->serial);
      member_string (b, "version", d->usb->version);
      member_string (b, "manufacturer", d->usb->manufacturer);
      member_string (b, "product", d->usb->product);
      member_string (b, "driver", d->usb->driver);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);

  json_builder_set_member_name (b, "queue");
  json_builder_begin_object (b);
  member_int (b, "max_sectors_kb", (gint64)d->max_sectors_kb);
  member_int (b, "max_hw_sectors_kb", (gint64)d->max_hw_sectors_kb);
  member_int (b, "minimum_io_size", (gint64)d->minimum_io_size);
  member_int (b, "optimal_io_size", (gint64)d->optimal_io_size);
  member_int (b, "physical_block_size", (gint64)d->physical_block_size);
  member_int (b, "logical_block_size", (gint64)d->logical_block_size);
  member_string (b, "write_cache", d->write_cache);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "filesystem");
  if (d->fs_type)
    {
      json_builder_begin_object (b);
      member_string (b, "type", d->fs_type);
      member_string (b, "label", d->fs_label);
      member_string (b, "uuid", d->fs_uuid);
      member_string (b, "version", d->fs_version);
      json_builder_end_object (b);
    }
  else
    json_builder_add_null_value (b);
}

JsonNode *
vsm_json_classify (const VsmAssessment *a)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  add_device (b, a->device);
  member_string (b, "class", vsm_class_to_string (a->classification->klass));
  member_int (b, "confidence", a->classification->confidence);
  member_reasons (b, a->classification->reasons);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
add_kernel (JsonBuilder *b, const VsmKernel *k)
{
  json_builder_set_member_name (b, "kernel");
  json_builder_begin_object (b);
  member_string (b, "release", k->release);
  member_strings (b, "bdi_knobs", k->bdi_knobs);
  member_string (b, "flush_fix", vsm_flush_fix_to_string (k->flush_fix));
  member_string (b, "flush_fix_reason", k->flush_fix_reason);
  member_string (b, "flush_fix_stale", k->flush_fix_stale);
  member_bool (b, "tracefs", k->tracefs);
  member_bool (b, "debugfs_bdi", k->debugfs_bdi);
  json_builder_end_object (b);
}

JsonNode *
vsm_json_plan (const VsmAssessment *a)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  const VsmPlan *p = a->plan;

  json_builder_begin_object (b);
  member_string (b, "device", a->device->devnode);
  member_string (b, "disk", a->device->disk_node);
  member_string (b, "bdi", a->device->bdi);
  member_string (b, "class", vsm_class_to_string (p->klass));
  member_bool (b, "managed", p->managed);
  member_string (b, "flush_mode", vsm_flush_mode_to_string (p->flush_mode));
  member_string (b, "filesystem", p->fs_type);
  member_string (b, "mount_options", p->mount_options);
  member_string (b, "udisks_defaults", p->udisks_defaults);
  member_int (b, "bandwidth", (gint64)p->bandwidth);
  member_string (b, "bandwidth_source", p->bandwidth_source);
  member_int (b, "cap_bytes", (gint64)p->cap_bytes);
  member_string (b, "cap_via", p->cap_via);
  member_string (b, "left_alone_reason", p->left_alone_reason);
  json_builder_set_member_name (b, "knobs");
  json_builder_begin_object (b);
  for (guint i = 0; i < p->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (p->knobs, i);
      member_knob_value (b, k->name, k->value);
    }
  json_builder_end_object (b);
  add_kernel (b, a->kernel);
  member_reasons (b, p->reasons);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
add_state_fields (JsonBuilder *b, const VsmState *s)
{
  member_string (b, "bdi", s->bdi);
  member_string (b, "disk", s->disk_node);
  member_string (b, "serial", s->serial);
  member_string (b, "class", s->class_name);
  member_string (b, "flush_mode", s->flush_mode);
  member_string (b, "filesystem", s->fs_type);
  member_string (b, "mount_options", s->mount_options);
  member_string (b, "source", s->source);
  member_int (b, "cap_bytes", (gint64)s->cap_bytes);
  member_int (b, "bandwidth", (gint64)s->bandwidth);
  member_int (b, "applied_at_usec", s->applied_at);
}

JsonNode *
vsm_json_state (const VsmState *s)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  add_state_fields (b, s);
  json_builder_set_member_name (b, "knobs");
  json_builder_begin_object (b);
  for (guint i = 0; i < s->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (s->knobs, i);
      json_builder_set_member_name (b, r->name);
      json_builder_begin_object (b);
      member_knob_value (b, "before", r->original);
      member_knob_value (b, "applied", r->applied);
      member_knob_value (b, "readback", r->readback);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  member_reasons (b, s->reasons);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

static void
add_mounts (JsonBuilder *b, GPtrArray *mounts)
{
  json_builder_set_member_name (b, "mounts");
  json_builder_begin_array (b);
  for (guint i = 0; i < mounts->len; i++)
    {
      VsmMountInfo *m = g_ptr_array_index (mounts, i);
      json_builder_begin_object (b);
      member_string (b, "source", m->source);
      member_string (b, "target", m->target);
      member_string (b, "fstype", m->fstype);
      member_string (b, "options", m->options);
      member_string (b, "user_options", m->user_options);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_knob_statuses (JsonBuilder *b, GPtrArray *knobs)
{
  json_builder_set_member_name (b, "knobs");
  json_builder_begin_object (b);
  for (guint i = 0; i < knobs->len; i++)
    {
      VsmKnobStatus *k = g_ptr_array_index (knobs, i);
      json_builder_set_member_name (b, k->record->name);
      json_builder_begin_object (b);
      member_knob_value (b, "before", k->record->original);
      member_knob_value (b, "applied", k->record->applied);
      member_knob_value (b, "now", k->now);
      member_string (b, "drift", vsm_enum_to_nick (VSM_TYPE_DRIFT, k->drift, "none"));
      member_bool (b, "global", k->global);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

static void
add_io (JsonBuilder *b, const VsmStatusEntry *e)
{
  json_builder_set_member_name (b, "io_since_apply");
  if (!e->io.valid)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  member_double (b, "seconds", e->seconds_since_apply);
  member_int (b, "write_bytes", (gint64)e->io.write_bytes);
  member_int (b, "write_requests", (gint64)e->io.write_ios);
  member_double (b, "avg_write_request_bytes", e->io.avg_write_request_bytes);
  json_builder_set_member_name (b, "flushes");
  if (e->io.has_flush)
    json_builder_add_int_value (b, (gint64)e->io.flush_ios);
  else
    json_builder_add_null_value (b);
  member_int (b, "busy_ms", (gint64)e->io.busy_ms);
  member_double (b, "write_throughput", e->io.write_throughput);
  json_builder_end_object (b);
}

static void
add_dirty (JsonBuilder *b, const VsmDirtyInfo *d)
{
  json_builder_set_member_name (b, "dirty");
  if (!d->valid)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  member_string (b, "scope", d->per_device ? "device" : "system");
  member_int (b, "dirty_bytes", (gint64)d->dirty_bytes);
  member_int (b, "writeback_bytes", (gint64)d->writeback_bytes);
  if (d->per_device)
    {
      member_int (b, "device_threshold_bytes", (gint64)d->bdi_thresh_bytes);
      member_int (b, "threshold_bytes", (gint64)d->dirty_thresh_bytes);
    }
  json_builder_set_member_name (b, "kernel_bandwidth");
  if (d->per_device && d->bandwidth > 0)
    json_builder_add_int_value (b, (gint64)d->bandwidth);
  else
    json_builder_add_null_value (b);
  json_builder_end_object (b);
}

static void
add_last_unmount (JsonBuilder *b, const VsmUnmountRecord *r)
{
  json_builder_set_member_name (b, "last_unmount");
  if (r == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  member_string (b, "target", r->target);
  member_int (b, "at_usec", r->at_usec);
  member_double (b, "seconds", r->seconds);
  member_int (b, "dirty_bytes", (gint64)r->dirty_bytes);
  member_string (b, "dirty_scope", r->per_device ? "device" : "system");
  json_builder_end_object (b);
}

/* what vfat-smartd learned about the drive, newest mount last */
static void
add_history (JsonBuilder *b, const VsmDriveHistory *h)
{
  json_builder_set_member_name (b, "history");
  if (h == NULL)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  member_string (b, "identity", h->identity);
  member_int (b, "bandwidth", (gint64)h->bandwidth);
  json_builder_set_member_name (b, "mounts");
  json_builder_begin_array (b);
  for (guint i = 0; i < h->mounts->len; i++)
    {
      const VsmDriveMount *m = &g_array_index (h->mounts, VsmDriveMount, i);
      json_builder_begin_object (b);
      member_int (b, "at_usec", m->at_usec);
      member_int (b, "bandwidth", (gint64)m->bandwidth);
      member_int (b, "cap_bytes", (gint64)m->cap_bytes);
      member_int (b, "bytes_written", (gint64)MIN (m->bytes_written, (guint64)G_MAXINT64));
      member_double (b, "seconds_to_safe", m->seconds_to_safe);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_status_entry (JsonBuilder *b, const VsmStatusEntry *e)
{
  json_builder_begin_object (b);
  add_state_fields (b, e->state);
  member_bool (b, "present", e->present);
  member_bool (b, "interrupted", e->state->pending);
  add_mounts (b, e->mounts);
  add_knob_statuses (b, e->knobs);
  add_io (b, e);
  add_dirty (b, &e->dirty);
  member_int (b, "at_risk_bytes", (gint64)e->at_risk_bytes);
  member_string (b, "at_risk_kind", e->at_risk_kind);
  json_builder_set_member_name (b, "seconds_to_safe");
  if (e->safe_bandwidth > 0)
    json_builder_add_double_value (b, e->seconds_to_safe);
  else
    json_builder_add_null_value (b);
  member_string (b, "seconds_to_safe_basis", e->safe_bandwidth_source);
  member_string (b, "safety", e->safety_note);
  add_last_unmount (b, e->last_unmount);
  add_history (b, e->history);
  member_reasons (b, e->state->reasons);
  json_builder_end_object (b);
}

JsonNode *
vsm_json_status (const VsmStatus *status, const VsmKernel *kernel)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  if (kernel)
    add_kernel (b, kernel);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < status->entries->len; i++)
    add_status_entry (b, g_ptr_array_index (status->entries, i));
  json_builder_end_array (b);
  member_strings (b, "untrusted_records", status->corrupt);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
vsm_json_probe (const VsmProbeResult *r, const char *source)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  member_string (b, "flush_fix", vsm_flush_fix_to_string (r->fix));
  member_string (b, "variant", vsm_flush_fix_variant_to_string (r->variant));
  member_string (b, "source", source);
  member_string (b, "release", r->release);
  member_string (b, "fat_srcversion", r->srcversion);
  member_string (b, "evidence", r->evidence);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* json-glib escapes C0 controls but passes DEL and the C1 controls
 * (U+0080..U+009F: CSI, OSC, ...) through raw, which a terminal obeys.
 * Those bytes only occur inside strings (the JSON syntax is ASCII
 * without them), so each becomes its \u escape right here. */
static char *
escape_controls (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));

  for (const guchar *p = (const guchar *)text; *p != '\0'; p++)
    {
      if (*p == 0x7f)
        g_string_append (out, "\\u007f");
      else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
        g_string_append_printf (out, "\\u%04x", (guint) * ++p);
      else
        g_string_append_c (out, (char)*p);
    }
  return g_string_free (out, FALSE);
}

char *
vsm_json_to_string (JsonNode *node)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autofree char *text = NULL;
  g_autofree char *valid = NULL;

  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, node);
  text = json_generator_to_data (gen, NULL);
  /* json-glib passes a string's bytes through: whatever reached a node,
   * the output is valid UTF-8 (bad bytes sit only inside strings) */
  valid = g_utf8_make_valid (text, -1);
  return escape_controls (valid);
}
