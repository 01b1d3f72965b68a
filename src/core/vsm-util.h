/* vsm-util.h - small helpers shared by the vfat-smart core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib-object.h>
#include <sys/types.h>

#include "vsm-enum-types.h"

G_BEGIN_DECLS

char *vsm_read_attr (const char *path, GError **error);
gboolean vsm_read_u64 (const char *path, guint64 *out, GError **error);
gboolean vsm_write_attr (const char *path, const char *value, GError **error);

/* Replaces path with data atomically: a new temporary PATH.XXXXXX in the
 * same directory, given mode with fchmod () (whatever the umask and
 * whatever mode a file at path had), written, fsynced, renamed over path
 * (a link at path is replaced, never followed); durable: the directory is
 * fsynced too. A crash leaves the old file or the new one, and perhaps the
 * temporary. Errors are G_FILE_ERROR. */
gboolean vsm_write_file_atomic (const char *path, const char *data, gsize len, mode_t mode,
                                gboolean durable, GError **error);

gboolean vsm_enum_from_nick (GType type, const char *nick, int *out);

/* Fault injection for tests: VFAT_SMART_FAIL_WRITE=N makes the N-th knob
 * write of this process fail with EIO (1-based), counting from the last
 * reset. Documented in README. */
void vsm_fault_reset (void);

G_END_DECLS
