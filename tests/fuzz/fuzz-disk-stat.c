/* fuzz-disk-stat.c - vsm_disk_stat_parse () on /sys/block/DISK/stat text
 *
 * Promises checked: a parsed line has 11..17 fields and nothing beyond
 * them; a failed parse leaves n_fields 0; the fields written back as one
 * line parse to the same numbers; the delta against itself is valid and
 * zero, the delta from all-zero counters is the counters themselves.
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
  g_autofree char *text = NULL;
  g_autoptr (GString) line = NULL;
  VsmDiskStat st, back, zero;
  VsmIoDelta d;

  if (size > FUZZ_MAX_INPUT)
    return 0;
  text = fuzz_strdup (data, size);
  if (!vsm_disk_stat_parse (text, &st))
    {
      fuzz_assert (st.n_fields == 0);
      return 0;
    }
  fuzz_assert (st.n_fields >= 11 && st.n_fields <= VSM_DISK_STAT_FIELDS);
  for (guint i = st.n_fields; i < VSM_DISK_STAT_FIELDS; i++)
    fuzz_assert (st.field[i] == 0);

  line = g_string_new (NULL);
  for (guint i = 0; i < st.n_fields; i++)
    g_string_append_printf (line, "%s%" G_GUINT64_FORMAT, i ? " " : "", st.field[i]);
  g_string_append_c (line, '\n');
  fuzz_assert (vsm_disk_stat_parse (line->str, &back));
  fuzz_assert (back.n_fields == st.n_fields);
  fuzz_assert (memcmp (back.field, st.field, sizeof st.field) == 0);

  vsm_disk_stat_delta (&st, &st, &d);
  fuzz_assert (d.valid);
  fuzz_assert (d.write_ios == 0 && d.write_bytes == 0 && d.busy_ms == 0 && d.flush_ios == 0);
  fuzz_assert (d.has_flush == (st.n_fields >= 17));

  memset (&zero, 0, sizeof zero);
  zero.n_fields = st.n_fields;
  vsm_disk_stat_delta (&zero, &st, &d);
  fuzz_assert (d.valid);
  fuzz_assert (d.write_ios == st.field[4]);
  fuzz_assert (d.busy_ms == st.field[9]);
  fuzz_assert (d.avg_write_request_bytes >= 0 && d.write_throughput >= 0);
  return 0;
}
