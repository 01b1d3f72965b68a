/* vsm-apply.c - the one way writeback knobs change: a transaction
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-apply.h"
#include "vsm-mount.h"
#include "vsm-plan.h"
#include "vsm-knobs.h"
#include "vsm-paths.h"
#include "vsm-rundir.h"
#include "vsm-stats.h"
#include "vsm-util.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  char *path;
  char *value; /* read right before this transaction wrote path */
} Undo;

static void
undo_free (Undo *u)
{
  g_free (u->path);
  g_free (u->value);
  g_free (u);
}

struct _VsmApply
{
  int lock;
  VsmState *previous;     /* the committed record before, or NULL */
  VsmState *next;         /* written ahead (pending), then committed */
  VsmGlobalState *global; /* the vm.* record */
  gboolean was_global_owner;
  gboolean plan_uses_global;
  gboolean global_saved; /* this transaction wrote global.state */
  gboolean defer_global; /* the plan's vm.* knobs wait for a mount */
  gboolean was_pending;  /* an interrupted apply was undone first */
  gboolean ahead_saved;  /* this transaction wrote the disk's record */
  GPtrArray *undo;       /* Undo*, in the order written */
  GPtrArray *unset;      /* char*: knobs of previous this plan drops */
};

static void
txn_free (VsmApply *txn)
{
  vsm_state_unlock (txn->lock);
  vsm_state_free (txn->previous);
  vsm_state_free (txn->next);
  vsm_global_state_free (txn->global);
  g_ptr_array_unref (txn->undo);
  g_ptr_array_unref (txn->unset);
  g_free (txn);
}

static VsmKnobRecord *
find_record (GPtrArray *records, const char *name)
{
  for (guint i = 0; records != NULL && i < records->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (records, i);
      if (g_str_equal (r->name, name))
        return r;
    }
  return NULL;
}

static guint
lock_wait (const VsmApplyOptions *o)
{
  return o && o->lock_wait_ms ? o->lock_wait_ms : VSM_LOCK_WAIT_MS;
}

static gboolean
check_preconditions (const VsmDevice *d, const VsmPlan *plan, GError **error)
{
  if (geteuid () != 0 && vsm_paths_are_system ())
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

/* The disk the record was made for is still there under these numbers. */
static gboolean
disk_is_present (const VsmState *s)
{
  g_autofree char *dev = NULL;
  g_autofree char *path = NULL;

  if (s->disk_name == NULL)
    return FALSE;
  path = vsm_path (VSM_ROOT_SYSFS, "block", s->disk_name, "dev", NULL);
  dev = vsm_read_attr (path, NULL);
  return g_strcmp0 (dev, s->bdi) == 0;
}

/* The vm.* knobs act on every disk: they bound the data at risk of the
 * slowest drive that relies on them, the smallest cap of their owners
 * (except: one that is leaving, or that is applying with its own). */
static guint64
owners_min_cap (const VsmGlobalState *g, const char *except)
{
  guint64 min = G_MAXUINT64;

  for (guint i = 0; i < g->owners->len; i++)
    {
      const char *o = g_ptr_array_index (g->owners, i);
      g_autoptr (VsmState) s = g_strcmp0 (o, except) ? vsm_state_load (o, NULL) : NULL;
      if (s != NULL && s->cap_bytes > 0)
        min = MIN (min, s->cap_bytes);
    }
  return min;
}

/* someone else (tuned, sysctl.d, an admin) wrote the knob after we did:
 * theirs is left alone, now and when the last owner goes */
static gboolean
global_changed_by_other (const VsmKnobRecord *r)
{
  g_autofree char *now = NULL;

  if (r->applied == NULL)
    return FALSE;
  now = vsm_read_attr (r->path, NULL);
  return now != NULL && !vsm_knob_value_matches (r->name, r->applied, now);
}

/* the owners left: the knobs follow the slowest of them */
static void
rebound_global (VsmGlobalState *g, GPtrArray *report)
{
  guint64 cap = owners_min_cap (g, NULL);

  for (guint i = 0; cap != G_MAXUINT64 && i < g->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (g->knobs, i);
      g_autofree char *value =
        g_strdup_printf ("%" G_GUINT64_FORMAT, vsm_plan_global_value (r->name, cap));

      if (global_changed_by_other (r) || g_strcmp0 (value, r->applied) == 0 ||
          !vsm_write_attr (r->path, value, NULL))
        continue;
      g_free (r->applied);
      g_free (r->readback);
      r->applied = g_strdup (value);
      r->readback = vsm_read_attr (r->path, NULL);
      if (report)
        g_ptr_array_add (report,
                         g_strdup_printf (_ ("%s: %s for the slowest drive left"), r->name, value));
    }
}

/* the last owner: put back what nobody else changed since */
static gboolean
restore_global (VsmGlobalState *g, GPtrArray *report, GString *failures)
{
  g_autoptr (GPtrArray) ours = g_ptr_array_new ();

  for (guint i = 0; i < g->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (g->knobs, i);
      if (!global_changed_by_other (r))
        g_ptr_array_add (ours, r);
      else if (report)
        g_ptr_array_add (report, g_strdup_printf (_ ("%s: changed by someone else since "
                                                     "vfat-smart wrote %s; left alone"),
                                                  r->name, r->applied));
    }
  return vsm_knob_records_restore (ours, report, failures);
}

/* Lets go of the vm.* knobs for bdi; the last owner puts them back. */
static gboolean
release_global (VsmGlobalState *g, const char *bdi, GPtrArray *report, GString *failures)
{
  g_autoptr (GError) local = NULL;

  if (!vsm_global_state_has_owner (g, bdi))
    return TRUE;
  vsm_global_state_drop_owner (g, bdi);
  if (g->owners->len > 0)
    {
      if (report)
        g_ptr_array_add (report, g_strdup_printf (_ ("vm.* knobs: still used by %u other drive(s)"),
                                                  g->owners->len));
      rebound_global (g, report);
    }
  else if (!restore_global (g, report, failures))
    {
      vsm_global_state_add_owner (g, bdi); /* keep the record for another try */
      return FALSE;
    }
  else
    g_ptr_array_set_size (g->knobs, 0);
  if (!vsm_global_state_save (g, &local))
    {
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);
      return FALSE;
    }
  return TRUE;
}

