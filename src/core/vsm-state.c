/* vsm-state.c - what vfat-smart applied, with the original values
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-state.h"
#include "vsm-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_STATE_SIZE (256 * 1024)

void
vsm_knob_record_free (VsmKnobRecord *r)
{
  if (r == NULL)
    return;
  g_free (r->name);
  g_free (r->path);
  g_free (r->original);
  g_free (r->applied);
  g_free (r->readback);
  g_free (r->restore_path);
  g_free (r->restore_value);
  g_free (r);
}

VsmKnobRecord *
vsm_knob_record_copy (const VsmKnobRecord *r)
{
  VsmKnobRecord *c = g_new0 (VsmKnobRecord, 1);
  c->name = g_strdup (r->name);
  c->path = g_strdup (r->path);
  c->original = g_strdup (r->original);
  c->applied = g_strdup (r->applied);
  c->readback = g_strdup (r->readback);
  c->restore_path = g_strdup (r->restore_path);
  c->restore_value = g_strdup (r->restore_value);
  return c;
}

void
vsm_state_free (VsmState *s)
{
  if (s == NULL)
    return;
  g_free (s->bdi);
  g_free (s->disk_node);
  g_free (s->disk_name);
  g_free (s->disk_syspath);
  g_free (s->serial);
  g_free (s->class_name);
  g_free (s->flush_mode);
  g_free (s->fs_type);
  g_free (s->mount_options);
  g_free (s->source);
  g_free (s->baseline_stat);
  g_ptr_array_unref (s->knobs);
  g_ptr_array_unref (s->reasons);
  g_free (s);
}

VsmState *
vsm_state_new (const char *bdi)
{
  VsmState *s = g_new0 (VsmState, 1);
  s->bdi = g_strdup (bdi);
  s->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_record_free);
  s->reasons = g_ptr_array_new_with_free_func (g_free);
  return s;
}

void
vsm_global_state_free (VsmGlobalState *g)
{
  if (g == NULL)
    return;
  g_ptr_array_unref (g->knobs);
  g_ptr_array_unref (g->owners);
  g_free (g);
}

const char *
vsm_state_dir (void)
{
  const char *env = g_getenv ("VFAT_SMART_STATE_DIR");
  return env && *env ? env : VSM_STATE_DIR;
}

static gboolean
bdi_is_valid (const char *bdi)
{
  guint maj, min;
  char tail;
  return bdi != NULL && strlen (bdi) < 24 && sscanf (bdi, "%u:%u%c", &maj, &min, &tail) == 2;
}

/* Only these places are ever written from a state file. */
static gboolean
knob_path_is_safe (const char *path)
{
  return path != NULL && strstr (path, "..") == NULL && strchr (path, '\n') == NULL &&
         (g_str_has_prefix (path, "/sys/class/bdi/") || g_str_has_prefix (path, "/proc/sys/vm/"));
}

static char *
state_path (const char *name)
{
  return g_build_filename (vsm_state_dir (), name, NULL);
}

static char *
bdi_file_name (const char *bdi)
{
  g_autofree char *base = g_strdelimit (g_strdup (bdi), ":", '-');
  return g_strconcat (base, ".state", NULL);
}

static gboolean
ensure_dir (GError **error)
{
  const char *dir = vsm_state_dir ();
  struct stat st;

  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR,
                   errsv == EACCES || errsv == EPERM ? VSM_ERROR_PERMISSION : VSM_ERROR_STATE,
                   "cannot create state directory %s: %s", dir, g_strerror (errsv));
      return FALSE;
    }
  if (lstat (dir, &st) < 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid () ||
      (st.st_mode & 0022) != 0)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                   "state directory %s is not a directory owned by uid %u and writable only by it",
                   dir, (guint)geteuid ());
      return FALSE;
    }
  return TRUE;
}

int
vsm_state_lock (GError **error)
{
  g_autofree char *path = NULL;
  int fd;

  if (!ensure_dir (error))
    return -1;
  path = state_path (".lock");
  fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0 || flock (fd, LOCK_EX) < 0)
    {
      int errsv = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "cannot lock %s: %s", path,
                   g_strerror (errsv));
      return -1;
    }
  return fd;
}

void
vsm_state_unlock (int fd)
{
  if (fd >= 0)
    close (fd); /* drops the flock */
}

static gboolean
read_no_follow (const char *path, char **out, gsize *len, GError **error)
{
  struct stat st;
  g_autofree char *buf = NULL;
  ssize_t n;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);

  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, errsv == ENOENT ? VSM_ERROR_NOT_MANAGED : VSM_ERROR_STATE,
                   "cannot open %s: %s", path, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || st.st_size > MAX_STATE_SIZE)
    {
      close (fd);
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "%s is not a regular file of sane size",
                   path);
      return FALSE;
    }
  buf = g_malloc (st.st_size + 1);
  n = read (fd, buf, st.st_size);
  close (fd);
  if (n != st.st_size)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "short read on %s", path);
      return FALSE;
    }
  buf[n] = '\0';
  *len = (gsize)n;
  *out = g_steal_pointer (&buf);
  return TRUE;
}

