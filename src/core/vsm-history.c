/* vsm-history.c - what each unmount of a managed drive left to write
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-history.h"
#include "vsm-rundir.h"
#include "vsm-knobs.h"
#include "vsm-paths.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HISTORY_MAX_BYTES (128 * 1024)
#define HISTORY_KEEP_LINES 200

void
vsm_unmount_record_free (VsmUnmountRecord *r)
{
  if (r == NULL)
    return;
  g_free (r->bdi);
  g_free (r->target);
  g_free (r);
}

char *
vsm_unmount_record_to_line (const VsmUnmountRecord *r)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *target = g_utf8_make_valid (r->target ? r->target : "", -1);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "bdi");
  json_builder_add_string_value (b, r->bdi);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, target);
  json_builder_set_member_name (b, "at_usec");
  json_builder_add_int_value (b, r->at_usec);
  json_builder_set_member_name (b, "seconds");
  json_builder_add_double_value (b, r->seconds);
  json_builder_set_member_name (b, "dirty_bytes");
  json_builder_add_int_value (b, (gint64)MIN (r->dirty_bytes, (guint64)G_MAXINT64));
  json_builder_set_member_name (b, "dirty_scope");
  json_builder_add_string_value (b, r->per_device ? "device" : "system");
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

VsmUnmountRecord *
vsm_unmount_record_from_line (const char *line, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (VsmUnmountRecord) r = g_new0 (VsmUnmountRecord, 1);
  JsonObject *o;
  JsonNode *root;

  if (!json_parser_load_from_data (parser, line, -1, error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("history: not an object"));
      return NULL;
    }
  o = json_node_get_object (root);
  if (!vsm_bdi_is_valid (json_object_get_string_member_with_default (o, "bdi", NULL)))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("history: missing or bad bdi"));
      return NULL;
    }
  r->bdi = g_strdup (json_object_get_string_member (o, "bdi"));
  r->target = g_strdup (json_object_get_string_member_with_default (o, "target", ""));
  r->at_usec = json_object_get_int_member_with_default (o, "at_usec", 0);
  r->seconds = json_object_get_double_member_with_default (o, "seconds", 0);
  r->dirty_bytes = (guint64)MAX (json_object_get_int_member_with_default (o, "dirty_bytes", 0), 0);
  r->per_device =
    g_strcmp0 (json_object_get_string_member_with_default (o, "dirty_scope", ""), "device") == 0;
  return g_steal_pointer (&r);
}

static char *
history_path (void)
{
  return vsm_rundir_path (VSM_RUN_FILE_UNMOUNTS, NULL);
}

/* keeps the newest lines once the file grows past its bound */
static void
trim_history (const char *path)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree char *kept = NULL;
  guint n, from;
  gsize len = 0;

  if (!vsm_state_read_file (path, &text, &len, NULL) || len < HISTORY_MAX_BYTES)
    return;
  lines = g_strsplit (text, "\n", -1);
  n = g_strv_length (lines);
  from = n > HISTORY_KEEP_LINES ? n - HISTORY_KEEP_LINES : 0;
  kept = g_strjoinv ("\n", lines + from);
  (void)vsm_write_file_atomic (path, kept, strlen (kept), 0644, FALSE, NULL);
}

gboolean
vsm_history_append_unmount (const VsmUnmountRecord *r, GError **error)
{
  g_autofree char *path = history_path ();
  g_autofree char *line = vsm_unmount_record_to_line (r);
  g_autofree char *text = g_strconcat (line, "\n", NULL);
  int fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  struct stat st;
  gboolean ok;

  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot open %s: %s"), path,
                   g_strerror (errsv));
      return FALSE;
    }
  /* only a file of our own: never a link (hard or symbolic) to another
   * file, a FIFO or a device, nor one that others may write */
  ok = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid () &&
       st.st_nlink == 1 && (st.st_mode & 0022) == 0 &&
       ((st.st_mode & 07777) == 0644 || fchmod (fd, 0644) == 0) &&
       write (fd, text, strlen (text)) == (ssize_t)strlen (text);
  close (fd);
  if (!ok)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot append to %s"), path);
      return FALSE;
    }
  trim_history (path);
  return TRUE;
}

GPtrArray *
vsm_history_unmounts (const char *bdi, guint max)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_unmount_record_free);
  g_autofree char *path = history_path ();
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  gsize len = 0;

  if (!vsm_state_read_file (path, &text, &len, NULL))
    return out;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      VsmUnmountRecord *r = **l ? vsm_unmount_record_from_line (*l, NULL) : NULL;
      if (r != NULL && g_strcmp0 (r->bdi, bdi) == 0)
        g_ptr_array_add (out, r);
      else
        vsm_unmount_record_free (r);
    }
  while (out->len > max)
    g_ptr_array_remove_index (out, 0);
  return out;
}