/* Restores (or, write_knobs FALSE, only forgets) one loaded record. */
static gboolean
restore_locked (VsmState *s, gboolean write_knobs, GPtrArray *report, GError **error)
{
  g_autoptr (VsmGlobalState) global = NULL;
  g_autoptr (GString) failures = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  gboolean ok = TRUE;
  gboolean untrusted = FALSE;

  if (write_knobs && s->knobs->len > 0 && !disk_is_present (s))
    {
      if (report)
        g_ptr_array_add (report, g_strdup (_ ("the disk is gone: nothing of it to put back")));
    }
  else if (write_knobs)
    ok = vsm_knob_records_restore (s->knobs, report, failures);

  global = vsm_global_state_load (&local);
  if (global == NULL && s->uses_global)
    {
      /* its vm.* knobs are recorded in a file not to be trusted: this
       * record stays, for a restore once that is dealt with */
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);
      untrusted = ok;
      ok = FALSE;
    }
  else if (global != NULL)
    ok &= release_global (global, s->bdi, report, failures);
  g_clear_error (&local);

  if (ok && !vsm_state_remove (s->bdi, &local))
    {
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);
      ok = FALSE;
    }
  if (!ok)
    g_set_error (error, VSM_ERROR, untrusted ? VSM_ERROR_STATE : VSM_ERROR_APPLY,
                 _ ("restore incomplete, state kept for another try: %s"), failures->str);
  return ok;
}

