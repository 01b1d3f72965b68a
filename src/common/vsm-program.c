/* vsm-program.c - what every program of the project does first
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-program.h"
#include "vsm-display.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <syslog.h>

void
vsm_init_program (const char *name)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname (name);
  openlog (name, LOG_PID, LOG_DAEMON);
}

void
vsm_print_notes (const char *program, GPtrArray *notes)
{
  for (guint i = 0; notes && i < notes->len; i++)
    {
      g_autofree char *clean = vsm_sanitize_for_display (g_ptr_array_index (notes, i));
      printf ("%s: %s\n", program, clean);
    }
}
