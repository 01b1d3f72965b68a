/* vsm-reason.c - a reason as its message id and arguments, translated where it is shown
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-reason.h"

#include <glib/gi18n.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* nesting of messages in arguments, and arguments of one message, at most */
#define MAX_DEPTH 8
#define MAX_ARGS 32

typedef struct
{
  gsize start, end; /* bytes of the format */
  int index;        /* argument, from 0 */
  char kind;        /* 'i' integer, 'f' floating, 's' string, 'c' char, 'p' pointer */
  char conv;
  char length[3];
  char flags[8];
  int width;
  int precision; /* -1: none */
} Conversion;

static gboolean
parse_number (const char **p, int *out)
{
  long v = 0;

  if (!g_ascii_isdigit (**p))
    return FALSE;
  for (; g_ascii_isdigit (**p); (*p)++)
    {
      v = v * 10 + (**p - '0');
      if (v > 4096)
        return FALSE;
    }
  *out = (int)v;
  return TRUE;
}

/* The conversions of format ("%%" is none), each with its argument: all
 * positional (%N$) or none. FALSE for what is no printf format. */
static gboolean
parse_conversions (const char *format, GArray *out)
{
  int next = 0;
  int positional = -1;

  for (const char *p = format; *p != '\0'; p++)
    {
      Conversion c = { .precision = -1 };
      const char *q;
      int n;
      gsize nf = 0;

      if (*p != '%')
        continue;
      c.start = (gsize)(p - format);
      p++;
      if (*p == '%')
        continue;
      q = p;
      if (parse_number (&q, &n) && *q == '$')
        {
          if (n < 1 || n > MAX_ARGS || positional == 0)
            return FALSE;
          positional = 1;
          c.index = n - 1;
          p = q + 1;
        }
      else
        {
          if (positional == 1)
            return FALSE;
          positional = 0;
          c.index = next++;
          if (c.index >= MAX_ARGS)
            return FALSE;
        }
      for (; *p && strchr ("-+ #0'I", *p); p++)
        if (nf < sizeof c.flags - 1 && !strchr (c.flags, *p))
          c.flags[nf++] = *p;
      if (g_ascii_isdigit (*p) && !parse_number (&p, &c.width))
        return FALSE;
      if (*p == '.')
        {
          p++;
          c.precision = 0;
          if (g_ascii_isdigit (*p) && !parse_number (&p, &c.precision))
            return FALSE;
        }
      if (*p == '*')
        return FALSE;
      if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l'))
        {
          c.length[0] = p[0];
          c.length[1] = p[1];
          p += 2;
        }
      else if (*p && strchr ("hlqjztL", *p))
        c.length[0] = *p++;
      if (*p == '\0')
        return FALSE;
      c.conv = *p;
      if (strchr ("diouxX", c.conv))
        c.kind = 'i';
      else if (strchr ("fFeEgGaA", c.conv))
        c.kind = 'f';
      else if (c.conv == 's')
        c.kind = 's';
      else if (c.conv == 'c')
        c.kind = 'c';
      else if (c.conv == 'p')
        c.kind = 'p';
      else
        return FALSE;
      c.end = (gsize)(p + 1 - format);
      g_array_append_val (out, c);
    }
  return TRUE;
}

/* the kind of each argument, by index; FALSE when one is named twice with
 * two kinds or one is missing */
static gboolean
argument_kinds (GArray *convs, char kinds[MAX_ARGS], guint *n)
{
  *n = 0;
  memset (kinds, 0, MAX_ARGS);
  for (guint i = 0; i < convs->len; i++)
    {
      const Conversion *c = &g_array_index (convs, Conversion, i);

      if (kinds[c->index] != 0 && kinds[c->index] != c->kind)
        return FALSE;
      kinds[c->index] = c->kind;
      *n = MAX (*n, (guint)c->index + 1);
    }
  for (guint i = 0; i < *n; i++)
    if (kinds[i] == 0)
      return FALSE;
  return TRUE;
}

static GArray *
conversions (const char *format)
{
  GArray *convs = g_array_new (FALSE, TRUE, sizeof (Conversion));

  if (format == NULL || !parse_conversions (format, convs))
    {
      g_array_unref (convs);
      return NULL;
    }
  return convs;
}