static VsmState *
state_from_plan (const VsmDevice *d, const VsmPlan *plan, const VsmState *previous,
                 const char *source, const VsmIntent *intent)
{
  VsmState *s = vsm_state_new (d->bdi);

  s->intent = intent ? vsm_intent_copy (intent) : vsm_intent_new (source);
  s->updated_by = g_strdup (source);

  s->disk_node = g_strdup (d->disk_node);
  s->disk_name = g_strdup (d->disk_name);
  s->disk_syspath = g_strdup (d->disk_syspath);
  s->serial = g_strdup (d->usb ? d->usb->serial : NULL);
  s->class_name = g_strdup (vsm_class_to_string (plan->klass));
  s->flush_mode = g_strdup (vsm_flush_mode_to_string (plan->flush_mode));
  s->fs_type = g_strdup (plan->fs_type);
  s->mount_options = g_strdup (plan->mount_options);
  s->cap_bytes = plan->cap_bytes;
  s->pace_writeback = plan->pace_writeback;
  s->bandwidth = plan->bandwidth;
  s->updated_at = g_get_real_time ();
  for (guint i = 0; i < plan->reasons->len; i++)
    g_ptr_array_add (s->reasons, vsm_reason_ref (g_ptr_array_index (plan->reasons, i)));

  if (previous != NULL)
    {
      /* whoever applied first owns the knobs (udev's stay past a mount) */
      s->source = g_strdup (previous->source);
      s->applied_at = previous->applied_at;
      s->baseline_stat = g_strdup (previous->baseline_stat);
    }
  else
    {
      VsmDiskStat st;
      s->source = g_strdup (source);
      s->applied_at = s->updated_at;
      if (!vsm_disk_stat_read (d->disk_name, &st, &s->baseline_stat, NULL))
        s->baseline_stat = NULL;
    }
  return s;
}

/* The record of one knob the plan writes: the originals recorded before
 * (by this disk, or by another owner of the vm.* knobs), else read now. */
static VsmKnobRecord *
record_for (VsmApply *txn, const char *bdi, const char *name, GError **error)
{
  gboolean global = vsm_knob_is_global (name);
  VsmKnobRecord *prev =
    find_record (global ? txn->global->knobs : (txn->previous ? txn->previous->knobs : NULL), name);
  VsmKnobRecord *r;

  if (prev != NULL)
    return vsm_knob_record_copy (prev);
  r = g_new0 (VsmKnobRecord, 1);
  r->name = g_strdup (name);
  if (!vsm_knob_record_read (r, bdi, error))
    {
      vsm_knob_record_free (r);
      return NULL;
    }
  return r;
}

/* Step 1: what the record will say, originals first. */
static gboolean
plan_records (VsmApply *txn, const VsmDevice *d, const VsmPlan *plan, GError **error)
{
  gboolean uses_global = FALSE;

  for (guint i = 0; i < plan->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (plan->knobs, i);
      VsmKnobRecord *r = record_for (txn, d->bdi, k->name, error);

      if (r == NULL)
        return FALSE;
      g_clear_pointer (&r->applied, g_free);
      g_clear_pointer (&r->readback, g_free);
      if (vsm_knob_is_global (k->name) && txn->defer_global)
        {
          vsm_knob_record_free (r);
          continue;
        }
      if (vsm_knob_is_global (k->name))
        {
          uses_global = TRUE;
          if (find_record (txn->global->knobs, k->name) == NULL)
            g_ptr_array_add (txn->global->knobs, vsm_knob_record_copy (r));
          vsm_knob_record_free (r);
        }
      else
        g_ptr_array_add (txn->next->knobs, r);
    }
  /* knobs an earlier plan set and this one does not go back to original;
   * until commit they stay in the record, so that a crash restores them */
  for (guint i = 0; txn->previous && i < txn->previous->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (txn->previous->knobs, i);
      if (vsm_plan_get_knob (plan, r->name) != NULL)
        continue;
      g_ptr_array_add (txn->unset, g_strdup (r->name));
      g_ptr_array_add (txn->next->knobs, vsm_knob_record_copy (r));
    }
  txn->plan_uses_global = uses_global;
  txn->next->uses_global = uses_global || txn->was_global_owner;
  if (uses_global)
    vsm_global_state_add_owner (txn->global, d->bdi);
  return TRUE;
}

/* Step 2: the write-ahead record, before any knob is touched. */
static gboolean
write_ahead (VsmApply *txn, GError **error)
{
  txn->next->pending = TRUE;
  if (!vsm_state_save (txn->next, error))
    return FALSE;
  txn->ahead_saved = TRUE;
  if (txn->plan_uses_global)
    {
      if (!vsm_global_state_save (txn->global, error))
        return FALSE;
      txn->global_saved = TRUE;
    }
  return TRUE;
}

/* Writes value to path, remembering first how to put back what is there
 * (knob: its name, for a knob that reads back relative to the threshold). */
