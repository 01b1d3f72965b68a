/* vsm-intent.c - what was asked of an apply, and by whom
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-intent.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <string.h>

/* a front end's name: "udev", "mount", ... (a word, never a path) */
static gboolean
source_is_sane (const char *s)
{
  if (strlen (s) > 32)
    return FALSE;
  for (const char *p = s; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

VsmIntent *
vsm_intent_new (const char *source)
{
  VsmIntent *i = g_new0 (VsmIntent, 1);

  i->source = g_strdup (source);
  i->flush_mode = VSM_FLUSH_MODE_AUTO;
  return i;
}

void
vsm_intent_free (VsmIntent *i)
{
  if (i == NULL)
    return;
  g_free (i->source);
  vsm_user_options_free (i->user_options);
  g_free (i->policy_origin);
  g_free (i);
}

VsmIntent *
vsm_intent_copy (const VsmIntent *i)
{
  VsmIntent *c = vsm_intent_new (i->source);

  c->set_class = i->set_class;
  c->klass = i->klass;
  c->flush_mode = i->flush_mode;
  c->user_options = i->user_options ? vsm_user_options_copy (i->user_options) : NULL;
  c->policy_origin = g_strdup (i->policy_origin);
  return c;
}

void
vsm_intent_set_user_options (VsmIntent *i, const VsmUserOptions *o)
{
  g_clear_pointer (&i->user_options, vsm_user_options_free);
  if (o != NULL && !vsm_user_options_is_empty (o))
    i->user_options = vsm_user_options_copy (o);
}

void
vsm_intent_to_overrides (const VsmIntent *i, VsmOverrides *o, char **why)
{
  memset (o, 0, sizeof *o);
  *why = NULL;
  if (i == NULL)
    return;
  o->set_class = i->set_class;
  o->klass = i->klass;
  o->flush_mode = i->flush_mode;
  if (i->flush_mode != VSM_FLUSH_MODE_AUTO)
    {
      *why =
        g_strdup_printf (_ ("flush mode %s chosen by hand (%s): kept"),
                         vsm_flush_mode_to_string (i->flush_mode), i->source ? i->source : "?");
      o->flush_mode_why = *why;
    }
}

VsmIntent *
vsm_intent_from_overrides (const char *source, const VsmOverrides *o)
{
  VsmIntent *i = vsm_intent_new (source);

  if (o == NULL)
    return i;
  i->set_class = o->set_class;
  i->klass = o->klass;
  i->flush_mode = o->flush_mode;
  return i;
}

char *
vsm_intent_describe (const VsmIntent *i)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  if (i == NULL)
    return g_strdup ("");
  if (i->set_class)
    g_ptr_array_add (parts, g_strdup_printf (_ ("class %s"), vsm_class_to_string (i->klass)));
  if (i->flush_mode != VSM_FLUSH_MODE_AUTO)
    g_ptr_array_add (parts, g_strdup (vsm_flush_mode_to_string (i->flush_mode)));
  if (i->user_options != NULL)
    g_ptr_array_add (parts, g_strdup (g_strcmp0 (i->user_options->source, VSM_OPTIONS_BY_USER) == 0
                                        ? _ ("options the drive's user set")
                                        : _ ("options an admin set")));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (", ", (char **)parts->pdata);
}

void
vsm_intent_save (const VsmIntent *i, GKeyFile *kf, const char *group)
{
  g_key_file_set_string (kf, group, "source", i->source ? i->source : "");
  if (i->set_class)
    g_key_file_set_string (kf, group, "class", vsm_class_to_string (i->klass));
  g_key_file_set_string (kf, group, "flush-mode", vsm_flush_mode_to_string (i->flush_mode));
  if (i->policy_origin != NULL)
    g_key_file_set_string (kf, group, "policy-origin", i->policy_origin);
  if (i->user_options != NULL)
    {
      gsize len = 0;
      g_autofree char *data = vsm_user_options_to_data (i->user_options, &len);
      g_key_file_set_string (kf, group, "user-options", data);
    }
}

static gboolean
bad (GError **error, const char *what)
{
  g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("state: bad intent (%s)"), what);
  return FALSE;
}

VsmIntent *
vsm_intent_load (GKeyFile *kf, const char *group, GError **error)
{
  g_autoptr (VsmIntent) i = NULL;
  g_autofree char *source = NULL, *klass = NULL, *mode = NULL, *options = NULL;

  if (!g_key_file_has_group (kf, group))
    return NULL;
  source = g_key_file_get_string (kf, group, "source", NULL);
  if (source != NULL && !source_is_sane (source))
    return bad (error, "source"), NULL;
  i = vsm_intent_new (source && *source ? source : NULL);
  klass = g_key_file_get_string (kf, group, "class", NULL);
  if (klass != NULL && !vsm_class_from_string (klass, &i->klass))
    return bad (error, "class"), NULL;
  i->set_class = klass != NULL;
  mode = g_key_file_get_string (kf, group, "flush-mode", NULL);
  if (mode != NULL && !vsm_flush_mode_from_string (mode, &i->flush_mode))
    return bad (error, "flush-mode"), NULL;
  i->policy_origin = g_key_file_get_string (kf, group, "policy-origin", NULL);
  options = g_key_file_get_string (kf, group, "user-options", NULL);
  if (options != NULL &&
      (i->user_options = vsm_user_options_from_data (options, strlen (options), error)) == NULL)
    return NULL;
  return g_steal_pointer (&i);
}