static gboolean
write_atomic (const char *name, const char *data, gsize len, GError **error)
{
  g_autofree char *path = state_path (name);
  g_autoptr (GError) local = NULL;

  if (!ensure_dir (error))
    return FALSE;
  /* temp file + rename(): a symlink at path is replaced, never followed */
  if (!g_file_set_contents_full (path, data, len, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &local))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "cannot write %s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}

static void
save_knobs (GKeyFile *kf, const char *group, GPtrArray *knobs)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (knobs, i);
      g_autofree char *g = g_strconcat ("knob ", r->name, NULL);

      g_ptr_array_add (names, r->name);
      g_key_file_set_string (kf, g, "path", r->path);
      g_key_file_set_string (kf, g, "original", r->original ? r->original : "");
      g_key_file_set_string (kf, g, "applied", r->applied ? r->applied : "");
      g_key_file_set_string (kf, g, "readback", r->readback ? r->readback : "");
      g_key_file_set_string (kf, g, "restore-path", r->restore_path);
      g_key_file_set_string (kf, g, "restore-value", r->restore_value);
    }
  g_key_file_set_string_list (kf, group, "knobs", (const char *const *)names->pdata, names->len);
}

static gboolean
load_knobs (GKeyFile *kf, const char *group, GPtrArray *out, GError **error)
{
  g_auto (GStrv) names = g_key_file_get_string_list (kf, group, "knobs", NULL, NULL);

  for (char **n = names; n && *n; n++)
    {
      g_autofree char *g = g_strconcat ("knob ", *n, NULL);
      VsmKnobRecord *r = g_new0 (VsmKnobRecord, 1);

      r->name = g_strdup (*n);
      r->path = g_key_file_get_string (kf, g, "path", NULL);
      r->original = g_key_file_get_string (kf, g, "original", NULL);
      r->applied = g_key_file_get_string (kf, g, "applied", NULL);
      r->readback = g_key_file_get_string (kf, g, "readback", NULL);
      r->restore_path = g_key_file_get_string (kf, g, "restore-path", NULL);
      r->restore_value = g_key_file_get_string (kf, g, "restore-value", NULL);
      if (!knob_path_is_safe (r->path) || !knob_path_is_safe (r->restore_path) ||
          r->restore_value == NULL || strchr (r->restore_value, '\n') != NULL)
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                       "state: knob '%s' has a missing or unsafe path or value", *n);
          vsm_knob_record_free (r);
          return FALSE;
        }
      g_ptr_array_add (out, r);
    }
  return TRUE;
}

static void
set_opt (GKeyFile *kf, const char *key, const char *value)
{
  if (value != NULL)
    g_key_file_set_string (kf, "disk", key, value);
}

char *
vsm_state_to_data (const VsmState *s, gsize *len)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();

  set_opt (kf, "bdi", s->bdi);
  set_opt (kf, "node", s->disk_node);
  set_opt (kf, "name", s->disk_name);
  set_opt (kf, "syspath", s->disk_syspath);
  set_opt (kf, "serial", s->serial);
  set_opt (kf, "class", s->class_name);
  set_opt (kf, "flush-mode", s->flush_mode);
  set_opt (kf, "fs-type", s->fs_type);
  set_opt (kf, "mount-options", s->mount_options);
  set_opt (kf, "source", s->source);
  set_opt (kf, "baseline-stat", s->baseline_stat);
  g_key_file_set_uint64 (kf, "disk", "cap-bytes", s->cap_bytes);
  g_key_file_set_uint64 (kf, "disk", "bandwidth", s->bandwidth);
  g_key_file_set_int64 (kf, "disk", "applied-at", s->applied_at);
  g_key_file_set_int64 (kf, "disk", "updated-at", s->updated_at);
  g_key_file_set_string_list (kf, "disk", "reasons", (const char *const *)s->reasons->pdata,
                              s->reasons->len);
  save_knobs (kf, "disk", s->knobs);
  return g_key_file_to_data (kf, len, NULL);
}

VsmState *
vsm_state_from_data (const char *data, gsize len, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *bdi = NULL;
  g_auto (GStrv) reasons = NULL;

  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "state: %s", local->message);
      return NULL;
    }
  bdi = g_key_file_get_string (kf, "disk", "bdi", NULL);
  if (!bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "state: missing or bad bdi");
      return NULL;
    }
  s = vsm_state_new (bdi);
  s->disk_node = g_key_file_get_string (kf, "disk", "node", NULL);
  s->disk_name = g_key_file_get_string (kf, "disk", "name", NULL);
  s->disk_syspath = g_key_file_get_string (kf, "disk", "syspath", NULL);
  s->serial = g_key_file_get_string (kf, "disk", "serial", NULL);
  s->class_name = g_key_file_get_string (kf, "disk", "class", NULL);
  s->flush_mode = g_key_file_get_string (kf, "disk", "flush-mode", NULL);
  s->fs_type = g_key_file_get_string (kf, "disk", "fs-type", NULL);
  s->mount_options = g_key_file_get_string (kf, "disk", "mount-options", NULL);
  s->source = g_key_file_get_string (kf, "disk", "source", NULL);
  s->baseline_stat = g_key_file_get_string (kf, "disk", "baseline-stat", NULL);
  s->cap_bytes = g_key_file_get_uint64 (kf, "disk", "cap-bytes", NULL);
  s->bandwidth = g_key_file_get_uint64 (kf, "disk", "bandwidth", NULL);
  s->applied_at = g_key_file_get_int64 (kf, "disk", "applied-at", NULL);
  s->updated_at = g_key_file_get_int64 (kf, "disk", "updated-at", NULL);
  reasons = g_key_file_get_string_list (kf, "disk", "reasons", NULL, NULL);
  for (char **r = reasons; r && *r; r++)
    g_ptr_array_add (s->reasons, g_strdup (*r));
  if (!load_knobs (kf, "disk", s->knobs, error))
    return NULL;
  return g_steal_pointer (&s);
}

