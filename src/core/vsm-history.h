/* vsm-history.h - what each unmount of a managed drive left to write
 *
 * JSON lines in the state directory (unmounts.log), newest last, bounded.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *bdi;
  char *target;
  gint64 at_usec; /* g_get_real_time () */
  double seconds; /* how long the unmount took */
  guint64 dirty_bytes;
  gboolean per_device; /* FALSE: dirty_bytes is the whole system's figure */
} VsmUnmountRecord;

void vsm_unmount_record_free (VsmUnmountRecord *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmUnmountRecord, vsm_unmount_record_free)

/* one line (no newline), valid JSON whatever the target's bytes */
char *vsm_unmount_record_to_line (const VsmUnmountRecord *r);
VsmUnmountRecord *vsm_unmount_record_from_line (const char *line, GError **error);

gboolean vsm_history_append_unmount (const VsmUnmountRecord *r, GError **error);
/* the last max unmounts of bdi, newest last; bad lines are skipped */
GPtrArray *vsm_history_unmounts (const char *bdi, guint max);

G_END_DECLS