/* each conversion of format replaced by its argument's text ("%%" only in
 * the format's own text becomes '%') */
static char *
substitute (const char *format, GPtrArray *texts)
{
  g_autoptr (GArray) convs = conversions (format);
  g_autoptr (GString) out = NULL;
  gsize at = 0;

  if (convs == NULL)
    return NULL;
  out = g_string_new (NULL);
  for (guint i = 0; i <= convs->len; i++)
    {
      const Conversion *c = i < convs->len ? &g_array_index (convs, Conversion, i) : NULL;
      gsize end = c ? c->start : strlen (format);
      const char *arg;
      long pad;

      /* the literal text between conversions, "%%" as '%' */
      for (gsize k = at; k < end; k++)
        {
          g_string_append_c (out, format[k]);
          if (format[k] == '%' && k + 1 < end && format[k + 1] == '%')
            k++;
        }
      if (c == NULL)
        break;
      if ((guint)c->index >= texts->len)
        return NULL;
      arg = g_ptr_array_index (texts, c->index);
      pad = c->width - g_utf8_strlen (arg, -1);
      if (pad > 0 && strchr (c->flags, '-') == NULL)
        for (long k = 0; k < pad; k++)
          g_string_append_c (out, ' ');
      g_string_append (out, arg);
      if (pad > 0 && strchr (c->flags, '-') != NULL)
        for (long k = 0; k < pad; k++)
          g_string_append_c (out, ' ');
      at = c->end;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
vsm_reason_format (const char *format, const char *const *args, guint n_args)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();

  for (guint i = 0; i < n_args; i++)
    g_ptr_array_add (texts, (gpointer)(args[i] ? args[i] : "(null)"));
  return substitute (format, texts);
}

static VsmReason *
reason_alloc (void)
{
  return g_rc_box_new0 (VsmReason);
}

static void
reason_clear (VsmReason *r)
{
  g_free (r->msgid);
  g_clear_pointer (&r->args, g_ptr_array_unref);
  g_free (r->text);
}

VsmReason *
vsm_reason_ref (VsmReason *r)
{
  return g_rc_box_acquire (r);
}

void
vsm_reason_unref (VsmReason *r)
{
  if (r != NULL)
    g_rc_box_release_full (r, (GDestroyNotify)reason_clear);
}

GPtrArray *
vsm_reasons_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_reason_unref);
}

char **
vsm_reasons_texts (GPtrArray *reasons)
{
  char **texts = g_new0 (char *, (reasons ? reasons->len : 0) + 1);

  for (guint i = 0; reasons && i < reasons->len; i++)
    texts[i] = g_strdup (((VsmReason *)g_ptr_array_index (reasons, i))->text);
  return texts;
}

VsmReason *
vsm_reason_new_literal (const char *text)
{
  VsmReason *r = reason_alloc ();

  r->text = g_strdup (text ? text : "");
  return r;
}

VsmReason *
vsm_reason_new_message (const char *msgid)
{
  g_autoptr (GArray) convs = conversions (msgid);
  VsmReason *r;

  if (convs == NULL || convs->len > 0 || *msgid == '\0')
    return vsm_reason_new_literal (msgid);
  r = reason_alloc ();
  r->msgid = g_strdup (msgid);
  r->args = vsm_reasons_new ();
  r->text = substitute (msgid, r->args);
  return r;
}

/* the English text from the msgid and the arguments' texts */
static gboolean
render_english (VsmReason *r)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new ();
  char *text;

  for (guint i = 0; i < r->args->len; i++)
    g_ptr_array_add (texts, ((VsmReason *)g_ptr_array_index (r->args, i))->text);
  text = substitute (r->msgid, texts);
  if (text == NULL)
    return FALSE;
  g_free (r->text);
  r->text = text;
  return TRUE;
}

/* one argument as the conversion c would print it, in the C locale, with
 * no width (that is applied where it is substituted) */
