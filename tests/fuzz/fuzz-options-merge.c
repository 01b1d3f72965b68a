/* fuzz-options-merge.c - vsm_options_merge (): the plan's mount options
 * merged with the ones a person (mount -o, fstab, udisks) asked for
 *
 * Input: BASE NUL WINS (BASE well-formed, as the plan's always is). Promises checked: a result always; every option
 * named in WINS (but the "noflush" marker, and one that a later opposite in
 * WINS takes out: "sync,async") is in the result; "noflush" never is when
 * WINS names it; an option appended to the result (as the mount helper
 * appends uhelper=) stays one; merging WINS a second time changes nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-mount.h"

#include <libmount.h>

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

static gboolean
is_opposite (const char *a, const char *b)
{
  static const char *const pairs[][2] = { { "flush", "noflush" }, { "sync", "async" } };
  for (gsize i = 0; i < G_N_ELEMENTS (pairs); i++)
    if ((g_str_equal (a, pairs[i][0]) && g_str_equal (b, pairs[i][1])) ||
        (g_str_equal (a, pairs[i][1]) && g_str_equal (b, pairs[i][0])))
      return TRUE;
  return FALSE;
}

static gboolean
quotes_unbalanced (const char *s)
{
  guint n = 0;
  for (; *s; s++)
    n += *s == '"';
  return n % 2 != 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_auto (GStrv) parts = NULL;
  g_autofree char *merged = NULL, *again = NULL;
  g_autoptr (GPtrArray) names = NULL;
  const char *base, *wins;
  char *next, *name, *value;
  size_t nsz, vsz;
  int rc;

  if (size > 4096)
    return 0;
  parts = fuzz_split (data, size, 2);
  base = parts[0];
  wins = parts[1]; /* NULL without a NUL in the input: the plan alone */

  /* BASE is the plan's, never outside input: only well-formed ones (an
   * unbalanced quote in it hides everything appended after it) */
  next = (char *)base;
  while ((rc = mnt_optstr_next_option (&next, &name, &nsz, &value, &vsz)) == 0)
    ;
  if (rc < 0 || quotes_unbalanced (base))
    return 0;

  merged = vsm_options_merge (base, wins);
  fuzz_assert (merged != NULL);
  if (wins == NULL)
    return 0;

  names = g_ptr_array_new_with_free_func (g_free);
  next = (char *)wins;
  while (mnt_optstr_next_option (&next, &name, &nsz, &value, &vsz) == 0)
    g_ptr_array_add (names, g_strndup (name, nsz));
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      gboolean undone = FALSE;

      /* a later opposite ("sync,async") takes it out again, by design */
      for (guint j = i + 1; j < names->len; j++)
        if (is_opposite (n, g_ptr_array_index (names, j)))
          undone = TRUE;
      if (g_str_equal (n, "noflush"))
        fuzz_assert (mnt_optstr_get_option (merged, n, NULL, NULL) != 0);
      else if (*n != '\0' && !undone && mnt_optstr_get_option (merged, n, NULL, NULL) != 0)
        {
          fprintf (stderr, "option '%s' of '%s' is not in the result '%s'\n", n, wins, merged);
          abort ();
        }
    }

  /* mount.vfat-smart appends helper= and uhelper= to the result: they
   * must stay options of their own */
  {
    g_autofree char *with = g_strdup (merged);
    char *w, *ln = NULL, *lv = NULL;
    size_t lns = 0, lvs = 0;

    mnt_optstr_append_option (&with, "uhelper", "vfat-smart");
    w = with;
    while ((rc = mnt_optstr_next_option (&w, &name, &nsz, &value, &vsz)) == 0)
      ln = name, lns = nsz, lv = value, lvs = vsz;
    if (rc < 0 || ln == NULL || lns != 7 || strncmp (ln, "uhelper", 7) != 0 || lv == NULL ||
        lvs != 10 || strncmp (lv, "vfat-smart", 10) != 0)
      {
        fprintf (stderr, "uhelper= appended to the result '%s' is lost: '%s'\n", merged, with);
        abort ();
      }
  }

  again = vsm_options_merge (merged, wins);
  if (g_strcmp0 (again, merged) != 0)
    {
      fprintf (stderr, "merging '%s' into '%s' twice: '%s' then '%s'\n", wins, base, merged, again);
      abort ();
    }
  return 0;
}
