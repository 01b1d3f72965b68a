/* test-pace.c - when vfat-smartd paces writeback (vsm-pace), on sample
 * sequences shaped like the lab's (debugfs bdi stats once a second)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-pace.h"

#define MIB (G_GUINT64_CONSTANT (1024) * 1024)
#define CAP (38 * MIB)

static VsmDirtyInfo
sample (guint64 at_risk_mib, guint64 dirtied_mib, guint64 inodes)
{
  VsmDirtyInfo di = { .per_device = TRUE, .valid = TRUE, .has_inodes = TRUE };
  di.dirty_bytes = at_risk_mib * MIB * 3 / 4;
  di.writeback_bytes = at_risk_mib * MIB - di.dirty_bytes;
  di.dirtied_bytes = dirtied_mib * MIB;
  di.dirty_inodes = inodes;
  return di;
}

/* the disk's stat with busy_ms of io_ticks in all */
static VsmDiskStat
disk (guint64 busy_ms)
{
  VsmDiskStat st = { .n_fields = 17 };
  st.field[9] = busy_ms; /* io_ticks */
  return st;
}

/* a sample once a second of a drive that is always busy */
static gboolean
feed (VsmPace *p, const VsmDirtyInfo *di, guint64 cap)
{
  VsmDiskStat st = disk (p->last_usec / 1000 + 1000);

  return vsm_pace_feed (p, di, &st, p->last_usec + G_USEC_PER_SEC, cap);
}

/* one big file held at the cap: paced from the second sample that agrees,
 * and no longer once nothing new is dirtied (cp returned) */
static void
test_big_file (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s;

  s = sample (36, 100, 2);
  g_assert_false (feed (&p, &s, CAP)); /* first sample: no rate yet */
  s = sample (37, 120, 3);
  g_assert_false (feed (&p, &s, CAP)); /* one agreeing sample */
  s = sample (35, 140, 3);
  g_assert_true (feed (&p, &s, CAP));
  s = sample (30, 160, 4);
  g_assert_true (feed (&p, &s, CAP));
  s = sample (5, 180, 2); /* a sync drained it, the writer refilled 13 %: still paced */
  g_assert_true (feed (&p, &s, CAP));
  s = sample (20, 180, 2); /* the writer stopped: stop at once */
  g_assert_false (feed (&p, &s, CAP));
  s = sample (5, 180, 1);
  g_assert_false (feed (&p, &s, CAP));
  s = sample (5, 200, 1); /* writing again, but far under the cap: not started */
  g_assert_false (feed (&p, &s, CAP));
}

/* the cap for one big file: from when it is paced, through a pacing run
 * that ends and starts again (a sample with nothing new), until the
 * settle; never again before a settle once many files were written for
 * two seconds (a photo tree), and not for a count that moved for one */
