/* vsm-history.h - what each unmount of a managed drive left to write
 *
 * JSON lines in the state directory (unmounts.log), newest last, bounded.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>

G_BEGIN_DECLS

/* one line (no newline), valid JSON whatever the target's bytes */
char *vsm_unmount_record_to_line (const VsmUnmountRecord *r);
VsmUnmountRecord *vsm_unmount_record_from_line (const char *line, GError **error);

G_END_DECLS
