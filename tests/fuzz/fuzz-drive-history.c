/* fuzz-drive-history.c - vsm_drive_history_parse () on
 * /var/lib/vfat-smart/drives.history, and the cap controller on the
 * stat sequences the same bytes describe
 *
 * Promises checked: any bytes parse (never NULL: a line GKeyFile would
 * refuse is skipped before it); a parsed file gives at most MAX_DRIVES drives, each
 * with a valid identity, at most MAX_MOUNTS mounts, bandwidths within the
 * policy's range and finite seconds; serialised and parsed again it gives
 * the same drives. The learner, fed any sequence of stat lines, keeps its
 * cap within the limits and changes it at most once per damping interval.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-drive-history.h"
#include "vsm-learn.h"
#include "vsm-policy.h"

#include <math.h>

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

static void
check_drive (const VsmDriveHistory *h)
{
  fuzz_assert (vsm_drive_identity_is_valid (h->identity));
  fuzz_assert (h->bandwidth <= VSM_POLICY_MAX_BANDWIDTH);
  fuzz_assert (h->mounts->len <= VSM_DRIVE_HISTORY_MAX_MOUNTS);
  for (guint i = 0; i < h->mounts->len; i++)
    {
      const VsmDriveMount *m = &g_array_index (h->mounts, VsmDriveMount, i);
      fuzz_assert (isfinite (m->seconds_to_safe));
      fuzz_assert (m->bandwidth <= VSM_POLICY_MAX_BANDWIDTH);
    }
}

static void
fuzz_history (const char *text, size_t size)
{
  g_autoptr (GPtrArray) drives = vsm_drive_history_parse (text, size, NULL, NULL);
  g_autoptr (GPtrArray) again = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  /* what reaches GKeyFile is only what it takes: one bad line never
   * costs the whole file */
  fuzz_assert (drives != NULL);
  fuzz_assert (drives->len <= VSM_DRIVE_HISTORY_MAX_DRIVES);
  for (guint i = 0; i < drives->len; i++)
    check_drive (g_ptr_array_index (drives, i));
  data = vsm_drive_history_serialize (drives, &len);
  again = vsm_drive_history_parse (data, len, NULL, NULL);
  fuzz_assert (again != NULL && again->len == drives->len);
  for (guint i = 0; i < drives->len; i++)
    {
      VsmDriveHistory *a = g_ptr_array_index (drives, i), *b = g_ptr_array_index (again, i);
      fuzz_assert (g_str_equal (a->identity, b->identity));
      fuzz_assert (a->bandwidth == b->bandwidth && a->mounts->len == b->mounts->len);
    }
}

/* each line a stat sample, one second apart */
static void
fuzz_learn (const char *text)
{
  static const VsmLearnLimits limits = { 2.0, 8 << 20, 256 << 20 };
  g_autoptr (VsmLearn) l = vsm_learn_new (&limits, 20000000);
  g_auto (GStrv) lines = g_strsplit (text, "\n", 2000);
  gint64 now = 0, last_change = -VSM_LEARN_MIN_CHANGE_USEC;

  for (char **line = lines; *line; line++)
    {
      VsmDiskStat st;
      now += G_USEC_PER_SEC;
      if (!vsm_disk_stat_parse (*line, &st))
        continue;
      if (vsm_learn_feed (l, now, &st))
        {
          fuzz_assert (now - last_change >= VSM_LEARN_MIN_CHANGE_USEC);
          last_change = now;
        }
      fuzz_assert (vsm_learn_get_cap (l) >= limits.cap_min_bytes);
      fuzz_assert (vsm_learn_get_cap (l) <= limits.cap_max_bytes);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL;

  if (size > FUZZ_MAX_INPUT)
    return 0;
  text = fuzz_strdup (data, size);
  fuzz_history (text, strlen (text));
  fuzz_learn (text);
  return 0;
}
