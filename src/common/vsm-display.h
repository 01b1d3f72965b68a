/* vsm-display.h - text from drives made harmless for terminals and JSON
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Valid UTF-8 (invalid bytes become U+FFFD), every control character
 * (C0, DEL, C1: escape sequences, newlines) replaced by '?', and at most
 * VSM_DISPLAY_MAX_CHARS characters, so that a label or serial from a
 * drive can neither forge lines nor drive the terminal. NULL for NULL. */
#define VSM_DISPLAY_MAX_CHARS 1024
char *vsm_sanitize_for_display (const char *text);

/* The columns text takes on a terminal: 2 for a wide character, 0 for a
 * combining one, 1 for the rest (text is valid UTF-8). */
glong vsm_display_width (const char *text);

/* Valid UTF-8, control characters kept (JSON escapes them). */
char *vsm_make_valid_utf8 (const char *text);

G_END_DECLS
