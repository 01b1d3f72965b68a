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

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *msgid;     /* the untranslated format; NULL: text is shown as it is */
  GPtrArray *args; /* VsmReason*, one per conversion of msgid, in order; NULL without msgid */
  char *text;      /* in English */
} VsmReason;

/* format: an N_ () string (or a literal without translation). Every
 * conversion of printf but positional ones and '*' widths. */
VsmReason *vsm_reason_new (const char *format, ...) G_GNUC_PRINTF (1, 2);
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
void vsm_reason_unref (VsmReason *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmReason, vsm_reason_unref)

/* an array of VsmReason* that unrefs them */
GPtrArray *vsm_reasons_new (void);
/* the English texts, NULL-terminated */
char **vsm_reasons_texts (GPtrArray *reasons);

/* In the current locale: the translated format with the arguments in its
 * order; the English format when the translation's conversions do not
 * match the msgid's. */
char *vsm_reason_to_display (const VsmReason *r);

/* One line of text, unambiguous: a message is {MSGID|ARG|ARG...}, a
 * literal its text; '\\', '|', '{' and '}' are escaped with '\\'. */
char *vsm_reason_serialize (const VsmReason *r);
/* NULL for text that is no serialized reason, or whose arguments do not
 * fit its msgid's conversions */
VsmReason *vsm_reason_parse (const char *text);

/* How a format's conversions are substituted (exposed for tests): each
 * conversion of format takes args[its index] (positional %N$ or in order),
 * padded to its width; NULL when format names an argument it does not
 * have or is no format. */
char *vsm_reason_format (const char *format, const char *const *args, guint n_args);

G_END_DECLS
