/* vsm-manager.c - facts -> class -> plan -> apply -> record, and status
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-manager.h"
#include "vsm-drive-history.h"
#include "vsm-mount.h"
#include "vsm-stall.h"
#include "vsm-util.h"

#include <glib/gi18n.h>

void
vsm_assessment_free (VsmAssessment *a)
{
  if (a == NULL)
    return;
  vsm_device_free (a->device);
  vsm_classification_free (a->classification);
  vsm_policy_free (a->policy);
  vsm_kernel_free (a->kernel);
  vsm_plan_free (a->plan);
  vsm_intent_free (a->intent);
  g_free (a);
}

/* a person's class and the filesystem now on the device go into the facts
 * and the classification; the rest of the overrides into the plan */
static void
apply_fact_overrides (VsmAssessment *a, const VsmOverrides *o)
{
  VsmClassification *c = a->classification;

  if (o == NULL)
    return;
  if (o->fs_type != NULL && g_strcmp0 (o->fs_type, a->device->fs_type) != 0)
    {
      g_free (a->device->fs_type);
      a->device->fs_type = g_strdup (o->fs_type);
    }
  if (o->set_class)
    {
      if (c->klass != o->klass)
        g_ptr_array_insert (c->reasons, 0,
                            vsm_reason_new (N_ ("class set by hand to %s (detected: %s)"),
                                            vsm_class_to_string (o->klass),
                                            vsm_class_to_string (c->klass)));
      c->klass = o->klass;
      c->confidence = 100;
    }
}

/* What this drive taught on earlier mounts (the daemon measured it while
 * it wrote): the plan starts from it unless someone decided otherwise. */
static const VsmOverrides *
learned_overrides (const VsmDevice *d, const VsmOverrides *o, VsmOverrides *buf, char **why)
{
  g_autofree char *identity = NULL;
  g_autoptr (VsmDriveHistory) h = NULL;
  g_autofree char *told = NULL;
  g_autoptr (VsmReason) learned = NULL;

  if (o && o->bandwidth > 0)
    return o;
  identity = vsm_drive_identity (d);
  h = identity ? vsm_drive_history_load (identity, NULL) : NULL;
  if (h == NULL || h->bandwidth == 0)
    return o;
  if (o)
    *buf = *o;
  buf->bandwidth = h->bandwidth;
  told = vsm_drive_history_describe (h);
  /* translated where the plan's reasons are shown */
  learned = vsm_reason_new (N_ ("learned on this drive (%s)"), told);
  *why = vsm_reason_serialize (learned);
  buf->bandwidth_source = *why;
  return buf;
}

VsmAssessment *
vsm_assess_device (VsmDevice *device, VsmPolicy *policy, const VsmOverrides *overrides)
{
  VsmAssessment *a = g_new0 (VsmAssessment, 1);
  VsmOverrides learned = { 0 };
  g_autofree char *learned_why = NULL;

  g_return_val_if_fail (device != NULL, NULL);
  a->device = device;
  a->policy = policy ? policy : vsm_policy_load ();
  a->classification = vsm_classify (a->device);
  a->kernel = vsm_kernel_probe (a->device->bdi, a->policy->kernel_flush_fix);
  a->intent = vsm_intent_from_overrides (NULL, overrides);
  apply_fact_overrides (a, overrides);
  /* No measured bandwidth here: the kernel's estimate (debugfs BdiWriteBandwidth)
   * decays towards nothing while a device is idle, which is when a drive is
   * plugged or mounted; seen in the lab as an 8 MiB cap from a stale estimate.
   * Measuring belongs to whoever watches the device while it writes (the
   * daemon, vsm-learn); what it learned comes back from the drive's history. */
  overrides = learned_overrides (a->device, overrides, &learned, &learned_why);
  a->plan = vsm_plan_compute (a->device, a->classification, a->policy, a->kernel, overrides);
  for (guint i = 0; i < a->policy->problems->len; i++)
    g_ptr_array_add (
      a->plan->reasons,
      vsm_reason_new (N_ ("policy: %s"), (char *)g_ptr_array_index (a->policy->problems, i)));
  return a;
}