static void
test_one_big_file (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s;
  guint64 dirtied = 100;
  gint64 at;

  for (guint i = 0; i < 3; i++)
    {
      s = sample (30, dirtied += 20, 3);
      feed (&p, &s, CAP);
      g_assert_cmpint (vsm_pace_one_big_file (&p, &s, p.last_usec), ==, i == 2);
    }
  s = sample (30, dirtied += 20, 9); /* one sample of many inodes */
  feed (&p, &s, CAP);
  g_assert_true (vsm_pace_one_big_file (&p, &s, p.last_usec));
  s = sample (30, dirtied, 3); /* nothing new: pacing ends, the cap stays */
  g_assert_false (feed (&p, &s, CAP));
  vsm_pace_restart (&p, &s, p.last_usec, VSM_PACE_ENDED_PACING);
  g_assert_true (vsm_pace_one_big_file (&p, &s, p.last_usec));
  s = sample (30, dirtied += 20, 3);
  feed (&p, &s, CAP);
  g_assert_true (vsm_pace_one_big_file (&p, &s, p.last_usec));
  /* the settle after the writer stopped: back to many files */
  vsm_pace_restart (&p, &s, p.last_usec, VSM_PACE_ENDED_SETTLE);
  g_assert_false (vsm_pace_one_big_file (&p, &s, p.last_usec));

  /* a photo tree paced for a while: many files for 2 s end it, and it is
   * not paced for one big file again before the settle */
  for (guint i = 0; i < 3; i++)
    {
      s = sample (30, dirtied += 20, 4);
      feed (&p, &s, CAP);
    }
  g_assert_true (vsm_pace_one_big_file (&p, &s, p.last_usec));
  for (guint i = 0; i < 3; i++)
    {
      s = sample (30, dirtied += 20, 12);
      feed (&p, &s, CAP);
      g_assert_cmpint (vsm_pace_one_big_file (&p, &s, p.last_usec), ==, i < 2);
    }
  for (guint i = 0; i < 4; i++)
    {
      s = sample (30, dirtied += 20, 3);
      feed (&p, &s, CAP);
      g_assert_false (vsm_pace_one_big_file (&p, &s, p.last_usec));
    }
  g_assert_true (p.pacing);
  vsm_pace_restart (&p, &s, p.last_usec, VSM_PACE_ENDED_FAILED);
  g_assert_false (p.many_files);

  /* a pacing run whose syncs wrote everything: no settle follows, the cap
   * for many files comes back once the drive is safe (the lab's exFAT
   * check: 56 s later, at the next writer) */
  for (guint i = 0; i < 3; i++)
    {
      s = sample (30, dirtied += 20, 2);
      feed (&p, &s, CAP);
    }
  g_assert_true (vsm_pace_one_big_file (&p, &s, p.last_usec));
  s = sample (0, dirtied, 1);
  g_assert_false (feed (&p, &s, CAP));
  at = p.last_usec;
  vsm_pace_restart (&p, &s, at, VSM_PACE_ENDED_PACING);
  vsm_pace_synced (&p, at);
  g_assert_false (p.unsettled);
  vsm_pace_feed (&p, &s, NULL, at + G_USEC_PER_SEC / 4, CAP);
  g_assert_true (vsm_pace_safe (&p, &s));
  g_assert_false (vsm_pace_one_big_file (&p, &s, p.last_usec));
}

/* 1000 small files: the dirty data is held by many inodes, never paced
 * (syncfs would write each directory entry synchronously) */
static void
test_many_small_files (void)
{
  VsmPace p = { 0 };

  for (guint i = 0; i < 20; i++)
    {
      VsmDirtyInfo s = sample (28, 10 * (i + 1), 300);
      g_assert_false (feed (&p, &s, CAP));
    }
}

/* a slow trickle far under the cap is left to the flusher */
static void
test_trickle (void)
{
  VsmPace p = { 0 };

  for (guint i = 0; i < 10; i++)
    {
      VsmDirtyInfo s = sample (4, i + 1, 1);
      g_assert_false (feed (&p, &s, CAP));
    }
}

/* system-wide figures (no debugfs), no cap, or a kernel without the inode
 * lists: never paced; a bad sample resets the count */
static void
test_not_per_device (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s = sample (36, 100, 1);

  s.per_device = FALSE;
  for (guint i = 0; i < 5; i++, s.dirtied_bytes += 20 * MIB)
    g_assert_false (feed (&p, &s, CAP));
  s.per_device = TRUE;
  for (guint i = 0; i < 5; i++, s.dirtied_bytes += 20 * MIB)
    g_assert_false (feed (&p, &s, 0));
  s.has_inodes = FALSE;
  for (guint i = 0; i < 5; i++, s.dirtied_bytes += 20 * MIB)
    g_assert_false (feed (&p, &s, CAP));
  s.has_inodes = TRUE;
  g_assert_false (feed (&p, &s, CAP));
  s.dirtied_bytes += 20 * MIB;
  g_assert_false (feed (&p, &s, CAP));
  s.dirtied_bytes += 20 * MIB;
  g_assert_true (feed (&p, &s, CAP));
  s.valid = FALSE;
  g_assert_false (feed (&p, &s, CAP));
  g_assert_false (p.pacing);
}

/* a drive faster than its writer (the lab's decent stick): the dirty data
 * fills half the cap between the flusher's rounds, but the drive idles
 * most of each second; not paced. When it becomes the slower one, paced;
 * when it idles again while paced (the syncs outrun the writer), stopped. */