VsmState *
vsm_state_load (const char *bdi, GError **error)
{
  g_autofree char *name = NULL, *path = NULL, *data = NULL;
  g_autoptr (VsmState) s = NULL;
  gsize len = 0;

  if (!bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, "bad bdi '%s'", bdi);
      return NULL;
    }
  name = bdi_file_name (bdi);
  path = state_path (name);
  if (!read_no_follow (path, &data, &len, error))
    return NULL;
  s = vsm_state_from_data (data, len, error);
  if (s == NULL)
    return NULL;
  if (!g_str_equal (s->bdi, bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "%s names bdi %s", path, s->bdi);
      return NULL;
    }
  return g_steal_pointer (&s);
}

gboolean
vsm_state_save (const VsmState *s, GError **error)
{
  g_autofree char *data = NULL, *name = NULL;
  gsize len = 0;

  if (!bdi_is_valid (s->bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "bad bdi '%s'", s->bdi);
      return FALSE;
    }
  data = vsm_state_to_data (s, &len);
  name = bdi_file_name (s->bdi);
  return write_atomic (name, data, len, error);
}

static gboolean
unlink_state (const char *name, GError **error)
{
  g_autofree char *path = state_path (name);

  if (g_unlink (path) < 0 && errno != ENOENT)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "cannot remove %s: %s", path,
                   g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

gboolean
vsm_state_remove (const char *bdi, GError **error)
{
  g_autofree char *name = NULL;

  if (!bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, "bad bdi '%s'", bdi);
      return FALSE;
    }
  name = bdi_file_name (bdi);
  return unlink_state (name, error);
}

static int
compare_states (gconstpointer a, gconstpointer b)
{
  const VsmState *sa = *(VsmState *const *)a;
  const VsmState *sb = *(VsmState *const *)b;
  return g_strcmp0 (sa->bdi, sb->bdi);
}

GPtrArray *
vsm_state_list (GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_state_free);
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) dir = g_dir_open (vsm_state_dir (), 0, &local);
  const char *name;

  if (dir == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&out);
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "%s", local->message);
      return NULL;
    }

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *bdi = NULL;
      VsmState *s;

      if (!g_str_has_suffix (name, ".state") || g_str_equal (name, "global.state"))
        continue;
      bdi = g_strndup (name, strlen (name) - strlen (".state"));
      g_strdelimit (bdi, "-", ':');
      s = vsm_state_load (bdi, &local);
      if (s == NULL)
        {
          g_warning ("ignoring %s: %s", name, local->message);
          g_clear_error (&local);
          continue;
        }
      g_ptr_array_add (out, s);
    }
  g_ptr_array_sort (out, compare_states);
  return g_steal_pointer (&out);
}

VsmGlobalState *
vsm_global_state_load (GError **error)
{
  g_autoptr (VsmGlobalState) g = g_new0 (VsmGlobalState, 1);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = state_path ("global.state");
  g_autofree char *data = NULL;
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) owners = NULL;
  gsize len = 0;

  g->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_record_free);
  g->owners = g_ptr_array_new_with_free_func (g_free);

  if (!read_no_follow (path, &data, &len, &local))
    {
      if (g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        return g_steal_pointer (&g);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, "%s: %s", path, local->message);
      return NULL;
    }
  owners = g_key_file_get_string_list (kf, "global", "owners", NULL, NULL);
  for (char **o = owners; o && *o; o++)
    if (bdi_is_valid (*o))
      g_ptr_array_add (g->owners, g_strdup (*o));
  if (!load_knobs (kf, "global", g->knobs, error))
    return NULL;
  return g_steal_pointer (&g);
}

gboolean
vsm_global_state_save (const VsmGlobalState *g, GError **error)
{
  g_autoptr (GKeyFile) kf = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;

  if (g->owners->len == 0)
    return unlink_state ("global.state", error);

  kf = g_key_file_new ();
  g_key_file_set_string_list (kf, "global", "owners", (const char *const *)g->owners->pdata,
                              g->owners->len);
  save_knobs (kf, "global", g->knobs);
  data = g_key_file_to_data (kf, &len, NULL);
  return write_atomic ("global.state", data, len, error);
}
