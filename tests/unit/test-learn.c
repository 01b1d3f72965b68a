/* test-learn.c - the cap controller on recorded stat sequences
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-learn.h"

#include <string.h>

#define MB 1000000.0
#define MIB (G_GUINT64_CONSTANT (1024) * 1024)
#define SEC G_USEC_PER_SEC

static const VsmLearnLimits limits = { 2.0, 8 * MIB, 512 * MIB };

/* A drive, sampled once a second: what it writes (bytes/s), how busy it
 * is (share of the second), what it reads. */
typedef struct
{
  VsmDiskStat stat;
  gint64 now;
} Drive;

static void
drive_init (Drive *d)
{
  memset (d, 0, sizeof *d);
  d->stat.n_fields = 17;
}

static gboolean
drive_step (Drive *d, VsmLearn *l, double write_rate, double busy, guint64 read_bytes)
{
  d->now += SEC;
  d->stat.field[6] += (guint64)(write_rate * busy) / 512;
  d->stat.field[2] += read_bytes / 512;
  d->stat.field[9] += (guint64)(busy * 1000);
  return vsm_learn_feed (l, d->now, &d->stat);
}

static guint
run (Drive *d, VsmLearn *l, guint seconds, double rate, double busy)
{
  guint changes = 0;
  for (guint i = 0; i < seconds; i++)
    changes += drive_step (d, l, rate, busy, 0);
  return changes;
}

/* /sys/block/sdb/stat once a second (17 fields; the first line is
 * test-parsers' stat_61_before) during a copy at 39000 sectors per busy
 * second: written by hand in the kernel's format, not recorded in the
 * lab. Writes start in the third line. */
static const char *const recorded[] = {
  "189 0 9746 120 15 0 120 40 0 30 160 0 0 0 0 2 1",
  "189 0 9746 120 15 0 120 40 0 30 160 0 0 0 0 2 1",
  "189 0 9746 120 60 0 39120 2040 2 1010 2160 0 0 0 0 2 1",
  "189 0 9746 120 105 0 78120 4040 2 2010 4160 0 0 0 0 2 1",
  "189 0 9746 120 150 0 117120 6040 2 3010 6160 0 0 0 0 2 1",
  "189 0 9746 120 195 0 156120 8040 2 4010 8160 0 0 0 0 2 1",
  "189 0 9746 120 240 0 195120 10040 2 5010 10160 0 0 0 0 2 1",
  "189 0 9746 120 285 0 234120 12040 2 6010 12160 0 0 0 0 2 1",
  "189 0 9746 120 330 0 273120 14040 0 7010 14160 0 0 0 0 3 2",
  "189 0 9746 120 330 0 273120 14040 0 7010 14160 0 0 0 0 3 2",
};

static void
test_recorded (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 35000000);
  guint changes = 0;

  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 66 * MIB); /* 70 MB, whole MiB */
  for (guint i = 0; i < G_N_ELEMENTS (recorded); i++)
    {
      VsmDiskStat s;
      g_assert_true (vsm_disk_stat_parse (recorded[i], &s));
      changes += vsm_learn_feed (l, (gint64)i * SEC, &s);
    }
  /* 39000 sectors per busy second = 19.97 MB/s */
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 19.968, 0.01);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 38 * MIB);
  g_assert_cmpuint (vsm_learn_get_bytes_written (l), ==, 273000 * 512);
}

static void
test_steady_and_damped (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 35000000);
  Drive d;

  drive_init (&d);
  vsm_learn_feed (l, 0, &d.stat);
  /* the first measurement, after 1 s, moves the cap at once (the plan's
   * first cap was a guess) */
  g_assert_cmpuint (run (&d, l, 1, 20 * MB, 1.0), ==, 1);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 20.0, 0.01);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 38 * MIB);
  /* a 10 % wobble is inside the hysteresis: nothing moves */
  g_assert_cmpuint (run (&d, l, 30, 22 * MB, 1.0), ==, 0);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 38 * MIB);
  /* the drive at half the speed: the cap follows, then waits 5 s before
   * the next change */
  g_assert_cmpuint (run (&d, l, 1, 10 * MB, 1.0), ==, 1);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 30 * MIB); /* 16 MB/s, the running estimate */
  g_assert_cmpuint (run (&d, l, 4, 10 * MB, 1.0), ==, 0);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 30 * MIB);
  g_assert_cmpuint (run (&d, l, 1, 10 * MB, 1.0), ==, 1);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 19 * MIB);
}

