/* vsm-knobs.c - write, verify and restore writeback knobs
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-knobs.h"
#include "vsm-stats.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <string.h>
#include <unistd.h>

gboolean
vsm_knob_is_global (const char *name)
{
  return g_str_has_prefix (name, "vm.");
}

char *
vsm_knob_path (const char *bdi, const char *name)
{
  if (strchr (name, '/') != NULL || strstr (name, "..") != NULL)
    return NULL;
  if (vsm_knob_is_global (name))
    return g_strconcat ("/proc/sys/vm/", name + 3, NULL);
  return g_strdup_printf ("/sys/class/bdi/%s/%s", bdi, name);
}

static gboolean
knob_is_bytes (const char *name)
{
  return g_str_equal (name, "max_bytes") || g_str_equal (name, "min_bytes");
}

gboolean
vsm_knob_value_matches (const char *name, const char *applied, const char *readback)
{
  guint64 a, r, diff;

  if (applied == NULL || readback == NULL)
    return FALSE;
  if (!knob_is_bytes (name))
    return g_str_equal (applied, readback);
  if (!vsm_parse_u64 (applied, &a) || !vsm_parse_u64 (readback, &r))
    return FALSE;
  /* stored as a ratio of the current dirty threshold: read back, it moves
   * with free memory; 5 % + 256 KiB covers rounding and ordinary drift */
  diff = a > r ? a - r : r - a;
  return diff <= a / 20 + 256 * 1024;
}

/* Where and what to write to undo a knob, read before it is first written.
 * max_bytes is restored through the ratio it replaced (writing the old byte
 * value back can be EINVAL once the threshold moved); vm.dirty_bytes=0 means
 * the ratio was in charge. */
static gboolean
compute_restore (const char *bdi, const char *name, const char *path, char **restore_path,
                 char **restore_value, GError **error)
{
  g_autofree char *rpath = NULL;
  g_autofree char *value = NULL;

  if (knob_is_bytes (name))
    {
      const char *base = g_str_equal (name, "max_bytes") ? "max_ratio" : "min_ratio";
      g_autofree char *fine = g_strdup_printf ("%s_fine", base);
      g_autofree char *fine_path = vsm_knob_path (bdi, fine);

      rpath = g_file_test (fine_path, G_FILE_TEST_EXISTS) ? g_steal_pointer (&fine_path)
                                                          : vsm_knob_path (bdi, base);
    }
  else if (g_str_equal (name, "vm.dirty_bytes") || g_str_equal (name, "vm.dirty_background_bytes"))
    {
      g_autofree char *cur = vsm_read_attr (path, error);
      if (cur == NULL)
        return FALSE;
      if (g_str_equal (cur, "0"))
        rpath = g_str_equal (name, "vm.dirty_bytes")
                  ? g_strdup ("/proc/sys/vm/dirty_ratio")
                  : g_strdup ("/proc/sys/vm/dirty_background_ratio");
      else
        rpath = g_strdup (path);
    }
  else
    {
      rpath = g_strdup (path);
    }

  value = vsm_read_attr (rpath, error);
  if (value == NULL)
    return FALSE;
  *restore_path = g_steal_pointer (&rpath);
  *restore_value = g_steal_pointer (&value);
  return TRUE;
}

static VsmKnobRecord *
find_record (GPtrArray *records, const char *name)
{
  if (records == NULL)
    return NULL;
  for (guint i = 0; i < records->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (records, i);
      if (g_str_equal (r->name, name))
        return r;
    }
  return NULL;
}

static gboolean
plan_has_knob (const VsmPlan *plan, const char *name)
{
  return vsm_plan_get_knob (plan, name) != NULL;
}

typedef struct
{
  char *path;
  char *value;
} Undo;

static void
undo_free (Undo *u)
{
  g_free (u->path);
  g_free (u->value);
  g_free (u);
}

static void
rollback (GPtrArray *undo, GString *msg)
{
  for (guint i = undo->len; i > 0; i--)
    {
      Undo *u = g_ptr_array_index (undo, i - 1);
      g_autoptr (GError) err = NULL;

      if (!vsm_write_attr (u->path, u->value, &err))
        g_string_append_printf (msg, _ ("; rolling back %s failed too: %s"), u->path, err->message);
    }
  g_ptr_array_set_size (undo, 0);
}