static gboolean
write_undoable (VsmApply *txn, const char *bdi, const char *knob, const char *path,
                const char *value, GError **error)
{
  Undo *u = g_new0 (Undo, 1);
  gboolean ok = knob ? vsm_knob_read_for_restore (bdi, knob, NULL, &u->path, &u->value, error)
                     : (u->value = vsm_read_attr (path, error)) != NULL;

  if (!ok)
    {
      undo_free (u);
      return FALSE;
    }
  if (u->path == NULL)
    u->path = g_strdup (path);
  g_ptr_array_add (txn->undo, u);
  return vsm_write_attr (path, value, error);
}

static gboolean
write_and_verify (VsmApply *txn, VsmKnobRecord *r, const char *value, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (!write_undoable (txn, txn->next->bdi, r->name, r->path, value, error))
    return FALSE;
  g_free (r->applied);
  g_free (r->readback);
  r->applied = g_strdup (value);
  r->readback = vsm_read_attr (r->path, &local);
  if (!vsm_knob_value_matches (r->name, value, r->readback))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, _ ("%s: wrote %s but read back %s"), r->path,
                   value, r->readback ? r->readback : local->message);
      return FALSE;
    }
  return TRUE;
}

/* Step 3: the writes. */
static gboolean
write_knobs (VsmApply *txn, const VsmPlan *plan, GError **error)
{
  for (guint i = 0; i < txn->unset->len; i++)
    {
      VsmKnobRecord *r = find_record (txn->next->knobs, g_ptr_array_index (txn->unset, i));
      g_assert (r != NULL);
      if (!write_undoable (txn, NULL, NULL, r->restore_path, r->restore_value, error))
        return FALSE;
    }
  for (guint i = 0; i < plan->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (plan->knobs, i);
      gboolean global = vsm_knob_is_global (k->name);
      VsmKnobRecord *r = find_record (global ? txn->global->knobs : txn->next->knobs, k->name);
      g_autofree char *value = NULL;

      if (global && txn->defer_global)
        continue;
      g_assert (r != NULL);
      if (global && global_changed_by_other (r))
        continue; /* theirs; status shows it as changed */
      if (global)
        value = g_strdup_printf (
          "%" G_GUINT64_FORMAT,
          vsm_plan_global_value (
            k->name, MIN (plan->cap_bytes, owners_min_cap (txn->global, txn->next->bdi))));
      if (!write_and_verify (txn, r, value ? value : k->value, error))
        return FALSE;
    }
  return TRUE;
}

/* An apply interrupted before its commit: undo it. */
static gboolean
recover_pending (VsmState *s, GError **error)
{
  g_debug ("%s: undoing an apply that did not finish", s->bdi);
  return restore_locked (s, TRUE, NULL, error);
}

/* Loads this disk's committed record (NULL when none), after undoing an
 * interrupted apply or forgetting a record of another disk. */
static gboolean
load_previous (VsmApply *txn, const VsmDevice *d, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (VsmState) s = vsm_state_load (d->bdi, &local);

  if (s == NULL)
    {
      if (g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        return TRUE;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                   _ ("the record of %s cannot be trusted (%s); nothing was changed. "
                      "`vfat-smart forget %s` drops it"),
                   d->bdi, local->message, d->bdi);
      return FALSE;
    }
  if (s->pending)
    {
      txn->was_pending = TRUE;
      return recover_pending (s, error);
    }
  if (g_strcmp0 (s->disk_syspath, d->disk_syspath) != 0)
    return restore_locked (s, FALSE, NULL, error); /* numbers of a disk that went */
  txn->previous = g_steal_pointer (&s);
  return TRUE;
}

static gboolean
plan_has_global (const VsmPlan *plan)
{
  for (guint i = 0; i < plan->knobs->len; i++)
    if (vsm_knob_is_global (((VsmKnob *)g_ptr_array_index (plan->knobs, i))->name))
      return TRUE;
  return FALSE;
}