static void
test_drive_faster_than_writer (void)
{
  VsmPace p = { 0 };
  guint64 busy = 0, dirtied = 0;
  gint64 t = 0;
  VsmDirtyInfo s;
  VsmDiskStat st;

  for (guint i = 0; i < 10; i++)
    {
      busy += 400, dirtied += 25, t += G_USEC_PER_SEC; /* 40 % busy */
      s = sample (30, dirtied, 2);
      st = disk (busy);
      g_assert_false (vsm_pace_feed (&p, &s, &st, t, CAP));
    }
  for (guint i = 0; i < 3; i++)
    {
      busy += 950, dirtied += 25, t += G_USEC_PER_SEC; /* 95 % */
      s = sample (30, dirtied, 2);
      st = disk (busy);
      g_assert_cmpint (vsm_pace_feed (&p, &s, &st, t, CAP), ==, i >= 1);
    }
  busy += 500, dirtied += 25, t += G_USEC_PER_SEC;
  s = sample (5, dirtied, 2);
  st = disk (busy);
  g_assert_false (vsm_pace_feed (&p, &s, &st, t, CAP));
  g_assert_false (p.pacing);

  /* paced again; then the syncs drain the cap while the drive still reads
   * busy (back-to-back syncs keep it so): the drained cap stops it */
  for (guint i = 0; i < 3; i++)
    {
      busy += 950, dirtied += 25, t += G_USEC_PER_SEC;
      s = sample (30, dirtied, 2);
      st = disk (busy);
      g_assert_cmpint (vsm_pace_feed (&p, &s, &st, t, CAP), ==, i >= 1);
    }
  busy += 950, dirtied += 25, t += G_USEC_PER_SEC;
  s = sample (4, dirtied, 2); /* 10.5 %: goes on */
  st = disk (busy);
  g_assert_true (vsm_pace_feed (&p, &s, &st, t, CAP));
  busy += 950, dirtied += 25, t += G_USEC_PER_SEC;
  s = sample (2, dirtied, 2); /* 5 %: stops */
  st = disk (busy);
  g_assert_false (vsm_pace_feed (&p, &s, &st, t, CAP));
  g_assert_false (p.pacing);
}

/* up to n quarter-second samples of one file's writer, at_risk_mib at risk:
 * in sample i the writer dirtied dirtied (i) MiB more and the drive was busy
 * busy (i) ms more; whether one of them called for pacing */
static gboolean
quarter_samples (guint n, guint64 at_risk_mib, guint64 (*dirtied) (guint), guint64 (*busy) (guint))
{
  VsmPace p = { 0 };
  guint64 mib = 0, busy_ms = 0;
  gint64 t = 0;

  for (guint i = 0; i < n; i++)
    {
      VsmDirtyInfo s;
      VsmDiskStat st;

      mib += dirtied (i);
      busy_ms += busy (i);
      t += G_USEC_PER_SEC / 4;
      s = sample (at_risk_mib, mib, 2);
      st = disk (busy_ms);
      if (vsm_pace_feed (&p, &s, &st, t, CAP))
        return TRUE;
    }
  return FALSE;
}

static guint64
steady_writer (guint i)
{
  return 10;
}

static guint64
always_busy (guint i)
{
  return 250;
}

/* a quarter reads nearly idle in every second */
static guint64
idle_quarter (guint i)
{
  return i % 4 == 2 ? 100 : 250;
}

/* held in balance_dirty_pages() in samples 2 and 3 of every second */
static guint64
held_writer (guint i)
{
  return i % 4 < 2 ? 2 : 0;
}

/* stopped after the second sample */
static guint64
stopped_writer (guint i)
{
  return i < 2 ? 2 : 0;
}

/* quarter-second samples of a slow stick between two writeback rounds: one
 * quarter reads nearly idle, the second around it 85 % busy: paced */
static void
test_busy_over_a_second (void)
{
  g_assert_true (quarter_samples (16, 30, steady_writer, idle_quarter));
}

/* quarter-second samples of a writer held at the cap: strict_limit keeps it
 * in balance_dirty_pages() for two samples of every second, and it is paced
 * all the same; a writer that stopped a second ago is not. The kernel may
 * hold it under half the cap (its own threshold for the drive can be
 * lower): 18 of 38 MiB is paced, 14 MiB is not */
static void
test_held_writer (void)
{
  g_assert_true (quarter_samples (12, 36, held_writer, always_busy));
  g_assert_false (quarter_samples (12, 36, stopped_writer, always_busy));
  g_assert_true (quarter_samples (12, 18, held_writer, always_busy));
  g_assert_false (quarter_samples (12, 14, held_writer, always_busy));
}

