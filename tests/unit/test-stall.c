/* test-stall.c - the writeback stall detector (vsm-stall.h) on counter
 * feeds (tests/fixtures/stall: constructed ones, and ones recorded in the lab;
 * see their headers)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-stall.h"

#include <stdio.h>
#include <string.h>

#define CAP (40u * 1024 * 1024)

/* a feed under tests/fixtures/stall/, line by line */
static GStrv
feed_lines (const char *name)
{
  g_autofree char *path = g_build_filename (FIXTURE_DIR, "stall", name, NULL);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return g_strsplit (text, "\n", -1);
}

/* each line through what the daemon reads: the bdi stats text, the disk's
 * stat; returns the first time (ms) the detector said stalled, -1 never */
static gint64
run_feed (const char *name, guint *n_suspect)
{
  g_auto (GStrv) lines = feed_lines (name);
  VsmStall stall;
  gint64 first = -1;
  guint n = 0;

  vsm_stall_init (&stall, NULL);
  *n_suspect = 0;
  for (char **l = lines; *l; l++)
    {
      guint64 v[7];
      g_autofree char *stats = NULL;
      g_autofree char *disk = NULL;
      VsmDirtyInfo di;
      VsmDiskStat st;
      VsmStallSample s;
      VsmStallVerdict verdict;

      if (**l == '#' || **l == '\0')
        continue;
      g_assert_cmpint (sscanf (*l,
                               "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                               " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                               " %" G_GUINT64_FORMAT,
                               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]),
                       ==, 7);
      /* as debugfs prints it (mm/backing-dev.c, bdi_debug_stats_show) */
      stats = g_strdup_printf ("BdiWriteback:       %8" G_GUINT64_FORMAT " kB\n"
                               "BdiReclaimable:     %8" G_GUINT64_FORMAT " kB\n"
                               "BdiDirtyThresh:     %8" G_GUINT64_FORMAT " kB\n"
                               "DirtyThresh:        %8" G_GUINT64_FORMAT " kB\n"
                               "BackgroundThresh:   %8" G_GUINT64_FORMAT " kB\n"
                               "BdiDirtied:         %8u kB\nBdiWritten:         %8u kB\n"
                               "BdiWriteBandwidth:  %8u kBps\nb_dirty:            %8u\n",
                               v[2], v[1], v[3], v[4], v[5], 0u, 0u, 20000u, 1u);
      g_assert_true (vsm_bdi_stats_parse (stats, &di));
      g_assert_cmpuint (di.bg_thresh_bytes, ==, v[5] * 1024);
      disk = g_strdup_printf ("0 0 0 0 100 0 %" G_GUINT64_FORMAT " 0 0 0 0 0 0 0 0 0 0", v[6]);
      g_assert_true (vsm_disk_stat_parse (disk, &st));
      vsm_stall_sample_from (&s, (gint64)v[0] * 1000, &di, &st, CAP);
      g_assert_cmpuint (s.limit_bytes, ==, CAP);
      verdict = vsm_stall_feed (&stall, &s);
      g_assert_cmpint (verdict, !=, VSM_STALL_UNKNOWN);
      if (verdict == VSM_STALL_SUSPECT)
        (*n_suspect)++;
      if (verdict == VSM_STALL_STALLED && first < 0)
        first = (gint64)v[0];
      n++;
    }
  g_assert_cmpuint (n, >, 60);
  return first;
}

static void
test_healthy_feed (void)
{
  guint suspect;

  g_assert_cmpint (run_feed ("healthy.feed", &suspect), ==, -1);
  g_assert_cmpuint (suspect, ==, 0);
}

static void
test_stalled_feed (void)
{
  guint suspect;
  gint64 at = run_feed ("stalled.feed", &suspect);

  /* 4 s of every 6 s throttled with nothing in writeback: 15 s of it within
   * 30 s is reached in the fourth round, not before 15 s */
  g_assert_cmpint (at, >=, 15000);
  g_assert_cmpint (at, <=, 30000);
  g_assert_cmpuint (suspect, >, 0);
}