VsmAssessment *
vsm_assess (GUdevClient *client, const char *spec, VsmPolicy *policy, const VsmOverrides *overrides,
            GError **error)
{
  VsmDevice *device;

  g_return_val_if_fail (G_UDEV_IS_CLIENT (client), NULL);
  device = vsm_device_new_from_spec (client, spec, error);
  if (device == NULL)
    {
      vsm_policy_free (policy);
      return NULL;
    }
  if (overrides != NULL && overrides->probe_fs)
    {
      /* the filesystem on the device now: udev may not have seen it yet */
      g_autofree char *fs_type = vsm_probe_fs_type (device->devnode, error);
      VsmOverrides now = *overrides;

      if (fs_type == NULL)
        {
          vsm_device_free (device);
          vsm_policy_free (policy);
          return NULL;
        }
      now.fs_type = fs_type;
      return vsm_assess_device (device, policy, &now);
    }
  return vsm_assess_device (device, policy, overrides);
}

static gboolean
apply_left_alone (const VsmAssessment *a, const VsmApplyOptions *o, GError **error)
{
  g_autoptr (GError) local = NULL;

  /* left alone now: undo what an earlier apply did */
  if (!vsm_restore (a->device->bdi, o ? o->lock_wait_ms : 0, NULL, &local) &&
      !g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

gboolean
vsm_assessment_apply (const VsmAssessment *a, const VsmApplyOptions *o, VsmApplyStep step,
                      gpointer step_data, VsmState **state, GError **error)
{
  VsmApply *txn;
  g_autoptr (GError) local = NULL;
  g_autoptr (VsmIntent) intent = NULL;
  VsmApplyOptions with_intent = { 0 };

  g_return_val_if_fail (a != NULL && state != NULL, FALSE);
  *state = NULL;
  if (!a->plan->managed)
    {
      /* the step first: when it fails (a mount that did not happen), what
       * an earlier apply left stays as it was, record and knobs */
      if (step == NULL)
        return apply_left_alone (a, o, error);
      if (!step (a, step_data, error))
        return FALSE;
      if (!apply_left_alone (a, o, &local))
        g_warning ("%s: left alone now, but what an earlier apply set could not be put back "
                   "(`vfat-smart restore` tries again): %s",
                   a->device->devnode, local->message);
      return TRUE;
    }

  if (o != NULL)
    with_intent = *o;
  intent = a->intent ? vsm_intent_copy (a->intent) : vsm_intent_new (NULL);
  if (intent->source == NULL)
    intent->source = g_strdup (with_intent.source);
  g_free (intent->policy_origin);
  intent->policy_origin = g_strdup (a->policy->source);
  with_intent.intent = intent;
  txn = vsm_apply_begin (a->device, a->plan, &with_intent, error);
  if (txn == NULL)
    return FALSE;
  if (step != NULL && !step (a, step_data, &local))
    {
      g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GString) msg = g_string_new (local->message);

      vsm_apply_abort (txn, report);
      for (guint i = 0; i < report->len; i++)
        g_string_append_printf (msg, "; %s", (char *)g_ptr_array_index (report, i));
      g_set_error_literal (error, local->domain, local->code, msg->str);
      return FALSE;
    }
  *state = vsm_apply_commit (txn, error);
  return *state != NULL;
}

typedef struct
{
  VsmMountStep step;
  gpointer data;
  const char *options;
} MountStep;

static gboolean
mount_step (const VsmAssessment *a, gpointer data, GError **error)
{
  MountStep *m = data;
  return m->step (a, m->options, m->data, error);
}

gboolean
vsm_mount (const VsmMountIntent *m, VsmMountStep step, gpointer data, VsmAssessment **assessment,
           VsmState **state, GError **error)
{
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  const VsmApplyOptions by_mount = { VSM_SOURCE_MOUNT, 0 };
  VsmOverrides o = { 0 };
  g_autoptr (VsmAssessment) a = NULL;
  g_autofree char *options = NULL;
  MountStep s = { step, data, NULL };
  gboolean ok;

  g_return_val_if_fail (m != NULL && step != NULL && state != NULL, FALSE);
  *state = NULL;
  if (assessment != NULL)
    *assessment = NULL;
  if (m->options != NULL && !vsm_options_are_valid (m->options))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   _ ("-o %s: cannot be read (an open quote?)"), m->options);
      return FALSE;
    }
  if (m->overrides != NULL)
    o = *m->overrides;
  o.probe_fs = TRUE;
  a = vsm_assess (client, m->spec, NULL, &o, error);
  if (a == NULL)
    return FALSE;
  if (!vsm_fs_type_is_fat (a->device->fs_type))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_SUPPORTED,
                   _ ("%s holds %s, not vfat or exfat: vfat-smart does not mount it"),
                   a->device->devnode, a->device->fs_type);
      ok = FALSE;
    }
  else
    {
      options = vsm_options_merge (a->plan->mount_options, m->options ? m->options : "");
      s.options = options;
      ok = m->dry_run ? mount_step (a, &s, error)
                      : vsm_assessment_apply (a, &by_mount, mount_step, &s, state, error);
    }
  if (assessment != NULL)
    *assessment = g_steal_pointer (&a);
  return ok;
}