VsmApply *
vsm_apply_begin (const VsmDevice *d, const VsmPlan *plan, const VsmApplyOptions *options,
                 GError **error)
{
  VsmApply *txn;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (d != NULL && plan != NULL, NULL);
  g_return_val_if_fail (plan->managed, NULL);

  if (!check_preconditions (d, plan, error))
    return NULL;
  txn = g_new0 (VsmApply, 1);
  txn->undo = g_ptr_array_new_with_free_func ((GDestroyNotify)undo_free);
  txn->unset = g_ptr_array_new_with_free_func (g_free);
  txn->lock = vsm_state_lock (lock_wait (options), error);
  if (txn->lock < 0 || !load_previous (txn, d, error) ||
      (txn->global = vsm_global_state_load (error)) == NULL)
    {
      txn_free (txn);
      return NULL;
    }
  if (options && options->only_if_recorded && txn->previous == NULL && !txn->was_pending)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED,
                   _ ("%s: no longer managed (restored meanwhile): not applied"), d->bdi);
      txn_free (txn);
      return NULL;
    }
  txn->was_global_owner = vsm_global_state_has_owner (txn->global, d->bdi);
  /* the mount table is read only for a plan with vm.* knobs, so the udev
   * helper's usual path reads none */
  txn->defer_global = options && options->global_while_mounted && plan_has_global (plan) &&
                      !vsm_disk_is_mounted (d->disk_syspath);
  txn->next = state_from_plan (d, plan, txn->previous, options ? options->source : "cli",
                               options ? options->intent : NULL);

  if (!plan_records (txn, d, plan, &local) || !write_ahead (txn, &local) ||
      !write_knobs (txn, plan, &local))
    {
      g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GString) msg = g_string_new (local->message);
      gint code = local->domain == VSM_ERROR ? local->code : VSM_ERROR_APPLY;
      gboolean clean = vsm_apply_abort (txn, report);

      for (guint i = 0; i < report->len; i++)
        g_string_append_printf (msg, "; %s", (char *)g_ptr_array_index (report, i));
      if (clean && code == VSM_ERROR_FAILED)
        code = VSM_ERROR_APPLY;
      g_set_error_literal (error, VSM_ERROR, clean ? code : VSM_ERROR_APPLY, msg->str);
      return NULL;
    }
  return txn;
}

VsmState *
vsm_apply_commit (VsmApply *txn, GError **error)
{
  g_autoptr (GError) local = NULL;
  VsmState *out;

  g_return_val_if_fail (txn != NULL, NULL);
  for (guint i = 0; i < txn->unset->len; i++)
    {
      VsmKnobRecord *r = find_record (txn->next->knobs, g_ptr_array_index (txn->unset, i));
      g_ptr_array_remove (txn->next->knobs, r);
    }
  txn->next->pending = FALSE;
  txn->next->uses_global = txn->plan_uses_global;
  if (!disk_is_present (txn->next))
    {
      /* pulled during the transaction: its knobs went with it, and so goes
       * the record (udev's remove event may have come and gone already) */
      g_autoptr (VsmState) gone = g_steal_pointer (&txn->next);
      restore_locked (gone, FALSE, NULL, NULL);
      txn_free (txn);
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                   _ ("%s went away while its knobs were written; nothing is left recorded"),
                   gone->disk_node ? gone->disk_node : gone->bdi);
      return NULL;
    }
  if ((txn->plan_uses_global && !vsm_global_state_save (txn->global, &local)) ||
      !vsm_state_save (txn->next, &local))
    {
      g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GString) msg = g_string_new (local->message);

      vsm_apply_abort (txn, report);
      for (guint i = 0; i < report->len; i++)
        g_string_append_printf (msg, "; %s", (char *)g_ptr_array_index (report, i));
      g_set_error_literal (error, VSM_ERROR, VSM_ERROR_APPLY, msg->str);
      return NULL;
    }
  if (txn->was_global_owner && !txn->plan_uses_global)
    {
      /* this plan needs the vm.* knobs no more; the last owner restores */
      g_autoptr (GString) failures = g_string_new (NULL);
      if (!release_global (txn->global, txn->next->bdi, NULL, failures))
        g_warning ("%s: letting go of the vm.* knobs failed: %s", txn->next->bdi, failures->str);
    }
  out = g_steal_pointer (&txn->next);
  txn_free (txn);
  return out;
}

