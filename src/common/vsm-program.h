/* vsm-program.h - what every program of the project does first
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Locale and translations, program name, syslog identity. */
void vsm_init_program (const char *name);

/* Prints each note as "PROGRAM: note" on stdout, made safe for a terminal. */
void vsm_print_notes (const char *program, GPtrArray *notes);

G_END_DECLS