static char *
render_argument (const Conversion *c, va_list *ap)
{
  g_autofree char *spec = NULL;
  g_autoptr (GString) s = g_string_new ("%");

  for (const char *f = c->flags; *f; f++)
    if (*f != '-' && *f != '0' && *f != '\'' && *f != 'I')
      g_string_append_c (s, *f);
  if (c->precision >= 0)
    g_string_append_printf (s, ".%d", c->precision);
  if (c->kind == 'f')
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      double v = c->length[0] == 'L' ? (double)va_arg (*ap, long double) : va_arg (*ap, double);

      g_string_append_c (s, c->conv);
      if (strchr ("aA", c->conv))
        return g_strdup_printf ("%a", v);
      return g_strdup (g_ascii_formatd (buf, sizeof buf, s->str, v));
    }
  g_string_append (s, c->length);
  g_string_append_c (s, c->conv);
  spec = g_string_free (g_steal_pointer (&s), FALSE);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  switch (c->kind)
    {
    case 's':
      {
        const char *v = va_arg (*ap, const char *);
        return g_strdup_printf (spec, v ? v : "(null)");
      }
    case 'c':
      return g_strdup_printf (spec, va_arg (*ap, int));
    case 'p':
      return g_strdup_printf (spec, va_arg (*ap, void *));
    case 'i':
    default:
      break;
    }
  if (strchr ("di", c->conv))
    {
      if (g_str_equal (c->length, "l"))
        return g_strdup_printf (spec, va_arg (*ap, long));
      if (g_str_equal (c->length, "ll") || g_str_equal (c->length, "q"))
        return g_strdup_printf (spec, va_arg (*ap, long long));
      if (g_str_equal (c->length, "j"))
        return g_strdup_printf (spec, va_arg (*ap, intmax_t));
      if (g_str_equal (c->length, "z"))
        return g_strdup_printf (spec, va_arg (*ap, gssize));
      if (g_str_equal (c->length, "t"))
        return g_strdup_printf (spec, va_arg (*ap, ptrdiff_t));
      return g_strdup_printf (spec, va_arg (*ap, int));
    }
  if (g_str_equal (c->length, "l"))
    return g_strdup_printf (spec, va_arg (*ap, unsigned long));
  if (g_str_equal (c->length, "ll") || g_str_equal (c->length, "q"))
    return g_strdup_printf (spec, va_arg (*ap, unsigned long long));
  if (g_str_equal (c->length, "j"))
    return g_strdup_printf (spec, va_arg (*ap, uintmax_t));
  if (g_str_equal (c->length, "z"))
    return g_strdup_printf (spec, va_arg (*ap, size_t));
  if (g_str_equal (c->length, "t"))
    return g_strdup_printf (spec, va_arg (*ap, ptrdiff_t));
  return g_strdup_printf (spec, va_arg (*ap, unsigned int));
#pragma GCC diagnostic pop
}

VsmReason *
vsm_reason_newv (const char *format, va_list args)
{
  g_autoptr (GArray) convs = conversions (format);
  VsmReason *r;
  va_list ap;

  g_return_val_if_fail (format != NULL, NULL);
  /* a format that cannot be recorded (positional, '*'): its text as it is */
  if (convs == NULL || *format == '\0' ||
      (convs->len > 0 && g_array_index (convs, Conversion, 0).index != 0) ||
      (convs->len > 0 &&
       g_array_index (convs, Conversion, convs->len - 1).index != (int)convs->len - 1))
    {
      g_autofree char *text = NULL;
      va_copy (ap, args);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      text = g_strdup_vprintf (format, ap);
#pragma GCC diagnostic pop
      va_end (ap);
      return vsm_reason_new_literal (text);
    }
  r = reason_alloc ();
  r->msgid = g_strdup (format);
  r->args = vsm_reasons_new ();
  va_copy (ap, args);
  for (guint i = 0; i < convs->len; i++)
    {
      g_autofree char *arg = render_argument (&g_array_index (convs, Conversion, i), &ap);
      g_ptr_array_add (r->args, vsm_reason_new_literal (arg));
    }
  va_end (ap);
  render_english (r);
  return r;
}

VsmReason *
vsm_reason_new (const char *format, ...)
{
  va_list args;
  VsmReason *r;

  va_start (args, format);
  r = vsm_reason_newv (format, args);
  va_end (args);
  return r;
}

void
vsm_reason_set_arg (VsmReason *r, guint i, VsmReason *arg)
{
  g_return_if_fail (r != NULL && arg != NULL);
  if (r->args == NULL || i >= r->args->len)
    {
      g_critical ("a reason's argument %u set that its format does not have", i);
      vsm_reason_unref (arg);
      return;
    }
  vsm_reason_unref (g_ptr_array_index (r->args, i));
  g_ptr_array_index (r->args, i) = arg;
  render_english (r);
}

