/* fuzz-sanitize.c - vsm_sanitize_for_display (): what a drive's label,
 * serial or model becomes before it reaches a terminal
 *
 * Promises checked (issue 10, defect 5): the result is valid UTF-8 without
 * a single control character (C0, DEL, C1: no terminal escape gets
 * through); text that already is clean comes back unchanged; sanitizing
 * twice changes nothing more.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-display.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  fuzz_assert (vsm_sanitize_for_display (NULL) == NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = NULL, *clean = NULL, *twice = NULL;

  if (size > 128 * 1024) /* a 100 KB label is hostile input too */
    return 0;
  text = fuzz_strdup (data, size);
  clean = vsm_sanitize_for_display (text);
  fuzz_assert (clean != NULL);
  if (!fuzz_is_clean_text (clean))
    {
      g_autofree char *in = g_strescape (text, NULL), *out = g_strescape (clean, NULL);
      fprintf (stderr, "not clean for display: '%s' -> '%s'\n", in, out);
      abort ();
    }
  /* clean text stays as it is, up to the length a terminal line is given */
  if (fuzz_is_clean_text (text) && g_utf8_strlen (text, -1) <= VSM_DISPLAY_MAX_CHARS)
    fuzz_assert (g_str_equal (clean, text));
  twice = vsm_sanitize_for_display (clean);
  fuzz_assert (g_str_equal (twice, clean));
  return 0;
}
