/* fuzz-meminfo.c - vsm_meminfo_parse () on /proc/meminfo text
 *
 * Promises checked: the return value is out->valid, the result is not
 * per-device, parsing is deterministic, and Dirty/Writeback written back
 * parse to the same numbers.
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
  ok = vsm_meminfo_parse (text, &a);
  fuzz_assert (ok == a.valid);
  fuzz_assert (!a.per_device);
  fuzz_assert (vsm_meminfo_parse (text, &b) == ok);
  fuzz_assert (memcmp (&a, &b, sizeof a) == 0);
  if (!ok)
    return 0;

  again = g_strdup_printf ("MemTotal:  1 kB\nDirty: %" G_GUINT64_FORMAT "\nWriteback: %" G_GUINT64_FORMAT
                           "\n",
                           a.dirty_bytes, a.writeback_bytes);
  fuzz_assert (vsm_meminfo_parse (again, &c));
  fuzz_assert (c.dirty_bytes == a.dirty_bytes && c.writeback_bytes == a.writeback_bytes);
  return 0;
}