/* without the disk's stat (it could not be read) the drive counts as busy;
 * counters that go backwards (the disk came back) too */
static void
test_busy_unknown (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s;
  VsmDiskStat st;

  s = sample (36, 100, 2);
  g_assert_false (vsm_pace_feed (&p, &s, NULL, G_USEC_PER_SEC, CAP));
  s = sample (36, 120, 2);
  g_assert_false (vsm_pace_feed (&p, &s, NULL, 2 * G_USEC_PER_SEC, CAP));
  s = sample (36, 140, 2);
  g_assert_true (vsm_pace_feed (&p, &s, NULL, 3 * G_USEC_PER_SEC, CAP));
  st = disk (5000);
  s = sample (36, 160, 2);
  g_assert_true (vsm_pace_feed (&p, &s, &st, 4 * G_USEC_PER_SEC, CAP));
  st = disk (10); /* backwards */
  s = sample (36, 180, 2);
  g_assert_true (vsm_pace_feed (&p, &s, &st, 5 * G_USEC_PER_SEC, CAP));
  st = disk (20); /* 10 ms in a second */
  s = sample (36, 200, 2);
  g_assert_false (vsm_pace_feed (&p, &s, &st, 6 * G_USEC_PER_SEC, CAP));
}

/* a sample step_usec after the last */
static gboolean
feed_after (VsmPace *p, const VsmDirtyInfo *di, guint64 cap, gint64 step_usec)
{
  VsmDiskStat st = disk ((p->last_usec + step_usec) / 1000);

  return vsm_pace_feed (p, di, &st, p->last_usec + step_usec, cap);
}

/* a fresh pace that saw a writer: 10 then 20 MiB dirtied, at_risk_mib at
 * risk, held by inodes */
static void
writer_seen (VsmPace *p, guint64 at_risk_mib, guint64 inodes)
{
  VsmDirtyInfo s;

  *p = (VsmPace){ 0 };
  s = sample (at_risk_mib, 10, inodes);
  feed (p, &s, CAP);
  s = sample (at_risk_mib, 20, inodes);
  feed (p, &s, CAP);
}

/* the writer stops: one settle while data is at risk, not again until
 * new data is dirtied; none while writing, none with nothing at risk */
