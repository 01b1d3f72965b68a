/* fuzz-bdi-stats.c - vsm_bdi_stats_parse () on debugfs bdi/MAJ:MIN/stats
 *
 * Promises checked: the return value is out->valid, the result is
 * per-device, parsing is deterministic, and the values it found, written
 * back as "Key: N" lines, parse to the same numbers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-stats.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL, *again = NULL;
  VsmDirtyInfo a, b, c;
  gboolean ok;

  if (size > FUZZ_MAX_INPUT)
    return 0;
  text = fuzz_strdup (data, size);
  ok = vsm_bdi_stats_parse (text, &a);
  fuzz_assert (ok == a.valid);
  fuzz_assert (a.per_device);
  fuzz_assert (vsm_bdi_stats_parse (text, &b) == ok);
  fuzz_assert (memcmp (&a, &b, sizeof a) == 0);
  if (!ok)
    return 0;

  again = g_strdup_printf ("BdiWriteback:      %" G_GUINT64_FORMAT "\n"
                           "BdiReclaimable:    %" G_GUINT64_FORMAT "\n"
                           "BdiDirtyThresh:    %" G_GUINT64_FORMAT "\n"
                           "DirtyThresh:       %" G_GUINT64_FORMAT "\n"
                           "BdiWriteBandwidth: %" G_GUINT64_FORMAT "\n",
                           a.writeback_bytes, a.dirty_bytes, a.bdi_thresh_bytes,
                           a.dirty_thresh_bytes, a.bandwidth);
  fuzz_assert (vsm_bdi_stats_parse (again, &c));
  fuzz_assert (memcmp (&a, &c, sizeof a) == 0);
  return 0;
}