/* Writes one knob (recording how to undo this very write first). */
static VsmKnobRecord *
write_knob (const char *bdi, const char *name, const char *value, VsmKnobRecord *previous,
            GPtrArray *undo, GError **error)
{
  g_autofree char *path = vsm_knob_path (bdi, name);
  g_autoptr (GError) local = NULL;
  VsmKnobRecord *rec;
  Undo *u;

  if (path == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, "bad knob name '%s'", name);
      return NULL;
    }

  rec = g_new0 (VsmKnobRecord, 1);
  rec->name = g_strdup (name);
  rec->path = g_strdup (path);
  u = g_new0 (Undo, 1);
  if (!compute_restore (bdi, name, path, &u->path, &u->value, error))
    {
      g_free (u);
      vsm_knob_record_free (rec);
      return NULL;
    }

  if (previous != NULL)
    {
      rec->original = g_strdup (previous->original);
      rec->restore_path = g_strdup (previous->restore_path);
      rec->restore_value = g_strdup (previous->restore_value);
    }
  else
    {
      rec->original = vsm_read_attr (path, NULL);
      rec->restore_path = g_strdup (u->path);
      rec->restore_value = g_strdup (u->value);
    }
  g_ptr_array_add (undo, u);

  if (!vsm_write_attr (path, value, error))
    {
      vsm_knob_record_free (rec);
      return NULL;
    }
  rec->applied = g_strdup (value);
  rec->readback = vsm_read_attr (path, &local);
  if (!vsm_knob_value_matches (name, value, rec->readback))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, "%s: wrote %s but read back %s", path, value,
                   rec->readback ? rec->readback : local->message);
      vsm_knob_record_free (rec);
      return NULL;
    }
  return rec;
}

static void
fill_state (VsmState *s, const VsmDevice *d, const VsmPlan *plan, const char *source)
{
  s->disk_node = g_strdup (d->disk_node);
  s->disk_name = g_strdup (d->disk_name);
  s->disk_syspath = g_strdup (d->disk_syspath);
  s->serial = g_strdup (d->usb ? d->usb->serial : NULL);
  s->class_name = g_strdup (vsm_class_to_string (plan->klass));
  s->flush_mode = g_strdup (vsm_flush_mode_to_string (plan->flush_mode));
  s->fs_type = g_strdup (plan->fs_type);
  s->mount_options = g_strdup (plan->mount_options);
  s->source = g_strdup (source);
  s->cap_bytes = plan->cap_bytes;
  s->bandwidth = plan->bandwidth;
  s->updated_at = g_get_real_time ();
  for (guint i = 0; i < plan->reasons->len; i++)
    g_ptr_array_add (s->reasons, g_strdup (g_ptr_array_index (plan->reasons, i)));
}

static gboolean
owners_contain (GPtrArray *owners, const char *bdi)
{
  for (guint i = 0; i < owners->len; i++)
    if (g_str_equal (g_ptr_array_index (owners, i), bdi))
      return TRUE;
  return FALSE;
}

static gboolean
check_preconditions (const VsmDevice *d, const VsmPlan *plan, GError **error)
{
  if (geteuid () != 0 && g_getenv ("VFAT_SMART_STATE_DIR") == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_PERMISSION,
                   _ ("changing writeback knobs needs root (try sudo)"));
      return FALSE;
    }
  for (guint i = 0; i < plan->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (plan->knobs, i);
      g_autofree char *path = vsm_knob_path (d->bdi, k->name);
      if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_SUPPORTED,
                       _ ("%s: the kernel has no %s knob; nothing was changed"), d->disk_node,
                       k->name);
          return FALSE;
        }
    }
  return TRUE;
}

VsmState *
vsm_knobs_apply (const VsmDevice *d, const VsmPlan *plan, const char *source, GError **error)
{
  g_autoptr (VsmState) old = NULL;
  g_autoptr (VsmState) s = NULL;
  g_autoptr (VsmGlobalState) global = NULL;
  g_autoptr (GPtrArray) undo = g_ptr_array_new_with_free_func ((GDestroyNotify)undo_free);
  g_autoptr (GPtrArray) new_global = NULL;
  g_autoptr (GError) local = NULL;
  gboolean uses_global = FALSE;
  int lock;

  if (!check_preconditions (d, plan, error))
    return NULL;

  lock = vsm_state_lock (error);
  if (lock < 0)
    return NULL;

  old = vsm_state_load (d->bdi, &local);
  if (old == NULL && !g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
    goto fail;
  g_clear_error (&local);
  global = vsm_global_state_load (&local);
  if (global == NULL)
    goto fail;

  s = vsm_state_new (d->bdi);
  fill_state (s, d, plan, source);
  new_global = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_record_free);

  if (old != NULL && g_strcmp0 (old->disk_syspath, d->disk_syspath) == 0)
    {
      s->applied_at = old->applied_at;
      s->baseline_stat = g_strdup (old->baseline_stat);
      /* whoever applied first owns the knobs (udev's stay past a mount) */
      g_free (s->source);
      s->source = g_strdup (old->source);
    }
  else
    {
      VsmDiskStat st;
      s->applied_at = s->updated_at;
      if (!vsm_disk_stat_read (d->disk_name, &st, &s->baseline_stat, NULL))
        s->baseline_stat = NULL;
      /* a stale state of an earlier device with the same numbers: its
       * originals mean nothing for this one */
      g_clear_pointer (&old, vsm_state_free);
    }

  for (guint i = 0; i < plan->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (plan->knobs, i);
      gboolean global_knob = vsm_knob_is_global (k->name);
      VsmKnobRecord *prev =
        find_record (global_knob ? global->knobs : (old ? old->knobs : NULL), k->name);
      VsmKnobRecord *rec = write_knob (d->bdi, k->name, k->value, prev, undo, &local);

      if (rec == NULL)
        goto fail;
      g_ptr_array_add (global_knob ? new_global : s->knobs, rec);
      uses_global |= global_knob;
    }

  /* knobs an earlier plan set and this one does not: back to original */
  for (guint i = 0; old != NULL && i < old->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (old->knobs, i);
      if (plan_has_knob (plan, r->name))
        continue;
      if (!vsm_write_attr (r->restore_path, r->restore_value, &local))
        goto fail;
    }

  if (uses_global)
    {
      /* keep the originals of knobs set before; add the new ones */
      for (guint i = 0; i < new_global->len; i++)
        {
          VsmKnobRecord *r = g_ptr_array_index (new_global, i);
          VsmKnobRecord *prev = find_record (global->knobs, r->name);
          if (prev == NULL)
            g_ptr_array_add (global->knobs, vsm_knob_record_copy (r));
          else
            {
              g_free (prev->applied);
              g_free (prev->readback);
              prev->applied = g_strdup (r->applied);
              prev->readback = g_strdup (r->readback);
            }
        }
      if (!owners_contain (global->owners, d->bdi))
        g_ptr_array_add (global->owners, g_strdup (d->bdi));
      if (!vsm_global_state_save (global, &local))
        goto fail;
    }

  if (!vsm_state_save (s, &local))
    goto fail;

  vsm_state_unlock (lock);
  return g_steal_pointer (&s);

fail:
  {
    GString *msg = g_string_new (local ? local->message : "failed");
    gint code = local && local->domain == VSM_ERROR ? local->code : VSM_ERROR_APPLY;

    if (undo->len > 0)
      g_string_append (msg, _ ("; every knob was put back as it was"));
    rollback (undo, msg);
    vsm_state_unlock (lock);
    g_set_error_literal (error, VSM_ERROR, code, msg->str);
    g_string_free (msg, TRUE);
    return NULL;
  }
}

