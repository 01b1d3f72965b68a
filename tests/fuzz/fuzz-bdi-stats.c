/* fuzz-bdi-stats.c - vsm_bdi_stats_parse () on debugfs bdi/MAJ:MIN/stats
 *
 * Promises checked: the return value is out->valid, the result is
 * per-device, parsing is deterministic (fuzz-dirty-info.h), and the values
 * it found (the inode lists' sum as one b_dirty), written back as "Key: N"
 * lines, parse to the same numbers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-dirty-info.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *again = NULL;
  VsmDirtyInfo a, c;

  if (!fuzz_dirty_info_parse (data, size, vsm_bdi_stats_parse, TRUE, &a))
    return 0;

  again = g_strdup_printf ("BdiWriteback:      %" G_GUINT64_FORMAT "\n"
                           "BdiReclaimable:    %" G_GUINT64_FORMAT "\n"
                           "BdiDirtyThresh:    %" G_GUINT64_FORMAT "\n"
                           "DirtyThresh:       %" G_GUINT64_FORMAT "\n"
                           "BdiWriteBandwidth: %" G_GUINT64_FORMAT "\n"
                           "BdiDirtied:        %" G_GUINT64_FORMAT "\n"
                           "BackgroundThresh:  %" G_GUINT64_FORMAT "\n",
                           a.writeback_bytes, a.dirty_bytes, a.bdi_thresh_bytes,
                           a.dirty_thresh_bytes, a.bandwidth, a.dirtied_bytes, a.bg_thresh_bytes);
  if (a.has_inodes) /* the three lists' sum, as one */
    {
      g_autofree char *lists =
        g_strdup_printf ("%sb_dirty: %" G_GUINT64_FORMAT "\n", again, a.dirty_inodes);
      g_free (again);
      again = g_steal_pointer (&lists);
    }
  fuzz_assert (vsm_bdi_stats_parse (again, &c));
  fuzz_assert (memcmp (&a, &c, sizeof a) == 0);
  return 0;
}