/* the intent a re-apply plans from: the record's (or, for an older
 * record, its source only), with the options in force when they changed */
static VsmIntent *
reapply_intent (const VsmState *s, const VsmReapply *r)
{
  VsmIntent *intent = s->intent ? vsm_intent_copy (s->intent) : vsm_intent_new (s->source);

  if (r->set_user_options)
    vsm_intent_set_user_options (intent, r->user_options);
  if (r->set_class)
    {
      intent->set_class = TRUE;
      intent->klass = r->klass;
    }
  return intent;
}

VsmAssessment *
vsm_assess_intent (VsmDevice *device, VsmIntent *intent, const VsmReapply *r)
{
  g_autoptr (VsmIntent) owned = intent;
  g_autoptr (VsmKernel) kernel = NULL;
  g_autofree char *why = NULL, *told = NULL;
  VsmPolicy *policy = r->policy ? r->policy : vsm_policy_load ();
  const char *reason = r->reason;
  VsmAssessment *a;
  VsmOverrides o;

  vsm_intent_to_overrides (owned, &o, &why);
  o.bandwidth = r->bandwidth;
  o.bandwidth_source = r->bandwidth_source;
  o.one_big_file = r->one_big_file;
  kernel = vsm_kernel_probe (device->bdi, VSM_FLUSH_FIX_UNKNOWN);
  vsm_user_options_apply_for_kernel (owned->user_options, policy,
                                     kernel->has_strict_limit && kernel->has_max_bytes);
  a = vsm_assess_device (device, policy, &o);
  if (r->drop_strict_limit != NULL)
    vsm_stall_drop_strict_limit (a->plan, r->drop_strict_limit);
  /* the whole intent, with who stated it and the options in force */
  vsm_intent_free (a->intent);
  a->intent = g_steal_pointer (&owned);
  told = vsm_intent_describe (a->intent);
  g_ptr_array_add (a->plan->reasons,
                   *told ? vsm_reason_new (N_ ("applied again (%s), as asked by %s: %s"),
                                           reason ? reason : "?",
                                           a->intent->source ? a->intent->source : "?", told)
                         : vsm_reason_new (N_ ("applied again (%s)"), reason ? reason : "?"));
  return a;
}

/* the options in force changed: kept first (a restart adopts them); when
 * their ignore-devices match the drive it is restored (*restored) */