static void
test_idle_gaps (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 20000000);
  Drive d;

  drive_init (&d);
  vsm_learn_feed (l, 0, &d.stat);
  /* idle: nothing written, nothing learned */
  g_assert_cmpuint (run (&d, l, 60, 0, 0), ==, 0);
  g_assert_cmpuint (vsm_learn_get_bandwidth (l), ==, 0);
  /* trickle: 64 KiB/s with the device busy 5 % of the time teaches nothing */
  g_assert_cmpuint (run (&d, l, 60, 1.3 * MB, 0.05), ==, 0);
  g_assert_cmpuint (vsm_learn_get_bandwidth (l), ==, 0);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 38 * MIB);
  /* a half-second burst is not enough either (needs 1 s busy, 8 MiB) */
  g_assert_cmpuint (run (&d, l, 1, 20 * MB, 0.5), ==, 0);
  g_assert_cmpuint (vsm_learn_get_bandwidth (l), ==, 0);
  /* ... and an idle gap ends the stretch: the next half second starts anew */
  run (&d, l, 1, 0, 0);
  run (&d, l, 1, 20 * MB, 0.5);
  g_assert_cmpuint (vsm_learn_get_bandwidth (l), ==, 0);
  /* after a pause, a real copy of 60 MB/s: learned, and the learned value
   * survives idling */
  run (&d, l, 1, 0, 0);
  run (&d, l, 3, 60 * MB, 1.0);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 60.0, 0.01);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 114 * MIB);
  run (&d, l, 600, 0, 0);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 60.0, 0.01);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 114 * MIB);
}

static void
test_slows_down (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 20000000);
  gint64 last_change = -1;
  Drive d;

  drive_init (&d);
  vsm_learn_feed (l, 0, &d.stat);
  run (&d, l, 10, 40 * MB, 1.0);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 76 * MIB);
  /* its cache fills: 40 -> 8 MB/s; the cap follows, one change per 5 s */
  for (guint i = 0; i < 60; i++)
    if (drive_step (&d, l, 8 * MB, 1.0, 0))
      {
        if (last_change >= 0)
          g_assert_cmpint (d.now - last_change, >=, VSM_LEARN_MIN_CHANGE_USEC);
        last_change = d.now;
      }
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 8.0, 0.1);
  /* 15 MiB would be exact; the hysteresis may leave it one step above */
  g_assert_cmpuint (vsm_learn_get_cap (l), >=, 15 * MIB);
  g_assert_cmpuint (vsm_learn_get_cap (l), <=, 18 * MIB);
}

static void
test_mixed_and_backwards (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 20000000);
  Drive d;

  drive_init (&d);
  vsm_learn_feed (l, 0, &d.stat);
  /* reading as much as writing: the busy time is shared, not a write rate */
  for (guint i = 0; i < 10; i++)
    drive_step (&d, l, 20 * MB, 1.0, 20000000);
  g_assert_cmpuint (vsm_learn_get_bandwidth (l), ==, 0);
  /* counters going backwards (another disk took the name): the stretch
   * starts anew, what was learned stays */
  run (&d, l, 1, 20 * MB, 1.0);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 20.0, 0.01);
  memset (d.stat.field, 0, sizeof d.stat.field);
  g_assert_false (vsm_learn_feed (l, d.now + SEC, &d.stat));
  g_assert_cmpuint (vsm_learn_get_n_measurements (l), ==, 1);
  /* the same time twice, time going backwards: ignored */
  g_assert_false (vsm_learn_feed (l, d.now, &d.stat));
  g_assert_false (vsm_learn_feed (l, 0, &d.stat));
  /* 11 fields (old kernels) work too */
  d.stat.n_fields = 11;
  d.now += 2 * SEC;
  vsm_learn_feed (l, d.now, &d.stat);
  run (&d, l, 3, 30 * MB, 1.0);
  g_assert_cmpuint (vsm_learn_get_n_measurements (l), ==, 4);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 28.75, 0.01);
}

static void
test_clamps_and_link (void)
{
  g_autoptr (VsmLearn) l = NULL;
  Drive d;

  g_assert_cmpuint (vsm_learn_cap_for (&limits, 100000), ==, 8 * MIB);
  g_assert_cmpuint (vsm_learn_cap_for (&limits, 10000000000), ==, 512 * MIB);
  g_assert_cmpuint (vsm_learn_cap_for (&limits, G_MAXUINT64), ==, 512 * MIB);
  g_assert_cmpuint (vsm_learn_link_bandwidth (480), ==, 35000000);
  g_assert_cmpuint (vsm_learn_link_bandwidth (12), ==, 875000);
  g_assert_cmpuint (vsm_learn_link_bandwidth (0), ==, 0);

  /* a very slow drive stays at the minimum, whatever it measures */
  l = vsm_learn_new (&limits, 20000000);
  drive_init (&d);
  vsm_learn_feed (l, 0, &d.stat);
  run (&d, l, 30, 1 * MB, 1.0);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 1.0, 0.01);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 8 * MIB);
}

