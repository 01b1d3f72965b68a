/* vsm-manager.c - facts -> class -> plan -> apply -> record, and status
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-manager.h"
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
  g_free (a);
}

static void
compute_plan (VsmAssessment *a)
{
  g_clear_pointer (&a->plan, vsm_plan_free);
  /* No measured bandwidth here: the kernel's estimate (debugfs BdiWriteBandwidth)
   * decays towards nothing while a device is idle, which is when a drive is
   * plugged or mounted; seen in the lab as an 8 MiB cap from a stale estimate.
   * Measuring belongs to whoever watches the device while it writes. */
  a->plan = vsm_plan_compute (a->device, a->classification, a->policy, a->kernel, 0);
  for (guint i = 0; i < a->policy->problems->len; i++)
    g_ptr_array_add (
      a->plan->reasons,
      g_strdup_printf (_ ("policy: %s"), (char *)g_ptr_array_index (a->policy->problems, i)));
}

VsmAssessment *
vsm_assess_device (VsmDevice *device, VsmPolicy *policy)
{
  VsmAssessment *a = g_new0 (VsmAssessment, 1);

  a->device = device;
  a->policy = policy ? policy : vsm_policy_load ();
  a->classification = vsm_classify (a->device);
  a->kernel = vsm_kernel_probe (a->device->bdi, a->policy->kernel_flush_fix);
  compute_plan (a);
  return a;
}

void
vsm_assessment_set_class (VsmAssessment *a, VsmClass klass)
{
  VsmClassification *c = a->classification;

  if (c->klass != klass)
    g_ptr_array_insert (c->reasons, 0,
                        g_strdup_printf (_ ("class set by hand to %s (detected: %s)"),
                                         vsm_class_to_string (klass),
                                         vsm_class_to_string (c->klass)));
  c->klass = klass;
  c->confidence = 100;
  compute_plan (a);
}

VsmAssessment *
vsm_assess (GUdevClient *client, const char *spec, VsmPolicy *policy, GError **error)
{
  VsmDevice *device = vsm_device_new_from_spec (client, spec, error);

  if (device == NULL)
    {
      vsm_policy_free (policy);
      return NULL;
    }
  return vsm_assess_device (device, policy);
}

VsmState *
vsm_assessment_apply (VsmAssessment *a, const char *source, GError **error)
{
  if (!a->plan->managed)
    {
      g_autoptr (GError) local = NULL;
      g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);

      /* left alone now; undo what an earlier apply did */
      if (!vsm_knobs_restore (a->device->bdi, report, &local) &&
          !g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_SUPPORTED, _ ("%s is not managed: %s"),
                   a->device->disk_node,
                   (char *)g_ptr_array_index (a->plan->reasons, a->plan->reasons->len - 1));
      return NULL;
    }
  return vsm_knobs_apply (a->device, a->plan, source, error);
}

gboolean
vsm_restore_all (GPtrArray *report, GError **error)
{
  g_autoptr (GPtrArray) states = vsm_state_list (error);
  g_autoptr (GString) failures = g_string_new (NULL);

  if (states == NULL)
    return FALSE;
  for (guint i = 0; i < states->len; i++)
    {
      VsmState *s = g_ptr_array_index (states, i);
      g_autoptr (GError) local = NULL;

      if (report)
        g_ptr_array_add (report, g_strdup_printf ("%s (%s):", s->disk_node, s->bdi));
      if (!vsm_knobs_restore (s->bdi, report, &local))
        g_string_append_printf (failures, "%s%s: %s", failures->len ? "; " : "", s->bdi,
                                local->message);
    }
  if (failures->len > 0)
    {
      g_set_error_literal (error, VSM_ERROR, VSM_ERROR_APPLY, failures->str);
      return FALSE;
    }
  return TRUE;
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
  g_free (e);
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

  e->at_risk_bytes = e->dirty.dirty_bytes + e->dirty.writeback_bytes;
  /* the kernel's estimate decays towards nothing while the device is idle */
  if (e->dirty.per_device && e->dirty.bandwidth >= VSM_POLICY_MIN_BANDWIDTH * 10)
    {
      e->safe_bandwidth = e->dirty.bandwidth;
      e->safe_bandwidth_source = "kernel estimate";
    }
  else if (e->io.valid && e->io.write_throughput > 0)
    {
      e->safe_bandwidth = (guint64)e->io.write_throughput;
      e->safe_bandwidth_source = "measured since apply";
    }
  else if (e->state->bandwidth > 0)
    {
      e->safe_bandwidth = e->state->bandwidth;
      e->safe_bandwidth_source = "plan";
    }
  if (e->safe_bandwidth > 0)
    e->seconds_to_safe = (double)e->at_risk_bytes / (double)e->safe_bandwidth;
}

GPtrArray *
vsm_status_collect (GUdevClient *client, const char *bdi, GError **error)
{
  g_autoptr (GPtrArray) states = vsm_state_list (error);
  g_autoptr (VsmGlobalState) global = NULL;
  GPtrArray *out;

  if (states == NULL)
    return NULL;
  global = vsm_global_state_load (NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_status_entry_free);
  while (states->len > 0)
    {
      VsmState *s = g_ptr_array_steal_index (states, 0);
      VsmStatusEntry *e;
      VsmDiskStat before, now;

      if (bdi != NULL && !g_str_equal (s->bdi, bdi))
        {
          vsm_state_free (s);
          continue;
        }
      e = g_new0 (VsmStatusEntry, 1);
      e->state = s;
      e->present = s->disk_syspath && g_file_test (s->disk_syspath, G_FILE_TEST_IS_DIR);
      e->mounts = e->present ? vsm_mounts_for_disk (client, s->disk_syspath)
                             : g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_mount_info_free);
      e->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)knob_status_free);
      for (guint i = 0; i < s->knobs->len; i++)
        add_knob_status (e, g_ptr_array_index (s->knobs, i), FALSE);
      for (guint i = 0; global && i < global->knobs->len; i++)
        {
          /* borrowed pointer must outlive global: copy into the state */
          VsmKnobRecord *copy = vsm_knob_record_copy (g_ptr_array_index (global->knobs, i));
          if (!g_ptr_array_find_with_equal_func (global->owners, s->bdi, g_str_equal, NULL))
            {
              vsm_knob_record_free (copy);
              continue;
            }
          g_ptr_array_add (s->knobs, copy);
          add_knob_status (e, copy, TRUE);
        }

      if (e->present && vsm_disk_stat_parse (s->baseline_stat, &before) &&
          vsm_disk_stat_read (s->disk_name, &now, NULL, NULL))
        vsm_disk_stat_delta (&before, &now, &e->io);
      e->seconds_since_apply = (double)(g_get_real_time () - s->applied_at) / 1e6;
      if (e->present)
        vsm_dirty_info_read (s->bdi, &e->dirty);
      compute_safety (e);
      g_ptr_array_add (out, e);
    }
  return out;
}