static void
test_settle (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s;

  s = sample (20, 10, 300);
  feed (&p, &s, CAP);
  g_assert_false (vsm_pace_settle (&p, &s)); /* first sample: no rate yet */
  s = sample (28, 40, 300);
  feed (&p, &s, CAP);
  g_assert_false (vsm_pace_settle (&p, &s)); /* writing */
  /* the daemon's quarter-second samples: a quarter second with nothing
   * dirtied is a pause (cp opening the next file), not a stop */
  s = sample (15, 40, 3);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_false (vsm_pace_settle (&p, &s));
  s = sample (14, 40, 3);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_true (vsm_pace_settle (&p, &s));  /* stopped with 14 MiB at risk */
  g_assert_false (vsm_pace_settle (&p, &s)); /* once */
  s = sample (2, 40, 2);
  feed (&p, &s, CAP);
  g_assert_false (vsm_pace_settle (&p, &s)); /* still no new data: not again */
  s = sample (10, 50, 40);                   /* a second copy */
  feed (&p, &s, CAP);
  g_assert_false (vsm_pace_settle (&p, &s));
  s = sample (10, 50, 40);
  feed (&p, &s, CAP);
  g_assert_true (vsm_pace_settle (&p, &s)); /* a second with nothing new */

  /* a metadata commit that ended a quarter second ago: the writer may have
   * waited for it, the quiet counts from its end */
  s = sample (10, 60, 40);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  s = sample (10, 60, 40);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 2);
  vsm_pace_commit_ended (&p, p.last_usec - G_USEC_PER_SEC / 4);
  g_assert_false (vsm_pace_settle (&p, &s));
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_true (vsm_pace_settle (&p, &s));

  /* near the cap, half a second with nothing dirtied is a writer held by
   * strict_limit, not a stop: two seconds then */
  writer_seen (&p, 34, 300);
  s = sample (34, 20, 300);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 2);
  g_assert_false (vsm_pace_settle (&p, &s));
  feed_after (&p, &s, CAP, G_USEC_PER_SEC);
  g_assert_false (vsm_pace_settle (&p, &s));
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 2);
  g_assert_true (vsm_pace_settle (&p, &s));

  /* strict_limit holds writers from three quarters of the cap on */
  s = sample (29, 20, 3);
  g_assert_true (vsm_pace_held_by_cap (&s, CAP));
  s = sample (28, 20, 3);
  g_assert_false (vsm_pace_held_by_cap (&s, CAP));

  /* at half the cap, where the flusher stops (its background threshold),
   * no writer is held: half a second */
  writer_seen (&p, 19, 300);
  s = sample (19, 20, 300);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_false (vsm_pace_settle (&p, &s));
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_true (vsm_pace_settle (&p, &s));

  /* the flusher wrote everything before the writer's stop was seen */
  writer_seen (&p, 5, 2);
  for (guint i = 0; i < 2; i++)
    {
      s = sample (0, 20, 0);
      feed (&p, &s, CAP);
      g_assert_false (vsm_pace_settle (&p, &s));
    }
  g_assert_false (p.unsettled);

  /* the data written, an inode still waits (a directory entry): settled */
  writer_seen (&p, 5, 2);
  s = sample (0, 20, 1);
  feed (&p, &s, CAP);
  g_assert_true (vsm_pace_settle (&p, &s));

  /* no cap (Linux < 6.2: flush stays, close() writes): never paced, never
   * settled (a sync while close() waits would run beside its writeback) */
  p = (VsmPace){ 0 };
  s = sample (5, 10, 300);
  g_assert_false (feed (&p, &s, 0));
  s = sample (60, 80, 300);
  g_assert_false (feed (&p, &s, 0));
  g_assert_false (vsm_pace_settle (&p, &s));
  s = sample (60, 80, 300);
  g_assert_false (feed (&p, &s, 0));
  g_assert_false (vsm_pace_settle (&p, &s));

  /* no per-device figures: never */
  p = (VsmPace){ 0 };
  for (guint i = 0; i < 3; i++)
    {
      s = sample (10, i < 2 ? 10 * (i + 1) : 20, 2);
      s.per_device = FALSE;
      feed (&p, &s, CAP);
      g_assert_false (vsm_pace_settle (&p, &s));
    }
}

/* a writer held at the cap stalls for a second when a lower cap is applied
 * under it (CI's daemon check: 36 MiB at risk, the cap from 38 to 26 MiB):
 * not a stop, no settle, and pacing goes on from the samples it had */
static void
test_stall_is_not_a_stop (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s;

  s = sample (30, 60, 2);
  feed (&p, &s, CAP);
  s = sample (36, 80, 2);
  feed (&p, &s, CAP);
  s = sample (36, 80, 2); /* the stall, a quarter second */
  g_assert_false (feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4));
  g_assert_false (vsm_pace_settle (&p, &s));
  s = sample (36, 80, 2); /* a second: quiet, but above the new cap */
  g_assert_false (vsm_pace_feed (&p, &s, NULL, p.last_usec + G_USEC_PER_SEC, 26 * MIB));
  g_assert_false (vsm_pace_settle (&p, &s));
  s = sample (26, 90, 2); /* writing again under the lower cap */
  g_assert_false (feed (&p, &s, 26 * MIB));
  g_assert_false (vsm_pace_settle (&p, &s));
  s = sample (25, 100, 2);
  g_assert_true (feed (&p, &s, 26 * MIB));
}

/* a writer held at the cap is quiet while a lower cap is applied under it:
 * no settle for two seconds after the cap changed (a change the samples saw,
 * or an apply in flight) while what is at risk can hold a writer; below
 * that, the change does not wait. A restarted pace keeps the change. */
