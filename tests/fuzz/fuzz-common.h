/* fuzz-common.h - what every libFuzzer harness of vfat-smart shares
 *
 * Each harness feeds outside input (what a drive, the kernel, a state file
 * or a user can put in front of vfat-smart) to one parser or builder and
 * checks what its result promises. A broken promise is an abort(), which
 * libFuzzer reports as a crash with the input that caused it; so is a GLib
 * critical or warning (g_return_if_fail and friends mean a bug), through
 * fuzz_log_handler ().
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT (64 * 1024) /* bigger than any sysfs/proc file or state file we read */

#define fuzz_assert(cond)                                                                          \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          fprintf (stderr, "fuzz assertion failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);     \
          abort ();                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

/* GLib's own fatal path raises SIGTRAP, which libFuzzer does not catch
 * (no crash report, no saved input): abort () instead. */
static inline void
fuzz_log_handler (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  /* GLib 2.74's g_key_file_get_string () warns this about itself when one
   * value holds two bad escapes ("a\;b\" at the end of a line): its own
   * bug, harmless (the value is still returned), not vfat-smart's */
  if (g_strcmp0 (domain, "GLib") == 0 && g_str_has_prefix (message, "GError set over the top"))
    return;
  g_log_default_handler (domain, level, message, data);
  if (level & (G_LOG_FLAG_FATAL | G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
}

static inline void
fuzz_init_glib (void)
{
  /* the handler aborts on criticals and warnings itself (making them
   * "always fatal" would end in GLib's SIGTRAP after the handler) */
  g_log_set_default_handler (fuzz_log_handler, NULL);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
}

/* The input as a C string (it may hold NULs: the string then ends there). */
static inline char *
fuzz_strdup (const uint8_t *data, size_t size)
{
  return g_strndup ((const char *)data, size);
}

/* Splits the input at NUL bytes into at most max strings (the rest is
 * dropped). Free with g_strfreev (). */
static inline char **
fuzz_split (const uint8_t *data, size_t size, guint max)
{
  GPtrArray *out = g_ptr_array_new ();
  size_t start = 0;

  for (size_t i = 0; i <= size && out->len < max; i++)
    if (i == size || data[i] == '\0')
      {
        g_ptr_array_add (out, g_strndup ((const char *)data + start, i - start));
        start = i + 1;
      }
  g_ptr_array_add (out, NULL);
  return (char **)g_ptr_array_free (out, FALSE);
}

/* valid UTF-8 and not a single C0/C1 control character or DEL */
static inline gboolean
fuzz_is_clean_text (const char *s)
{
  if (!g_utf8_validate (s, -1, NULL))
    return FALSE;
  for (const char *p = s; *p; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return FALSE;
  return TRUE;
}
