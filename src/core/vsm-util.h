/* vsm-util.h - small helpers shared by the vfat-smart core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define VSM_ERROR (vsm_error_quark ())
GQuark vsm_error_quark (void);

/* Each code maps to one documented exit status of the command line tools
 * (see vsm_error_to_exit_status()). */
typedef enum
{
  VSM_ERROR_FAILED,           /* anything else */
  VSM_ERROR_INVALID_ARGUMENT, /* bad option, bad value */
  VSM_ERROR_NOT_FOUND,        /* no such device, not a block device */
  VSM_ERROR_NOT_SUPPORTED,    /* device or filesystem vfat-smart does not handle */
  VSM_ERROR_PERMISSION,       /* needs root */
  VSM_ERROR_APPLY,            /* writing a knob failed; everything was rolled back */
  VSM_ERROR_STATE,            /* state file unreadable, unsafe or inconsistent */
  VSM_ERROR_NOT_MANAGED,      /* the device has no recorded state */
} VsmError;

int vsm_error_to_exit_status (const GError *error);

char *vsm_read_attr (const char *path, GError **error);
gboolean vsm_read_u64 (const char *path, guint64 *out, GError **error);
gboolean vsm_parse_u64 (const char *text, guint64 *out);
gboolean vsm_parse_i64 (const char *text, gint64 *out);
gboolean vsm_write_attr (const char *path, const char *value, GError **error);

char *vsm_format_bytes (guint64 bytes);
char *vsm_format_rate (double bytes_per_second);

/* What every program of the project does first: locale and translations,
 * program name, syslog identity. */
void vsm_init_program (const char *name);

/* Prints each note as "PROGRAM: note" on stdout. */
void vsm_print_notes (const char *program, GPtrArray *notes);

/* Fault injection for tests: VFAT_SMART_FAIL_WRITE=N makes the N-th knob
 * write of this process fail with EIO (1-based). Documented in README. */
void vsm_fault_reset (void);

G_END_DECLS