static gboolean
user_options_changed (const VsmDevice *d, const VsmReapply *r, gboolean *restored, GError **error)
{
  g_autofree char *which = NULL;

  *restored = FALSE;
  if (!vsm_user_options_store (d->bdi, r->user_options, error))
    return FALSE;
  if (!vsm_user_options_ignore_drive (r->user_options, d->disk_syspath, &which))
    return TRUE;
  vsm_note (r->notes, _ ("in the ignore-devices of the options (%s): restored"), which);
  *restored = TRUE;
  return vsm_restore (d->bdi, VSM_LOCK_WAIT_MS, r->notes, error);
}

gboolean
vsm_reapply_device (VsmDevice *device, const VsmReapply *r, VsmState **state, GError **error)
{
  g_autoptr (VsmDevice) d = device;
  g_autoptr (VsmState) record = NULL;
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) out = NULL;
  const VsmApplyOptions options = { VSM_SOURCE_DAEMON, VSM_LOCK_WAIT_MS, TRUE, TRUE, NULL };
  gboolean restored = FALSE;

  if (state != NULL)
    *state = NULL;
  record = vsm_state_load (d->bdi, error);
  if (record == NULL || (r->set_user_options && !user_options_changed (d, r, &restored, error)))
    {
      vsm_policy_free (r->policy);
      return FALSE;
    }
  if (restored)
    {
      vsm_policy_free (r->policy);
      return TRUE;
    }
  a = vsm_assess_intent (g_steal_pointer (&d), reapply_intent (record, r), r);
  if (!vsm_assessment_apply (a, &options, NULL, NULL, &out, error))
    return FALSE;
  if (state != NULL)
    *state = g_steal_pointer (&out);
  return TRUE;
}

gboolean
vsm_reapply (GUdevClient *client, const char *bdi, const VsmReapply *r, VsmState **state,
             GError **error)
{
  g_autoptr (VsmState) record = vsm_state_load (bdi, error);
  VsmDevice *d;

  if (record == NULL)
    {
      vsm_policy_free (r->policy);
      return FALSE;
    }
  d = vsm_device_new_from_spec (client, record->disk_syspath, error);
  if (d == NULL)
    {
      vsm_policy_free (r->policy);
      return FALSE;
    }
  return vsm_reapply_device (d, r, state, error);
}

static void
knob_status_free (VsmKnobStatus *k)
{
  g_free (k->now);
  g_free (k);
}

void
vsm_status_entry_free (VsmStatusEntry *e)
{
  if (e == NULL)
    return;
  vsm_state_free (e->state);
  g_ptr_array_unref (e->mounts);
  g_ptr_array_unref (e->knobs);
  g_free (e->safety_note);
  vsm_unmount_record_free (e->last_unmount);
  vsm_drive_history_free (e->history);
  g_free (e);
}

void
vsm_status_free (VsmStatus *status)
{
  if (status == NULL)
    return;
  g_ptr_array_unref (status->entries);
  g_ptr_array_unref (status->corrupt);
  g_free (status);
}

static void
add_knob_status (VsmStatusEntry *e, VsmKnobRecord *r, gboolean global)
{
  VsmKnobStatus *k = g_new0 (VsmKnobStatus, 1);
  k->record = r;
  k->global = global;
  k->drift = vsm_knob_check (r, &k->now);
  g_ptr_array_add (e->knobs, k);
}

