/* vsmd-limits.c - bounds on what a caller may send vfat-smartd
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-limits.h"
#include "vsm-dbus-contract.h"
#include "vsm.h"

#include <string.h>

/* nesting deeper than this is no option vfat-smart has */
#define MAX_DEPTH 4
/* callers remembered at most; a full bucket is forgotten first */
#define MAX_CALLERS 1024

static gboolean
has_control (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

static gboolean
check_string (const char *text, const char *key, GError **error)
{
  gsize len = strlen (text);

  if (len > VSMD_MAX_STRING_BYTES)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   "%s: a string is too long (%" G_GSIZE_FORMAT " bytes, at most %u)", key, len,
                   VSMD_MAX_STRING_BYTES);
      return FALSE;
    }
  if (has_control (text))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   "%s: a string has a control character", key);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_value (GVariant *v, const char *key, guint depth, GError **error)
{
  GVariantIter iter;
  GVariant *child;
  gsize n;

  if (depth > MAX_DEPTH)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, "%s: nested too deep", key);
      return FALSE;
    }
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_STRING) ||
      g_variant_is_of_type (v, G_VARIANT_TYPE_OBJECT_PATH) ||
      g_variant_is_of_type (v, G_VARIANT_TYPE_SIGNATURE))
    return check_string (g_variant_get_string (v, NULL), key, error);
  if (!g_variant_is_container (v))
    return TRUE;
  n = g_variant_n_children (v);
  if (n > VSMD_MAX_ITEMS)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   "%s: too many items (%" G_GSIZE_FORMAT ", at most %u)", key, n, VSMD_MAX_ITEMS);
      return FALSE;
    }
  g_variant_iter_init (&iter, v);
  while ((child = g_variant_iter_next_value (&iter)) != NULL)
    {
      gboolean ok = check_value (child, key, depth + 1, error);
      g_variant_unref (child);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

gboolean
vsmd_limits_check_options (GVariant *options, GError **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;
  gsize n = g_variant_n_children (options);

  if (n > VSMD_MAX_OPTIONS)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   "too many options (%" G_GSIZE_FORMAT ", at most %u)", n, VSMD_MAX_OPTIONS);
      return FALSE;
    }
  g_variant_iter_init (&iter, options);
  while (g_variant_iter_next (&iter, "{&sv}", &key, &value))
    {
      gboolean ok =
        check_string (key, "an option's name", error) && check_value (value, key, 0, error);
      g_variant_unref (value);
      if (!ok)
        return FALSE;
    }
  if (g_variant_get_size (options) > VSMD_MAX_OPTIONS_BYTES)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   "the options are too large (%" G_GSIZE_FORMAT " bytes, at most %u)",
                   g_variant_get_size (options), VSMD_MAX_OPTIONS_BYTES);
      return FALSE;
    }
  return TRUE;
}

/* a token bucket per unique bus name */
typedef struct
{
  double tokens;
  gint64 at_usec; /* when tokens was last brought up to date */
} Bucket;

static GHashTable *buckets; /* sender -> Bucket */

static void
refill (Bucket *b, gint64 now)
{
  b->tokens = MIN ((double)VSMD_CALLS_BURST,
                   b->tokens + (double)(now - b->at_usec) * VSMD_CALLS_PER_SECOND / G_USEC_PER_SEC);
  b->at_usec = now;
}

/* callers whose bucket is full again are the same as new ones */
static void
forget_full_buckets (gint64 now)
{
  GHashTableIter iter;
  Bucket *b;

  g_hash_table_iter_init (&iter, buckets);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *)&b))
    {
      refill (b, now);
      if (b->tokens >= VSMD_CALLS_BURST)
        g_hash_table_iter_remove (&iter);
    }
}

gboolean
vsmd_limits_take_call (GDBusMethodInvocation *inv)
{
  const char *sender = g_dbus_method_invocation_get_sender (inv);
  gint64 now = g_get_monotonic_time ();
  Bucket *b;

  if (sender == NULL) /* a peer-to-peer connection: not on the bus */
    return TRUE;
  if (buckets == NULL)
    buckets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (g_hash_table_size (buckets) >= MAX_CALLERS)
    forget_full_buckets (now);
  b = g_hash_table_lookup (buckets, sender);
  if (b == NULL)
    {
      b = g_new0 (Bucket, 1);
      b->tokens = VSMD_CALLS_BURST;
      b->at_usec = now;
      g_hash_table_insert (buckets, g_strdup (sender), b);
    }
  refill (b, now);
  if (b->tokens >= 1.0)
    {
      b->tokens -= 1.0;
      return TRUE;
    }
  g_dbus_method_invocation_return_error (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                         "too many calls from this caller (at most %u a second); "
                                         "try again in a second",
                                         VSMD_CALLS_PER_SECOND);
  return FALSE;
}