static void
test_cap_change (void)
{
  const gint64 second = G_USEC_PER_SEC;
  VsmPace p = { 0 };
  VsmDirtyInfo s;
  gint64 at;

  writer_seen (&p, 30, 300);
  s = sample (22, 20, 300); /* the cap from 38 to 26 MiB: 22 MiB can hold a writer */
  feed_after (&p, &s, 26 * MIB, second);
  g_assert_cmpint (p.cap_changed_usec, ==, p.last_usec);
  g_assert_false (vsm_pace_settle (&p, &s));
  feed_after (&p, &s, 26 * MIB, second * 3 / 2); /* 2.5 s quiet, the change 1.5 s ago */
  g_assert_false (vsm_pace_settle (&p, &s));
  feed_after (&p, &s, 26 * MIB, second / 2);
  g_assert_true (vsm_pace_settle (&p, &s));

  writer_seen (&p, 10, 300);
  s = sample (10, 20, 300); /* 10 MiB cannot hold a writer: half a second */
  feed_after (&p, &s, 26 * MIB, second / 2);
  g_assert_true (vsm_pace_settle (&p, &s));

  writer_seen (&p, 30, 300);
  s = sample (30, 20, 300); /* an apply runs as the samples see the writer quiet */
  at = p.last_usec + second * 5 / 2;
  vsm_pace_applying (&p, TRUE, at);
  feed_after (&p, &s, CAP, second * 5 / 2);
  g_assert_false (vsm_pace_settle (&p, &s));
  vsm_pace_applying (&p, FALSE, p.last_usec + second * 2);
  feed_after (&p, &s, CAP, second * 2);
  g_assert_true (vsm_pace_settle (&p, &s));

  /* the worker ended: a fresh start that keeps the change; after pacing
   * what is still at risk waits for a settle, after a settle's sync or a
   * failure nothing does (a settle never arms the next one) */
  vsm_pace_restart (&p, &s, at + second, VSM_PACE_ENDED_PACING);
  g_assert_cmpint (p.cap_changed_usec, ==, at);
  g_assert_false (p.have_last);
  g_assert_true (p.unsettled);
  g_assert_cmpint (p.last_writing_usec, ==, at + second);
  vsm_pace_restart (&p, &s, at + second, VSM_PACE_ENDED_FAILED);
  g_assert_false (p.unsettled);
  vsm_pace_restart (&p, &s, at + second, VSM_PACE_ENDED_SETTLE);
  g_assert_false (p.unsettled);
  g_assert_cmpint (p.last_writing_usec, ==, 0);
  s = sample (0, 20, 0);
  vsm_pace_restart (&p, &s, at + second, VSM_PACE_ENDED_PACING);
  g_assert_false (p.unsettled);
  g_assert_cmpint (p.cap_changed_usec, ==, at);

  /* the cap from 38 to 10 MiB under a writer held with 35 MiB at risk: while
   * the apply runs the samples still know 38 MiB, and what drains to below
   * three quarters of it is still above the new cap (the lab's 7.2 daemon
   * check): no settle however long it runs; after it the new cap's own rules */
  writer_seen (&p, 35, 2);
  for (guint i = 1; i <= 12; i++)
    {
      s = sample (35 - 2 * i, 20, 2);
      vsm_pace_applying (&p, TRUE, p.last_usec + second / 2);
      feed_after (&p, &s, CAP, second / 2);
      g_assert_false (vsm_pace_settle (&p, &s));
    }
  s = sample (9, 20, 2); /* the apply ended: 9 MiB can hold a writer at 10 MiB */
  vsm_pace_applying (&p, FALSE, p.last_usec + second / 2);
  feed_after (&p, &s, 10 * MIB, second / 2);
  g_assert_false (vsm_pace_settle (&p, &s));
  vsm_pace_applying (&p, FALSE, p.last_usec + second);
  feed_after (&p, &s, 10 * MIB, second);
  g_assert_false (vsm_pace_settle (&p, &s)); /* the change a second ago */
  vsm_pace_applying (&p, FALSE, p.last_usec + second * 3 / 2);
  feed_after (&p, &s, 10 * MIB, second * 3 / 2);
  g_assert_true (vsm_pace_settle (&p, &s));
  /* a restart keeps an apply that runs */
  vsm_pace_applying (&p, TRUE, p.last_usec);
  vsm_pace_restart (&p, &s, p.last_usec, VSM_PACE_ENDED_SETTLE);
  g_assert_true (p.applying);
}

/* a settle's sync leaves what the counters keep (more than their error):
 * no settle again from the samples that follow, while nothing new is
 * dirtied; a new write arms it again */