static void
compute_safety (VsmStatusEntry *e)
{
  const char *mode = e->state->flush_mode;
  g_autofree char *cap = vsm_format_bytes (e->state->cap_bytes);
  g_autofree char *bw = vsm_format_rate ((double)e->state->bandwidth);

  if (g_strcmp0 (mode, "dirty-cap") == 0)
    e->safety_note = g_strdup_printf (
      _ ("no flush; at most %s can be at risk (%.1f s of writing at %s), "
         "where udisks' flush would write each file out on close"),
      cap, e->state->bandwidth ? (double)e->state->cap_bytes / (double)e->state->bandwidth : 0.0,
      bw);
  else if (g_strcmp0 (mode, "off") == 0)
    e->safety_note = g_strdup (_ ("LESS SAFE than udisks' default: no flush and no cap, "
                                  "eject before unplugging"));
  else if (g_strcmp0 (mode, "sync") == 0)
    e->safety_note = g_strdup (_ ("safer than udisks' default (sync), and slower"));
  else
    e->safety_note = g_strdup (_ ("as safe as udisks' default (flush)"));

  /* without the daemon nobody knows when the drive last wrote: the bound */
  e->at_risk_bytes = vsm_at_risk_bytes (&e->dirty, e->state->cap_bytes, TRUE, &e->at_risk_kind);
  /* the kernel's estimate decays towards nothing while the device is idle */
  if (e->dirty.per_device && e->dirty.bandwidth >= VSM_POLICY_MIN_BANDWIDTH * 10)
    {
      e->safe_bandwidth = e->dirty.bandwidth;
      e->safe_bandwidth_source = N_ ("kernel estimate");
    }
  else if (e->io.valid && e->io.write_throughput > 0)
    {
      e->safe_bandwidth = (guint64)e->io.write_throughput;
      e->safe_bandwidth_source = N_ ("measured since apply");
    }
  else if (e->state->bandwidth > 0)
    {
      e->safe_bandwidth = e->state->bandwidth;
      e->safe_bandwidth_source = N_ ("plan");
    }
  if (e->safe_bandwidth > 0)
    e->seconds_to_safe = (double)e->at_risk_bytes / (double)e->safe_bandwidth;
}

static void
add_global_knobs (VsmStatusEntry *e, const VsmGlobalState *global)
{
  VsmState *s = e->state;

  if (global == NULL || !vsm_global_state_has_owner (global, s->bdi))
    return;
  for (guint i = 0; i < global->knobs->len; i++)
    {
      /* the status borrows records from the state: copy them in */
      VsmKnobRecord *copy = vsm_knob_record_copy (g_ptr_array_index (global->knobs, i));
      g_ptr_array_add (s->knobs, copy);
      add_knob_status (e, copy, TRUE);
    }
}

/* the drive's history, by its identity (which needs the drive's facts) */
static VsmDriveHistory *
drive_history_of (GUdevClient *client, const VsmState *s)
{
  g_autoptr (VsmDevice) d = vsm_device_new_from_spec (client, s->disk_syspath, NULL);
  g_autofree char *identity = d ? vsm_drive_identity (d) : NULL;

  return identity ? vsm_drive_history_load (identity, NULL) : NULL;
}

static VsmStatusEntry *
status_entry_new (GUdevClient *client, VsmState *s, const VsmGlobalState *global)
{
  VsmStatusEntry *e = g_new0 (VsmStatusEntry, 1);
  g_autoptr (GPtrArray) unmounts = vsm_history_unmounts (s->bdi, 1);
  guint n_own = s->knobs->len;
  VsmDiskStat before, now;

  e->state = s;
  e->present = s->disk_syspath && g_file_test (s->disk_syspath, G_FILE_TEST_IS_DIR);
  e->mounts = e->present ? vsm_mounts_for_disk (s->disk_syspath)
                         : g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_mount_info_free);
  e->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)knob_status_free);
  for (guint i = 0; i < n_own; i++)
    add_knob_status (e, g_ptr_array_index (s->knobs, i), FALSE);
  add_global_knobs (e, global);

  if (e->present && vsm_disk_stat_parse (s->baseline_stat, &before) &&
      vsm_disk_stat_read (s->disk_name, &now, NULL, NULL))
    vsm_disk_stat_delta (&before, &now, &e->io);
  e->seconds_since_apply = (double)(g_get_real_time () - s->applied_at) / 1e6;
  if (e->present)
    vsm_dirty_info_read (s->bdi, &e->dirty);
  if (unmounts->len > 0)
    e->last_unmount = g_ptr_array_steal_index (unmounts, 0);
  if (e->present)
    e->history = drive_history_of (client, s);
  compute_safety (e);
  return e;
}