/* A recorded feed (tests/fixtures/stall/recorded-*.feed): what vfat-smartd
 * read once a second while a copy ran in the lab, as the kernel printed it:
 * "MS CAP STRICT | debugfs bdi stats, newlines as spaces | /sys/block/DISK/stat".
 * Each line goes through what the daemon does with it (vsmd-device-sample.c):
 * the stats parsed, the per-CPU counter error discounted for the recording
 * machine's CPUs ("possible cpus 0-N" in a comment), the detector fed only
 * while strict_limit is set. Returns the first time the detector said
 * stalled (-1 never); counts the samples past the throttle point and those
 * of them with writeback under way. */
static gint64
replay_recorded (const char *name, guint *n_samples, guint *n_throttled, guint *n_throttled_wb,
                 guint *n_suspect)
{
  g_auto (GStrv) lines = feed_lines (name);
  VsmStall stall;
  gint64 first = -1;
  guint cpus = 0;

  vsm_stall_init (&stall, NULL);
  *n_samples = *n_throttled = *n_throttled_wb = *n_suspect = 0;
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) part = NULL;
      g_auto (GStrv) tok = NULL;
      g_autoptr (GString) stats = g_string_new (NULL);
      guint64 ms = 0, cap = 0;
      char strict[8] = "";
      const char *c;
      VsmDirtyInfo di;
      VsmDiskStat st;
      VsmStallSample s;
      VsmStallVerdict verdict;
      guint64 bg;

      if (**l == '\0')
        continue;
      if (**l == '#')
        {
          if ((c = strstr (*l, "possible cpus 0-")) != NULL)
            cpus = (guint)g_ascii_strtoull (c + strlen ("possible cpus 0-"), NULL, 10) + 1;
          else if (strstr (*l, "possible cpus 0,") != NULL ||
                   strstr (*l, "possible cpus 0)") != NULL)
            cpus = 1;
          continue;
        }
      part = g_strsplit (*l, "|", 3);
      g_assert_cmpuint (g_strv_length (part), ==, 3);
      g_assert_cmpint (
        sscanf (part[0], "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %7s", &ms, &cap, strict), ==,
        3);
      /* the kernel's lines back: a new one at each "Key:" */
      tok = g_strsplit_set (g_strstrip (part[1]), " ", -1);
      for (char **t = tok; *t; t++)
        {
          if (**t == '\0')
            continue;
          if (g_str_has_suffix (*t, ":") && stats->len > 0)
            g_string_append_c (stats, '\n');
          else if (stats->len > 0)
            g_string_append_c (stats, ' ');
          g_string_append (stats, *t);
        }
      g_assert_true (vsm_bdi_stats_parse (stats->str, &di));
      g_assert_cmpuint (cpus, >, 0);
      vsm_dirty_info_discount_residual (&di, vsm_wb_stat_error_bytes (cpus, 4096));
      g_assert_true (vsm_disk_stat_parse (g_strstrip (part[2]), &st));
      if (strcmp (strict, "1") != 0)
        {
          /* the daemon feeds it only while strict_limit is on */
          vsm_stall_init (&stall, NULL);
          continue;
        }
      vsm_stall_sample_from (&s, (gint64)ms * 1000, &di, &st, cap);
      verdict = vsm_stall_feed (&stall, &s);
      g_assert_cmpint (verdict, !=, VSM_STALL_UNKNOWN);
      (*n_samples)++;
      /* past wb_dirty_freerun, as vsm-stall.c judges it */
      bg = s.bg_limit_bytes > 0 && s.bg_limit_bytes < s.limit_bytes ? s.bg_limit_bytes
                                                                    : s.limit_bytes / 2;
      if ((double)s.dirty_bytes >= 0.9 * ((double)s.limit_bytes + (double)bg) / 2.0)
        {
          (*n_throttled)++;
          if (s.writeback_bytes > 0)
            (*n_throttled_wb)++;
        }
      if (verdict == VSM_STALL_SUSPECT)
        (*n_suspect)++;
      if (verdict == VSM_STALL_STALLED && first < 0)
        first = (gint64)ms;
    }
  return first;
}

/* Linux 7.2 in the lab (its fix for the regression in), a capped copy with
 * strict_limit: writers throttled, writeback always under way: never a stall */