static void
test_settle_once (void)
{
  const gint64 second = G_USEC_PER_SEC;
  VsmPace p;
  VsmDirtyInfo s;
  gint64 at;

  writer_seen (&p, 10, 300);
  s = sample (10, 20, 300);
  feed_after (&p, &s, CAP, second / 2);
  g_assert_true (vsm_pace_settle (&p, &s));
  s = sample (1, 20, 2); /* after its sync: 1 MiB the counters still show */
  at = p.last_usec + second;
  vsm_pace_restart (&p, &s, at, VSM_PACE_ENDED_SETTLE);
  /* the daemon's clock goes on from the restart (the restart forgot the
   * samples' times) */
  for (guint i = 1; i <= 8; i++)
    {
      g_assert_false (vsm_pace_feed (&p, &s, NULL, at + i * second / 4, CAP));
      g_assert_false (vsm_pace_settle (&p, &s));
    }
  s = sample (3, 22, 20); /* written again */
  g_assert_false (vsm_pace_feed (&p, &s, NULL, at + 9 * second / 4, CAP));
  g_assert_false (vsm_pace_settle (&p, &s));
  g_assert_false (vsm_pace_feed (&p, &s, NULL, at + 11 * second / 4, CAP));
  g_assert_true (vsm_pace_settle (&p, &s));
}

/* many small files: their metadata committed every period while they are
 * written, not while a big writer is paced, not once the writer stopped */
static void
test_commit (void)
{
  const gint64 second = G_USEC_PER_SEC;
  VsmPace p = { 0 };
  VsmDirtyInfo s;

  s = sample (20, 10, 300);
  feed (&p, &s, CAP);
  g_assert_false (vsm_pace_commit_due (&p, p.last_usec, second)); /* first sample: no rate yet */
  for (guint i = 0; i < 3; i++)
    {
      s = sample (20, 20 + 10 * i, 300);
      feed (&p, &s, CAP);
      g_assert_true (vsm_pace_commit_due (&p, p.last_usec, second));  /* writing: every second */
      g_assert_false (vsm_pace_commit_due (&p, p.last_usec, second)); /* once a second */
    }
  /* a tick a little early still commits; half a second after, not */
  s = sample (20, 60, 300);
  g_assert_false (vsm_pace_feed (&p, &s, NULL, p.last_usec + second * 95 / 100, CAP));
  g_assert_true (vsm_pace_commit_due (&p, p.last_usec, second));
  s = sample (20, 70, 300);
  g_assert_false (vsm_pace_feed (&p, &s, NULL, p.last_usec + second / 2, CAP));
  g_assert_false (vsm_pace_commit_due (&p, p.last_usec, second));
  /* a shorter period: half a second after, due */
  s = sample (20, 80, 300);
  g_assert_false (vsm_pace_feed (&p, &s, NULL, p.last_usec + second / 2, CAP));
  g_assert_true (vsm_pace_commit_due (&p, p.last_usec, second / 2));
  /* the writer stopped: no commit (the settle's) */
  s = sample (15, 80, 300);
  feed (&p, &s, CAP);
  g_assert_false (vsm_pace_commit_due (&p, p.last_usec, second));

  /* a big writer once paced: the pacer's syncs write everything, no commit */
  p = (VsmPace){ 0 };
  for (guint i = 0; i < 3; i++)
    {
      s = sample (36, 100 + 20 * i, 2);
      feed (&p, &s, CAP);
      vsm_pace_commit_due (&p, p.last_usec, second);
    }
  g_assert_true (p.pacing);
  s = sample (36, 200, 2);
  g_assert_true (feed (&p, &s, CAP));
  g_assert_false (vsm_pace_commit_due (&p, p.last_usec, second));
}

/* Safe: nothing dirty, no inode waiting, nothing newly dirtied for half a
 * second; never without per-device figures */
