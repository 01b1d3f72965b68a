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

/* one big file held at the cap: paced from the second sample that agrees,
 * and no longer once nothing new is dirtied (cp returned) */
static void
test_big_file (void)
{
  VsmPace p = { 0 };
  VsmDirtyInfo s;

  s = sample (36, 100, 2);
  g_assert_false (vsm_pace_feed (&p, &s, CAP)); /* first sample: no rate yet */
  s = sample (37, 120, 3);
  g_assert_false (vsm_pace_feed (&p, &s, CAP)); /* one agreeing sample */
  s = sample (35, 140, 3);
  g_assert_true (vsm_pace_feed (&p, &s, CAP));
  s = sample (30, 160, 4);
  g_assert_true (vsm_pace_feed (&p, &s, CAP));
  s = sample (20, 160, 2); /* the writer stopped: stop at once */
  g_assert_false (vsm_pace_feed (&p, &s, CAP));
  s = sample (5, 160, 1);
  g_assert_false (vsm_pace_feed (&p, &s, CAP));
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
      g_assert_false (vsm_pace_feed (&p, &s, CAP));
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
      g_assert_false (vsm_pace_feed (&p, &s, CAP));
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
    g_assert_false (vsm_pace_feed (&p, &s, CAP));
  s.per_device = TRUE;
  for (guint i = 0; i < 5; i++, s.dirtied_bytes += 20 * MIB)
    g_assert_false (vsm_pace_feed (&p, &s, 0));
  s.has_inodes = FALSE;
  for (guint i = 0; i < 5; i++, s.dirtied_bytes += 20 * MIB)
    g_assert_false (vsm_pace_feed (&p, &s, CAP));
  s.has_inodes = TRUE;
  g_assert_false (vsm_pace_feed (&p, &s, CAP));
  s.dirtied_bytes += 20 * MIB;
  g_assert_false (vsm_pace_feed (&p, &s, CAP));
  s.dirtied_bytes += 20 * MIB;
  g_assert_true (vsm_pace_feed (&p, &s, CAP));
  s.valid = FALSE;
  g_assert_false (vsm_pace_feed (&p, &s, CAP));
  g_assert_false (p.pacing);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pace/big-file", test_big_file);
  g_test_add_func ("/pace/many-small-files", test_many_small_files);
  g_test_add_func ("/pace/trickle", test_trickle);
  g_test_add_func ("/pace/not-per-device", test_not_per_device);
  return g_test_run ();
}
