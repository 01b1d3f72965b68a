/* vsm-stall.c - a throttled writer with no writeback under way
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-stall.h"

#include <string.h>

static const VsmStallLimits default_limits = {
  .window_usec = 30 * G_USEC_PER_SEC,
  .stall_usec = 15 * G_USEC_PER_SEC,
  .max_gap_usec = 5 * G_USEC_PER_SEC,
  .slack_bytes = 0,
};

void
vsm_stall_init (VsmStall *stall, const VsmStallLimits *limits)
{
  memset (stall, 0, sizeof *stall);
  stall->limits = limits ? *limits : default_limits;
}

const char *
vsm_stall_verdict_to_string (VsmStallVerdict verdict)
{
  switch (verdict)
    {
    case VSM_STALL_NONE:
      return "none";
    case VSM_STALL_SUSPECT:
      return "suspect";
    case VSM_STALL_STALLED:
      return "stalled";
    case VSM_STALL_UNKNOWN:
    default:
      return "unknown";
    }
}

/* past the point where strict_limit throttles a writer: the middle of the
 * device's background threshold and its threshold (wb_dirty_freerun), with
 * a tenth of room for the counters' error */
static gboolean
throttled (const VsmStallSample *s)
{
  guint64 bg = s->bg_limit_bytes > 0 && s->bg_limit_bytes < s->limit_bytes ? s->bg_limit_bytes
                                                                           : s->limit_bytes / 2;
  double freerun = ((double)s->limit_bytes + (double)bg) / 2.0;

  return s->limit_bytes > 0 && (double)s->dirty_bytes >= 0.9 * freerun;
}

static gint64
idle_within (const VsmStall *stall, gint64 now)
{
  gint64 from = now - stall->limits.window_usec, sum = 0;

  for (guint i = 0; i < VSM_STALL_RING; i++)
    {
      const VsmStallInterval *iv = &stall->ring[i];
      gint64 start = iv->end_usec - iv->length_usec;

      if (!iv->idle || iv->length_usec <= 0 || iv->end_usec <= from)
        continue;
      sum += iv->end_usec - MAX (start, from);
    }
  return sum;
}

VsmStallVerdict
vsm_stall_feed (VsmStall *stall, const VsmStallSample *s)
{
  gboolean now_throttled, idle = FALSE;
  gint64 gap;

  if (!s->per_device || s->limit_bytes == 0)
    {
      stall->have_last = FALSE;
      stall->idle_usec = 0;
      return VSM_STALL_UNKNOWN;
    }
  now_throttled = throttled (s);
  gap = stall->have_last ? s->at_usec - stall->last.at_usec : 0;
  if (stall->have_last && gap > 0 && gap <= stall->limits.max_gap_usec)
    {
      VsmStallInterval *iv = &stall->ring[stall->next];

      idle = stall->last_throttled && now_throttled &&
             s->writeback_bytes <= stall->limits.slack_bytes &&
             s->write_sectors <= stall->last.write_sectors;
      iv->end_usec = s->at_usec;
      iv->length_usec = gap;
      iv->idle = idle;
      stall->next = (stall->next + 1) % VSM_STALL_RING;
    }
  stall->last = *s;
  stall->last_throttled = now_throttled;
  stall->have_last = TRUE;
  stall->idle_usec = idle_within (stall, s->at_usec);

  if (stall->idle_usec >= stall->limits.stall_usec)
    return VSM_STALL_STALLED;
  return idle ? VSM_STALL_SUSPECT : VSM_STALL_NONE;
}

void
vsm_stall_sample_from (VsmStallSample *out, gint64 at_usec, const VsmDirtyInfo *dirty,
                       const VsmDiskStat *stat, guint64 cap_bytes)
{
  memset (out, 0, sizeof *out);
  out->at_usec = at_usec;
  out->per_device = dirty->valid && dirty->per_device && stat != NULL && stat->n_fields >= 7;
  out->dirty_bytes = dirty->dirty_bytes;
  out->writeback_bytes = dirty->writeback_bytes;
  out->limit_bytes = dirty->bdi_thresh_bytes;
  if (cap_bytes > 0 && (out->limit_bytes == 0 || cap_bytes < out->limit_bytes))
    out->limit_bytes = cap_bytes;
  if (dirty->dirty_thresh_bytes > 0 && dirty->bg_thresh_bytes > 0)
    out->bg_limit_bytes = (guint64)((double)out->limit_bytes * (double)dirty->bg_thresh_bytes /
                                    (double)dirty->dirty_thresh_bytes);
  out->write_sectors = stat ? stat->field[6] : 0;
}

gboolean
vsm_stall_drop_strict_limit (VsmPlan *plan, const char *why)
{
  VsmReason *r;

  for (guint i = 0; i < plan->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (plan->knobs, i);

      if (g_strcmp0 (k->name, "strict_limit") != 0)
        continue;
      g_free (k->value);
      k->value = g_strdup ("0");
      r = vsm_reason_parse (why);
      g_ptr_array_add (plan->reasons, r ? r : vsm_reason_new_literal (why));
      return TRUE;
    }
  return FALSE;
}
