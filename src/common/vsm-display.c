/* vsm-display.c - text from drives made harmless for terminals and JSON
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-display.h"

#include <string.h>

char *
vsm_make_valid_utf8 (const char *text)
{
  if (text == NULL)
    return NULL;
  return g_utf8_make_valid (text, -1);
}

char *
vsm_sanitize_for_display (const char *text)
{
  g_autofree char *valid = vsm_make_valid_utf8 (text);
  GString *out;
  guint n = 0;

  if (valid == NULL)
    return NULL;
  out = g_string_sized_new (strlen (valid));
  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);

      if (n == VSM_DISPLAY_MAX_CHARS)
        {
          g_string_append (out, "\u2026");
          break;
        }
      if (g_unichar_iscntrl (c))
        g_string_append_c (out, '?');
      else
        g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

glong
vsm_display_width (const char *text)
{
  glong width = 0;

  for (const char *p = text; p && *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iszerowidth (c))
        continue;
      width += g_unichar_iswide (c) ? 2 : 1;
    }
  return width;
}