/* new limits, and a cap someone else applied: what was measured stays */
static void
test_set_limits (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 20000000);
  VsmLearnLimits four = { 4.0, 8 * MIB, 512 * MIB };
  Drive d;

  drive_init (&d);
  vsm_learn_feed (l, 0, &d.stat);
  run (&d, l, 6, 60 * MB, 1.0);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 114 * MIB);
  vsm_learn_set_limits (l, &limits, 38 * MIB);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 38 * MIB);
  g_assert_cmpfloat_with_epsilon (vsm_learn_get_bandwidth (l) / MB, 60.0, 0.01);
  /* writing moves it back, once the damping allows (5 s after the last change) */
  g_assert_cmpuint (run (&d, l, 5, 60 * MB, 1.0), ==, 1);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 114 * MIB);
  vsm_learn_set_limits (l, &four, 114 * MIB);
  g_assert_cmpuint (run (&d, l, 5, 60 * MB, 1.0), ==, 1);
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 228 * MIB);
}

/* the cap's one formula (the plan's too): whole MiB, within the clamps */
static void
test_cap_formula (void)
{
  static const guint64 bandwidths[] = { 0, 1, 700000, 3500000, 12345678, 90000000, G_MAXUINT64 };

  for (gsize i = 0; i < G_N_ELEMENTS (bandwidths); i++)
    {
      guint64 cap = vsm_learn_cap_for (&limits, bandwidths[i]);
      g_assert_cmpuint (cap % MIB, ==, 0);
      g_assert_cmpuint (cap, >=, limits.cap_min_bytes);
      g_assert_cmpuint (cap, <=, limits.cap_max_bytes);
    }
  g_assert_cmpuint (vsm_learn_cap_for (&limits, 10 * MIB), ==, 20 * MIB);
  /* the seconds a cap holds: a quarter of them for many files where
   * vfat-smartd paces, all of them for one big file and elsewhere */
  g_assert_cmpfloat (vsm_learn_cap_seconds (2, TRUE, FALSE), ==, 0.5);
  g_assert_cmpfloat (vsm_learn_cap_seconds (2, TRUE, TRUE), ==, 2);
  g_assert_cmpfloat (vsm_learn_cap_seconds (2, FALSE, FALSE), ==, 2);
  g_assert_cmpfloat (vsm_learn_cap_seconds (2, FALSE, TRUE), ==, 2);
}

/* new seconds move a measured cap at once (no damping), an unmeasured one
 * not at all (the plan's cap stands) */
static void
test_set_seconds (void)
{
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 20000000);
  Drive d;

  drive_init (&d);
  g_assert_false (vsm_learn_set_seconds (l, 0.5));
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 38 * MIB);
  g_assert_cmpuint (run (&d, l, 3, 16 * MB, 1.0), ==, 1); /* the first measurement */
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 8 * MIB);  /* 8 MB: the minimum */
  g_assert_true (vsm_learn_set_seconds (l, 2.0));         /* within the damping's 5 s */
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 30 * MIB);
  g_assert_false (vsm_learn_set_seconds (l, 2.0));
  g_assert_true (vsm_learn_set_seconds (l, 0.5));
  g_assert_cmpuint (vsm_learn_get_cap (l), ==, 8 * MIB);
}

/* a NULL learner is refused before it is read (the check came after the
 * first reads of it: it could never fail, the call crashed instead) */
static void
test_feed_null (void)
{
  VsmDiskStat stat = { { 0 }, 17 };

  g_test_expect_message ("vfat-smart", G_LOG_LEVEL_CRITICAL, "*l != NULL*");
  g_assert_false (vsm_learn_feed (NULL, 0, &stat));
  g_test_assert_expected_messages ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/learn/kernel-format", test_recorded);
  g_test_add_func ("/learn/feed-null", test_feed_null);
  g_test_add_func ("/learn/cap-formula", test_cap_formula);
  g_test_add_func ("/learn/steady-damped", test_steady_and_damped);
  g_test_add_func ("/learn/idle-gaps", test_idle_gaps);
  g_test_add_func ("/learn/slows-down", test_slows_down);
  g_test_add_func ("/learn/mixed-backwards", test_mixed_and_backwards);
  g_test_add_func ("/learn/clamps-link", test_clamps_and_link);
  g_test_add_func ("/learn/set-limits", test_set_limits);
  g_test_add_func ("/learn/set-seconds", test_set_seconds);
  return g_test_run ();
}