static void
test_safe (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s = sample (0, 10, 0);

  g_assert_true (vsm_pace_safe (&p, &s)); /* nothing seen yet, nothing dirty */
  feed (&p, &s, CAP);
  g_assert_true (vsm_pace_safe (&p, &s));
  s = sample (20, 30, 40); /* a copy */
  feed (&p, &s, CAP);
  g_assert_cmpstr (vsm_pace_not_safe (&p, &s), ==, "writing");
  s = sample (0, 40, 0); /* written out as it is dirtied: still writing */
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_false (vsm_pace_safe (&p, &s));
  s = sample (0, 40, 0);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_cmpstr (vsm_pace_not_safe (&p, &s), ==, "written just now");
  s = sample (0, 40, 2); /* stopped; two directory entries wait */
  feed_after (&p, &s, CAP, G_USEC_PER_SEC);
  g_assert_cmpstr (vsm_pace_not_safe (&p, &s), ==,
                   "data or an inode waits, no sync since the last write");
  s = sample (0, 40, 0);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  g_assert_true (vsm_pace_safe (&p, &s));
  /* a sync that began after the last write completed: the inodes the kernel
   * still lists (the block device's, cleaned by the sync) do not count; a
   * sync that began before it does not stand for it */
  s = sample (0, 50, 2);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  s = sample (0, 50, 2);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC);
  vsm_pace_synced (&p, p.last_writing_usec - 1);
  g_assert_false (vsm_pace_safe (&p, &s));
  vsm_pace_synced (&p, p.last_writing_usec + G_USEC_PER_SEC / 4);
  g_assert_true (vsm_pace_safe (&p, &s));
  /* what the counters keep after it, within their error (the lab's 2-CPU
   * guest: 64 KiB dirty, 64 KiB under writeback, 128 KiB error) */
  s.error_bytes = 128 * 1024;
  s.dirty_bytes = 64 * 1024;
  s.writeback_bytes = 64 * 1024;
  g_assert_true (vsm_pace_safe (&p, &s));
  g_assert_null (vsm_pace_not_safe (&p, &s));
  s.dirty_bytes = 4 * MIB; /* beyond it: dirty data */
  g_assert_cmpstr (vsm_pace_not_safe (&p, &s), ==, "data at risk after the last sync");
  /* the residue without a sync after the last write: not safe */
  s.dirty_bytes = 64 * 1024;
  s = sample (0, 60, 2);
  s.error_bytes = 128 * 1024;
  s.dirty_bytes = 64 * 1024;
  feed_after (&p, &s, CAP, G_USEC_PER_SEC / 4);
  feed_after (&p, &s, CAP, G_USEC_PER_SEC);
  g_assert_false (vsm_pace_safe (&p, &s));
  s.writeback_bytes = 4096;
  g_assert_false (vsm_pace_safe (&p, &s));
  s = sample (0, 40, 0);
  s.per_device = FALSE;
  g_assert_cmpstr (vsm_pace_not_safe (&p, &s), ==, "no per-device figures");
}

/* the commit period: half the cap's seconds, within its bounds */
static void
test_commit_period (void)
{
  const guint64 mb = 1000 * 1000;

  g_assert_cmpint (vsm_pace_commit_period (40 * mb, 20 * mb), ==, G_USEC_PER_SEC);
  g_assert_cmpint (vsm_pace_commit_period (20 * mb, 20 * mb), ==, G_USEC_PER_SEC / 2);
  g_assert_cmpint (vsm_pace_commit_period (200 * mb, 20 * mb), ==, VSM_PACE_COMMIT_MAX_USEC);
  g_assert_cmpint (vsm_pace_commit_period (2 * mb, 20 * mb), ==, VSM_PACE_COMMIT_MIN_USEC);
  g_assert_cmpint (vsm_pace_commit_period (0, 20 * mb), ==, VSM_PACE_COMMIT_MAX_USEC);
  g_assert_cmpint (vsm_pace_commit_period (40 * mb, 0), ==, VSM_PACE_COMMIT_MAX_USEC);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pace/big-file", test_big_file);
  g_test_add_func ("/pace/many-small-files", test_many_small_files);
  g_test_add_func ("/pace/one-big-file", test_one_big_file);
  g_test_add_func ("/pace/trickle", test_trickle);
  g_test_add_func ("/pace/not-per-device", test_not_per_device);
  g_test_add_func ("/pace/drive-faster-than-writer", test_drive_faster_than_writer);
  g_test_add_func ("/pace/busy-unknown", test_busy_unknown);
  g_test_add_func ("/pace/busy-over-a-second", test_busy_over_a_second);
  g_test_add_func ("/pace/held-writer", test_held_writer);
  g_test_add_func ("/pace/settle", test_settle);
  g_test_add_func ("/pace/commit-period", test_commit_period);
  g_test_add_func ("/pace/safe", test_safe);
  g_test_add_func ("/pace/stall-is-not-a-stop", test_stall_is_not_a_stop);
  g_test_add_func ("/pace/cap-change", test_cap_change);
  g_test_add_func ("/pace/settle-once", test_settle_once);
  g_test_add_func ("/pace/commit", test_commit);
  return g_test_run ();
}