static gboolean
restore_records (GPtrArray *records, GPtrArray *report, GString *failures)
{
  gboolean ok = TRUE;

  for (guint i = records->len; i > 0; i--)
    {
      VsmKnobRecord *r = g_ptr_array_index (records, i - 1);
      g_autoptr (GError) err = NULL;

      if (!g_file_test (r->restore_path, G_FILE_TEST_EXISTS))
        {
          if (report)
            g_ptr_array_add (report,
                             g_strdup_printf (_ ("%s: device gone, nothing to restore"), r->name));
          continue;
        }
      if (!vsm_write_attr (r->restore_path, r->restore_value, &err))
        {
          g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", err->message);
          ok = FALSE;
          continue;
        }
      if (report)
        g_ptr_array_add (report, g_strdup_printf (_ ("%s: restored (%s = %s)"), r->name,
                                                  r->restore_path, r->restore_value));
    }
  return ok;
}

gboolean
vsm_knobs_restore (const char *bdi, GPtrArray *report, GError **error)
{
  g_autoptr (VsmState) s = NULL;
  g_autoptr (VsmGlobalState) global = NULL;
  g_autoptr (GString) failures = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  gboolean ok;
  int lock = vsm_state_lock (error);

  if (lock < 0)
    return FALSE;

  s = vsm_state_load (bdi, error);
  if (s == NULL)
    {
      vsm_state_unlock (lock);
      return FALSE;
    }

  ok = restore_records (s->knobs, report, failures);

  global = vsm_global_state_load (&local);
  if (global == NULL)
    {
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);
      ok = FALSE;
    }
  else if (owners_contain (global->owners, bdi))
    {
      for (guint i = 0; i < global->owners->len; i++)
        if (g_str_equal (g_ptr_array_index (global->owners, i), bdi))
          {
            g_ptr_array_remove_index (global->owners, i);
            break;
          }
      if (global->owners->len == 0)
        ok &= restore_records (global->knobs, report, failures);
      else if (report)
        g_ptr_array_add (report, g_strdup_printf (_ ("vm.* knobs: still used by %u other drive(s)"),
                                                  global->owners->len));
      if (ok && !vsm_global_state_save (global, &local))
        {
          g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);
          ok = FALSE;
        }
    }

  if (ok && !vsm_state_remove (bdi, &local))
    {
      g_string_append (failures, local->message);
      ok = FALSE;
    }
  vsm_state_unlock (lock);

  if (!ok)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY,
                   _ ("restore incomplete, state kept for another try: %s"), failures->str);
      return FALSE;
    }
  return TRUE;
}

VsmDrift
vsm_knob_check (const VsmKnobRecord *r, char **now)
{
  char *value = vsm_read_attr (r->path, NULL);

  if (now)
    *now = value ? g_strdup (value) : NULL;
  if (value == NULL)
    return VSM_DRIFT_GONE;
  if (vsm_knob_value_matches (r->name, r->applied, value))
    {
      g_free (value);
      return VSM_DRIFT_NONE;
    }
  g_free (value);
  return VSM_DRIFT_CHANGED;
}