gboolean
vsm_apply_abort (VsmApply *txn, GPtrArray *report)
{
  g_autoptr (GString) failures = g_string_new (NULL);
  g_autoptr (GError) local = NULL;
  gboolean undone = TRUE;

  g_return_val_if_fail (txn != NULL, FALSE);
  for (guint i = txn->undo->len; i > 0; i--)
    {
      Undo *u = g_ptr_array_index (txn->undo, i - 1);
      g_autoptr (GError) err = NULL;
      if (!vsm_write_attr (u->path, u->value, &err))
        {
          g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", err->message);
          undone = FALSE;
        }
    }

  if (!undone)
    {
      /* keep the write-ahead record: restore can bring the originals back */
      g_ptr_array_add (report, g_strdup_printf (_ ("NOT every knob could be put back (%s); the "
                                                   "originals stay recorded for `vfat-smart "
                                                   "restore`"),
                                                failures->str));
      txn_free (txn);
      return FALSE;
    }
  if (txn->global_saved && !txn->was_global_owner)
    {
      vsm_global_state_drop_owner (txn->global, txn->next->bdi);
      if (!vsm_global_state_save (txn->global, &local))
        g_string_append_printf (failures, "%s", local->message);
    }
  g_clear_error (&local);
  /* a record that could not be written ahead left the one before in place */
  if (txn->ahead_saved && (txn->previous ? !vsm_state_save (txn->previous, &local)
                                         : !vsm_state_remove (txn->next->bdi, &local)))
    g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);

  if (failures->len > 0)
    g_ptr_array_add (report,
                     g_strdup_printf (_ ("every knob was put back as it was, but the record could "
                                         "not be: %s"),
                                      failures->str));
  else if (txn->undo->len > 0)
    g_ptr_array_add (report, g_strdup (_ ("every knob was put back as it was")));
  else
    g_ptr_array_add (report, g_strdup (_ ("nothing was changed")));
  txn_free (txn);
  return failures->len == 0;
}

VsmState *
vsm_apply (const VsmDevice *d, const VsmPlan *plan, const VsmApplyOptions *options, GError **error)
{
  VsmApply *txn = vsm_apply_begin (d, plan, options, error);

  return txn ? vsm_apply_commit (txn, error) : NULL;
}

static gboolean
restore_or_forget (const char *bdi, gboolean write_knobs, guint lock_wait_ms, GPtrArray *report,
                   GError **error)
{
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) local = NULL;
  gboolean ok;
  int lock;

  g_return_val_if_fail (bdi != NULL, FALSE);
  if (!vsm_bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("bad bdi '%s'"), bdi);
      return FALSE;
    }
  lock = vsm_state_lock (lock_wait_ms ? lock_wait_ms : VSM_LOCK_WAIT_MS, error);
  if (lock < 0)
    return FALSE;
  s = vsm_state_load (bdi, &local);
  if (s == NULL && !write_knobs && g_error_matches (local, VSM_ERROR, VSM_ERROR_STATE))
    {
      /* a record not to be trusted is forgotten as it is */
      s = vsm_state_new (bdi);
      g_clear_error (&local);
    }
  if (s == NULL)
    {
      vsm_state_unlock (lock);
      if (g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED, _ ("nothing is recorded for %s"),
                     bdi);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  ok = restore_locked (s, write_knobs, report, error);
  vsm_state_unlock (lock);
  return ok;
}

gboolean
vsm_restore (const char *bdi, guint lock_wait_ms, GPtrArray *report, GError **error)
{
  return restore_or_forget (bdi, TRUE, lock_wait_ms, report, error);
}

gboolean
vsm_forget (const char *bdi, guint lock_wait_ms, GPtrArray *report, GError **error)
{
  return restore_or_forget (bdi, FALSE, lock_wait_ms, report, error);
}

/* vm.* owners whose disk has no record (a crash, a full /run): let go.
 * untrusted (may be NULL): global.state could not be trusted (then it is
 * left alone, and not counted as a failure when untrusted is given). */