VsmStatus *
vsm_status_collect (GUdevClient *client, const char *bdi, GError **error)
{
  g_autoptr (VsmStatus) status = g_new0 (VsmStatus, 1);
  g_autoptr (GPtrArray) states = NULL;
  g_autoptr (VsmGlobalState) global = NULL;

  status->corrupt = g_ptr_array_new_with_free_func (g_free);
  states = vsm_state_list (status->corrupt, error);
  if (states == NULL)
    return NULL;
  global = vsm_global_state_load (NULL);

  status->entries = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_status_entry_free);
  while (states->len > 0)
    {
      VsmState *s = g_ptr_array_steal_index (states, 0);

      if (bdi != NULL && !g_str_equal (s->bdi, bdi))
        vsm_state_free (s);
      else
        g_ptr_array_add (status->entries, status_entry_new (client, s, global));
    }
  return g_steal_pointer (&status);
}

gboolean
vsm_forget_drive_history (GUdevClient *client, const char *what, char **identity, GError **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (what != NULL, FALSE);
  if (vsm_drive_identity_is_valid (what))
    id = g_strdup (what);
  else
    {
      g_autoptr (VsmDevice) d = vsm_device_new_from_spec (client, what, error);
      if (d == NULL)
        return FALSE;
      id = vsm_drive_identity (d);
      if (id == NULL)
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                       _ ("%s has no USB serial and no filesystem UUID: nothing is remembered "
                          "about it"),
                       what);
          return FALSE;
        }
    }
  if (!vsm_drive_history_forget (id, error))
    return FALSE;
  if (identity)
    *identity = g_steal_pointer (&id);
  return TRUE;
}

/* the knobs go back once no mount of the disk remains, when they were set
 * for a mount (udev's stay for the next mount) */
gboolean
vsm_unmounted (const VsmDevice *d, GPtrArray *notes, GError **error)
{
  g_autoptr (VsmState) state = vsm_state_load (d->bdi, NULL);
  g_autoptr (GPtrArray) report = NULL;

  if (state == NULL)
    return TRUE;
  if (g_strcmp0 (state->source, "mount") != 0 || vsm_disk_is_mounted (d->disk_syspath))
    {
      vsm_note (notes, _ ("knobs kept: %s"),
                g_strcmp0 (state->source, "mount") != 0 ? _ ("they were not applied for a mount")
                                                        : _ ("another mount of the disk remains"));
      return TRUE;
    }
  report = g_ptr_array_new_with_free_func (g_free);
  if (!vsm_restore (d->bdi, 0, report, error))
    {
      g_prefix_error (error, _ ("unmounted, but restoring the knobs failed: "));
      return FALSE;
    }
  for (guint i = 0; i < report->len; i++)
    vsm_note (notes, "%s", (char *)g_ptr_array_index (report, i));
  return TRUE;
}

/* Whether the vm.* knobs are to be planned again: the kernel has no
 * per-device cap, the admin allows the global fallback, and whether a
 * managed drive is mounted changed since *planned_for (updated). */
gboolean
vsm_global_knobs_due (gboolean device_cap, gboolean mounted, int *planned_for)
{
  g_autoptr (VsmPolicy) p = NULL;

  if (device_cap || *planned_for == (int)mounted)
    return FALSE;
  p = vsm_policy_load ();
  if (!p->allow_global_knobs)
    return FALSE;
  g_message ("vm.* knobs: a managed drive was %s: applying again",
             mounted ? "mounted" : "unmounted");
  *planned_for = mounted;
  return TRUE;
}
