/* vsm-reason.h - a reason as its message id and arguments, translated where it is shown
 *
 * A reason is recorded in no language: the untranslated format (the msgid,
 * marked with N_ () so that xgettext extracts it) and its arguments, each
 * rendered to a string when it is recorded (numbers in the C locale). An
 * argument may itself be a message, translated on its own when shown. The
 * English text is kept beside, for logs, JSON and older readers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>

G_BEGIN_DECLS

VsmReason *vsm_reason_newv (const char *format, va_list args) G_GNUC_PRINTF (1, 0);
/* msgid: an N_ () message without arguments, translated where shown (text
 * with a conversion is taken as it is) */
VsmReason *vsm_reason_new_message (const char *msgid);
/* text shown as it is, in every language (a value, or an old record's text) */
VsmReason *vsm_reason_new_literal (const char *text);
/* argument i (a %s of the format) becomes arg, translated on its own when
 * shown; takes arg */
void vsm_reason_set_arg (VsmReason *r, guint i, VsmReason *arg);

VsmReason *vsm_reason_ref (VsmReason *r);

/* an array of VsmReason* that unrefs them */
GPtrArray *vsm_reasons_new (void);
/* the English texts, NULL-terminated */
char **vsm_reasons_texts (GPtrArray *reasons);

/* NULL for text that is no serialized reason, or whose arguments do not
 * fit its msgid's conversions */
VsmReason *vsm_reason_parse (const char *text);

/* How a format's conversions are substituted (exposed for tests): each
 * conversion of format takes args[its index] (positional %N$ or in order),
 * padded to its width; NULL when format names an argument it does not
 * have or is no format. */
char *vsm_reason_format (const char *format, const char *const *args, guint n_args);

G_END_DECLS