/* the translation of r's msgid when its conversions take the same
 * arguments as the msgid's, else the msgid */
static const char *
translated_format (const VsmReason *r)
{
  const char *t = gettext (r->msgid);
  g_autoptr (GArray) mine = NULL;
  g_autoptr (GArray) theirs = NULL;
  char kinds[MAX_ARGS], tkinds[MAX_ARGS];
  guint n, tn;

  if (t == r->msgid || g_strcmp0 (t, r->msgid) == 0)
    return r->msgid;
  mine = conversions (r->msgid);
  theirs = conversions (t);
  if (mine == NULL || theirs == NULL || !argument_kinds (mine, kinds, &n) ||
      !argument_kinds (theirs, tkinds, &tn) || n != tn || memcmp (kinds, tkinds, n) != 0)
    return r->msgid;
  return t;
}

char *
vsm_reason_to_display (const VsmReason *r)
{
  g_autoptr (GPtrArray) texts = NULL;
  char *shown;

  g_return_val_if_fail (r != NULL, NULL);
  if (r->msgid == NULL)
    return g_strdup (r->text);
  texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < r->args->len; i++)
    g_ptr_array_add (texts, vsm_reason_to_display (g_ptr_array_index (r->args, i)));
  shown = substitute (translated_format (r), texts);
  return shown ? shown : g_strdup (r->text);
}

static void
append_escaped (GString *out, const char *text)
{
  for (const char *p = text; *p; p++)
    {
      if (strchr ("\\|{}", *p))
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
}

static void
serialize (GString *out, const VsmReason *r)
{
  if (r->msgid == NULL)
    {
      append_escaped (out, r->text);
      return;
    }
  g_string_append_c (out, '{');
  append_escaped (out, r->msgid);
  for (guint i = 0; i < r->args->len; i++)
    {
      g_string_append_c (out, '|');
      serialize (out, g_ptr_array_index (r->args, i));
    }
  g_string_append_c (out, '}');
}

char *
vsm_reason_serialize (const VsmReason *r)
{
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (r != NULL, NULL);
  serialize (out, r);
  return g_string_free (out, FALSE);
}

/* text up to an unescaped '|', '{' or '}' (or the end), unescaped */
static char *
parse_text (const char **p)
{
  GString *out = g_string_new (NULL);

  for (; **p && !strchr ("|{}", **p); (*p)++)
    {
      if (**p == '\\' && (*p)[1] != '\0')
        (*p)++;
      g_string_append_c (out, **p);
    }
  return g_string_free (out, FALSE);
}

static VsmReason *
parse_node (const char **p, guint depth)
{
  g_autoptr (VsmReason) r = NULL;
  g_autoptr (GArray) convs = NULL;

  if (**p != '{')
    {
      g_autofree char *text = parse_text (p);
      return vsm_reason_new_literal (text);
    }
  if (depth >= MAX_DEPTH)
    return NULL;
  (*p)++;
  r = reason_alloc ();
  r->msgid = parse_text (p);
  r->args = vsm_reasons_new ();
  while (**p == '|')
    {
      VsmReason *arg;

      (*p)++;
      if (r->args->len >= MAX_ARGS || (arg = parse_node (p, depth + 1)) == NULL)
        return NULL;
      g_ptr_array_add (r->args, arg);
    }
  if (**p != '}')
    return NULL;
  (*p)++;
  /* the msgid's conversions, in order, one per argument */
  convs = conversions (r->msgid);
  if (*r->msgid == '\0' || convs == NULL || convs->len != r->args->len)
    return NULL;
  for (guint i = 0; i < convs->len; i++)
    if (g_array_index (convs, Conversion, i).index != (int)i)
      return NULL;
  if (!render_english (r))
    return NULL;
  return g_steal_pointer (&r);
}

VsmReason *
vsm_reason_parse (const char *text)
{
  const char *p = text;
  g_autoptr (VsmReason) r = NULL;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return NULL;
  r = parse_node (&p, 0);
  if (r == NULL || *p != '\0')
    return NULL;
  return g_steal_pointer (&r);
}
