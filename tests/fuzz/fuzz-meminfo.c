/* fuzz-meminfo.c - vsm_meminfo_parse () on /proc/meminfo text
 *
 * Promises checked: the return value is out->valid, the result is not
 * per-device, parsing is deterministic (fuzz-dirty-info.h), and
 * Dirty/Writeback written back parse to the same numbers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-dirty-info.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *again = NULL;
  VsmDirtyInfo a, c;

  if (!fuzz_dirty_info_parse (data, size, vsm_meminfo_parse, FALSE, &a))
    return 0;

  again = g_strdup_printf ("MemTotal:  1 kB\nDirty: %" G_GUINT64_FORMAT
                           "\nWriteback: %" G_GUINT64_FORMAT "\n",
                           a.dirty_bytes, a.writeback_bytes);
  fuzz_assert (vsm_meminfo_parse (again, &c));
  fuzz_assert (c.dirty_bytes == a.dirty_bytes && c.writeback_bytes == a.writeback_bytes);
  return 0;
}