static gboolean
drop_phantom_owners (GPtrArray *report, GString *failures, gboolean *untrusted)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (VsmGlobalState) g = vsm_global_state_load (&local);
  g_autoptr (GPtrArray) phantoms = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = TRUE;

  if (g == NULL)
    {
      if (untrusted != NULL)
        {
          *untrusted = TRUE;
          return TRUE;
        }
      g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", local->message);
      return FALSE;
    }
  for (guint i = 0; i < g->owners->len; i++)
    {
      const char *bdi = g_ptr_array_index (g->owners, i);
      g_autoptr (VsmState) s = vsm_state_load (bdi, NULL);
      if (s == NULL)
        g_ptr_array_add (phantoms, g_strdup (bdi));
    }
  for (guint i = 0; i < phantoms->len; i++)
    {
      const char *bdi = g_ptr_array_index (phantoms, i);
      if (report)
        g_ptr_array_add (report, g_strdup_printf (_ ("vm.* knobs: %s had no record"), bdi));
      ok &= release_global (g, bdi, report, failures);
    }
  return ok;
}

gboolean
vsm_release_phantom_owners (GPtrArray *report, GError **error)
{
  g_autoptr (GString) failures = g_string_new (NULL);
  int lock = vsm_state_lock (VSM_LOCK_WAIT_MS, error);
  gboolean ok;

  if (lock < 0)
    return FALSE;
  ok = drop_phantom_owners (report, failures, NULL);
  vsm_state_unlock (lock);
  if (!ok)
    g_set_error_literal (error, VSM_ERROR, VSM_ERROR_APPLY, failures->str);
  return ok;
}

gboolean
vsm_restore_all (GPtrArray *report, GError **error)
{
  g_autoptr (GPtrArray) corrupt = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) states = NULL;
  g_autoptr (GString) failures = g_string_new (NULL);
  gboolean ok = TRUE;
  gboolean global_untrusted = FALSE;
  int lock = vsm_state_lock (VSM_LOCK_WAIT_MS, error);

  if (lock < 0)
    return FALSE;
  /* global.state, when it cannot be trusted, is listed here too */
  states = vsm_state_list (corrupt, error);
  if (states == NULL)
    {
      vsm_state_unlock (lock);
      return FALSE;
    }
  for (guint i = 0; i < states->len; i++)
    {
      VsmState *s = g_ptr_array_index (states, i);
      g_autoptr (GError) local = NULL;

      if (report)
        g_ptr_array_add (report, g_strdup_printf ("%s (%s):", s->disk_node, s->bdi));
      if (!restore_locked (s, TRUE, report, &local))
        {
          /* kept because its vm.* record cannot be trusted: listed below */
          if (g_error_matches (local, VSM_ERROR, VSM_ERROR_STATE))
            g_ptr_array_add (corrupt, g_strdup_printf ("%s: %s", s->bdi, local->message));
          else
            {
              g_string_append_printf (failures, "%s%s: %s", failures->len ? "; " : "", s->bdi,
                                      local->message);
              ok = FALSE;
            }
        }
    }
  ok &= drop_phantom_owners (report, failures, &global_untrusted);
  vsm_state_unlock (lock);

  if (!ok)
    {
      g_set_error_literal (error, VSM_ERROR, VSM_ERROR_APPLY, failures->str);
      return FALSE;
    }
  if (corrupt->len > 0)
    {
      g_autoptr (GString) list = g_string_new (NULL);
      for (guint i = 0; i < corrupt->len; i++)
        g_string_append_printf (list, "%s%s", i ? "; " : "",
                                (char *)g_ptr_array_index (corrupt, i));
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                   _ ("records that cannot be trusted were left alone (check the knobs they name "
                      "by hand, then `vfat-smart forget FILE`): %s"),
                   list->str);
      return FALSE;
    }
  return TRUE;
}

gboolean
vsm_forget_file (const char *name, GError **error)
{
  g_autofree char *path = g_build_filename (vsm_rundir (), name, NULL);
  struct stat st;
  gboolean ok;
  int lock;

  /* a file that is not there is nothing to forget (the name is judged
   * below: a bad one says so) */
  if (name[0] != '.' && g_lstat (path, &st) != 0 && errno == ENOENT)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED, _ ("nothing is recorded as %s"), name);
      return FALSE;
    }
  lock = vsm_state_lock (VSM_LOCK_WAIT_MS, error);
  if (lock < 0)
    return FALSE;
  ok = vsm_state_remove_file (name, error);
  vsm_state_unlock (lock);
  return ok;
}