static void
test_recorded_healthy (gconstpointer name)
{
  guint n, throttled, throttled_wb, suspect;

  g_assert_cmpint (replay_recorded (name, &n, &throttled, &throttled_wb, &suspect), ==, -1);
  g_test_message (
    "%s: %u samples, %u past the throttle point (%u with writeback under way), %u suspect",
    (const char *)name, n, throttled, throttled_wb, suspect);
  /* a recording that never throttled the writer would prove nothing */
  g_assert_cmpuint (n, >=, 30);
  /* recorded: 8 of 34 samples past it (vfat-smartd's pacing keeps most below),
   * each with writeback under way, as on a kernel with the fix */
  g_assert_cmpuint (throttled, >=, 5);
  g_assert_cmpuint (throttled_wb, ==, throttled);
  g_assert_cmpuint (suspect, ==, 0);
}

/* without the device's own figures (debugfs not mounted) nothing is told */
static void
test_unknown (void)
{
  VsmStall stall;
  VsmStallSample s = { .at_usec = 1, .per_device = FALSE, .dirty_bytes = CAP, .limit_bytes = CAP };
  VsmDirtyInfo system = { .valid = TRUE, .per_device = FALSE, .dirty_bytes = CAP };
  VsmDiskStat st = { .n_fields = 17 };

  vsm_stall_init (&stall, NULL);
  g_assert_cmpint (vsm_stall_feed (&stall, &s), ==, VSM_STALL_UNKNOWN);
  vsm_stall_sample_from (&s, 2, &system, &st, CAP);
  g_assert_false (s.per_device);
  g_assert_cmpstr (vsm_stall_verdict_to_string (vsm_stall_feed (&stall, &s)), ==, "unknown");
}

/* samples far apart (the daemon ticked slowly) are not joined into a stall */
static void
test_gaps (void)
{
  VsmStall stall;
  VsmStallLimits limits = { .window_usec = 30 * G_USEC_PER_SEC,
                            .stall_usec = 15 * G_USEC_PER_SEC,
                            .max_gap_usec = 5 * G_USEC_PER_SEC };

  vsm_stall_init (&stall, &limits);
  for (int i = 0; i < 20; i++)
    {
      VsmStallSample s = { .at_usec = i * 10 * G_USEC_PER_SEC,
                           .per_device = TRUE,
                           .dirty_bytes = CAP,
                           .limit_bytes = CAP,
                           .write_sectors = 7 };
      g_assert_cmpint (vsm_stall_feed (&stall, &s), ==, VSM_STALL_NONE);
    }
}

/* the fallback goes through the plan: strict_limit 0, max_bytes kept */
static void
test_drop_strict_limit (void)
{
  VsmPlan *plan = g_new0 (VsmPlan, 1);
  VsmKnob *strict = g_new0 (VsmKnob, 1), *bytes = g_new0 (VsmKnob, 1);

  plan->knobs = g_ptr_array_new_with_free_func (g_free);
  plan->reasons = vsm_reasons_new ();
  g_assert_false (vsm_stall_drop_strict_limit (plan, "why"));
  strict->name = g_strdup ("strict_limit");
  strict->value = g_strdup ("1");
  bytes->name = g_strdup ("max_bytes");
  bytes->value = g_strdup ("41943040");
  g_ptr_array_add (plan->knobs, bytes);
  g_ptr_array_add (plan->knobs, strict);
  g_assert_true (vsm_stall_drop_strict_limit (plan, "why"));
  g_assert_cmpstr (vsm_plan_get_knob (plan, "strict_limit"), ==, "0");
  g_assert_cmpstr (vsm_plan_get_knob (plan, "max_bytes"), ==, "41943040");
  g_assert_cmpstr (((VsmReason *)g_ptr_array_index (plan->reasons, 0))->text, ==, "why");
  g_free (strict->name);
  g_free (strict->value);
  g_free (bytes->name);
  g_free (bytes->value);
  g_ptr_array_unref (plan->knobs);
  g_ptr_array_unref (plan->reasons);
  g_free (plan);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stall/healthy-feed", test_healthy_feed);
  g_test_add_func ("/stall/stalled-feed", test_stalled_feed);
  g_test_add_data_func ("/stall/recorded-7.2-healthy", "recorded-7.2-healthy.feed",
                        test_recorded_healthy);
  g_test_add_func ("/stall/unknown", test_unknown);
  g_test_add_func ("/stall/gaps", test_gaps);
  g_test_add_func ("/stall/drop-strict-limit", test_drop_strict_limit);
  return g_test_run ();
}
