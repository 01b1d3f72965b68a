/* vsm-util.h - small helpers shared by the vfat-smart core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <sys/types.h>

#include "vsm-enum-types.h"

G_BEGIN_DECLS

#define VSM_ERROR (vsm_error_quark ())
GQuark vsm_error_quark (void);

/* Each code has one meaning; the command line maps each to one exit
 * status (src/cli/vfat-smart-exit.c). */
typedef enum
{
  VSM_ERROR_FAILED,           /* anything else */
  VSM_ERROR_INVALID_ARGUMENT, /* bad option, bad value */
  VSM_ERROR_NOT_FOUND,        /* no such device, not a block device */
  VSM_ERROR_NOT_SUPPORTED,    /* the kernel lacks a knob, or not FAT */
  VSM_ERROR_PERMISSION,       /* needs root */
  VSM_ERROR_APPLY,            /* writing a knob failed (what was undone is in the message) */
  VSM_ERROR_STATE,            /* state file unreadable, unsafe or inconsistent */
  VSM_ERROR_NOT_MANAGED,      /* the device has no recorded state */
  VSM_ERROR_LEFT_ALONE,       /* the plan leaves the device alone (internal, policy) */
  VSM_ERROR_BUSY,             /* another vfat-smart holds the state lock */
} VsmError;

char *vsm_read_attr (const char *path, GError **error);
gboolean vsm_read_u64 (const char *path, guint64 *out, GError **error);
gboolean vsm_parse_u64 (const char *text, guint64 *out);
gboolean vsm_parse_i64 (const char *text, gint64 *out);
gboolean vsm_write_attr (const char *path, const char *value, GError **error);

/* Replaces path with data atomically: a new temporary PATH.XXXXXX in the
 * same directory, given mode with fchmod () (whatever the umask and
 * whatever mode a file at path had), written, fsynced, renamed over path
 * (a link at path is replaced, never followed); durable: the directory is
 * fsynced too. A crash leaves the old file or the new one, and perhaps the
 * temporary. Errors are G_FILE_ERROR. */
gboolean vsm_write_file_atomic (const char *path, const char *data, gsize len, mode_t mode,
                                gboolean durable, GError **error);

/* g_format_size_full (), with a plain space before the unit where the
 * output charset is not UTF-8 (g_get_charset ()); "38.0 MiB" */
char *vsm_format_size (guint64 bytes, GFormatSizeFlags flags);
char *vsm_format_bytes (guint64 bytes);

/* one line for a person (a front end prints them) added to notes (may be NULL) */
void vsm_note (GPtrArray *notes, const char *format, ...) G_GNUC_PRINTF (2, 3);
char *vsm_format_rate (double bytes_per_second);

/* The nick of an enum value (generated with glib-mkenums), or fallback. */
const char *vsm_enum_to_nick (GType type, int value, const char *fallback);
gboolean vsm_enum_from_nick (GType type, const char *nick, int *out);

/* Fault injection for tests: VFAT_SMART_FAIL_WRITE=N makes the N-th knob
 * write of this process fail with EIO (1-based), counting from the last
 * reset. Documented in README. */
void vsm_fault_reset (void);

G_END_DECLS
