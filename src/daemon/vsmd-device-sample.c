/* vsmd-device-sample.c - a managed disk sampled: bandwidth learned, the cap
 * kept, data at risk published, stalls noticed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-device-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* ---- sampling ---- */

static void
check_cap_drift (VsmdDevice *d)
{
  guint64 cap = vsm_dbus_device_get_cap_bytes (d->skeleton), now = 0;

  d->last_drift_check = g_get_monotonic_time ();
  if (cap == 0 || d->applying || !vsm_knob_read_u64 (d->bdi, "max_bytes", &now))
    return;
  if (fabs ((double)now - (double)cap) > DRIFT_TOLERANCE * (double)cap)
    {
      if (d->drift_retries >= DRIFT_MAX_RETRIES)
        return; /* the kernel does not hold it (above the dirty threshold) */
      d->drift_retries++;
      g_message ("%s: max_bytes reads %" G_GUINT64_FORMAT " for a cap of %" G_GUINT64_FORMAT
                 " (the dirty threshold moved): applying again",
                 d->bdi, now, cap);
      vsmd_device_start_job (d, VSMD_JOB_REAPPLY, "the cap in force drifted", NULL);
    }
}

static void
publish_sample (VsmdDevice *d, const VsmDirtyInfo *di)
{
  guint64 measured = vsm_learn_get_bandwidth (d->learn);
  guint64 bw = vsm_learn_get_cap_bandwidth (d->learn);
  guint64 cap = vsm_dbus_device_get_cap_bytes (d->skeleton);
  const char *kind = NULL;
  /* the whole system's figure counts only while this drive can own part of
   * it: not long after it last wrote */
  guint64 at_risk = vsm_at_risk_bytes (
    di, cap, g_get_monotonic_time () - d->last_write <= SYSTEM_SCOPE_USEC, &kind);

  vsm_dbus_device_set_write_bandwidth (d->skeleton, measured);
  if (measured > 0)
    vsm_dbus_device_set_bandwidth_source (d->skeleton, N_ ("measured while writing"));
  vsm_dbus_device_set_at_risk_bytes (d->skeleton, at_risk);
  vsm_dbus_device_set_at_risk_scope (d->skeleton, kind);
  vsm_dbus_device_set_seconds_to_safe (d->skeleton,
                                       bw > 1 ? round ((double)at_risk / (double)bw * 10) / 10 : 0);
  vsm_dbus_device_set_bytes_written (d->skeleton, vsm_learn_get_bytes_written (d->learn));
}

/* A writer throttled by strict_limit with no writeback under way
 * (vsm-stall.h): the kernel has the regression of "mm/block/fs: remove
 * laptop_mode" without its fix, and the cap would stall every copy. Fall
 * back once, for as long as the drive is plugged: strict_limit off,
 * max_bytes kept. */
static void
check_stall (VsmdDevice *d, const VsmDirtyInfo *di, const VsmDiskStat *st, gint64 now)
{
  VsmStallSample s;
  g_autoptr (VsmReason) why = NULL;

  if (!d->strict_on || d->strict_dropped != NULL)
    {
      VsmStallLimits limits = d->stall.limits;
      vsm_stall_init (&d->stall, &limits);
      return;
    }
  vsm_stall_sample_from (&s, now, di, st, vsm_dbus_device_get_cap_bytes (d->skeleton));
  if (vsm_stall_feed (&d->stall, &s) != VSM_STALL_STALLED)
    return;
  why = vsm_reason_new (
    N_ ("fallback: writers were throttled with no writeback under way for %.0f s of the last "
        "%.0f s (a kernel with \"mm/block/fs: remove laptop_mode\" and without \"mm: reinstate "
        "unconditional writeback start in balance_dirty_pages()\"): strict_limit dropped for "
        "this drive until it is unplugged, max_bytes kept (without strict_limit it bites only "
        "once the system's dirty data passes the freerun point)"),
    (double)d->stall.idle_usec / G_USEC_PER_SEC,
    (double)d->stall.limits.window_usec / G_USEC_PER_SEC);
  /* in the plan's reasons as its message id, translated where they are
   * shown; in the journal in English */
  d->strict_dropped = vsm_reason_serialize (why);
  g_warning ("%s: %s", d->bdi, why->text);
  vsmd_device_start_job (d, VSMD_JOB_REAPPLY, "writeback stall", NULL);
}

static gboolean
on_tick (gpointer data)
{
  VsmdDevice *d = data;
  VsmDiskStat st;
  VsmDirtyInfo di = { 0 };
  guint64 before = vsm_learn_get_bytes_written (d->learn);
  gboolean wrote = FALSE, have_stat;
  gint64 now = g_get_monotonic_time ();

  d->tick_id = 0;
  have_stat = vsm_disk_stat_read (d->disk_name, &st, NULL, NULL);
  /* a change while an apply runs is applied once it ended: the learner
   * already counts it as in force, and would not move again (the first
   * measurement's change, out of the first cap, most of all) */
  if (have_stat && vsm_learn_feed (d->learn, now, &st))
    {
      d->cap_learned = TRUE;
      d->cap_why = NULL;
    }
  if (d->cap_learned && !d->applying)
    {
      d->cap_learned = FALSE;
      if (vsm_dbus_device_get_cap_bytes (d->skeleton) > 0 &&
          vsm_learn_get_cap (d->learn) != vsm_dbus_device_get_cap_bytes (d->skeleton))
        {
          g_autofree char *bw = vsm_format_rate ((double)vsm_learn_get_bandwidth (d->learn));
          g_autofree char *from = vsm_format_bytes (vsm_dbus_device_get_cap_bytes (d->skeleton));
          g_autofree char *to = vsm_format_bytes (vsm_learn_get_cap (d->learn));
          if (d->cap_why)
            g_message ("%s: cap %s -> %s (%s, %s measured)", d->bdi, from, to, d->cap_why, bw);
          else
            g_message ("%s: cap %s -> %s (measured %s while writing)", d->bdi, from, to, bw);
          vsmd_device_start_job (d, VSMD_JOB_REAPPLY,
                                 d->cap_why ? d->cap_why : "measured while writing", NULL);
        }
    }
  wrote = vsm_learn_get_bytes_written (d->learn) > before;
  if (wrote)
    d->last_write = g_get_monotonic_time ();
  if (wrote && vsm_learn_get_bandwidth (d->learn) > 0)
    d->measured_this_mount = vsm_learn_get_bandwidth (d->learn);
  vsm_dirty_info_read (d->bdi, &di);
  publish_sample (d, &di);
  check_stall (d, &di, have_stat ? &st : NULL, now);
  vsmd_device_update_pacing (d, &di, have_stat ? &st : NULL, now);
  if (g_get_monotonic_time () - d->last_drift_check > DRIFT_CHECK_USEC)
    check_cap_drift (d);
  /* quarter-second samples until Safe, but not while only an open file keeps
   * it false (vsmd_device_update_safe) */
  if (wrote || (d->mounted && di.per_device && !vsm_dbus_device_get_safe (d->skeleton) &&
                d->writers_seen == 0))
    vsmd_device_start_ticking (d, TICK_WRITING_MS);
  else
    vsmd_device_start_ticking (d,
                               vsmd_device_is_busy (d) || d->mounted ? TICK_BUSY_MS : TICK_IDLE_MS);
  return G_SOURCE_REMOVE;
}

void
vsmd_device_start_ticking (VsmdDevice *d, guint ms)
{
  g_clear_handle_id (&d->tick_id, g_source_remove);
  d->tick_id = g_timeout_add (ms, on_tick, d);
}
