/* vsm-state.c - what vfat-smart applied, with the original values
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-state.h"
#include "vsm-rundir.h"
#include "vsm-knobs.h"
#include "vsm-paths.h"
#include "vsm-util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_STATE_SIZE (256 * 1024)
/* a write takes milliseconds; a temporary this old belongs to no live run */
#define VSM_STATE_STALE_TEMPORARY_S (10 * 60)

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
  g_free (s->updated_by);
  g_free (s->baseline_stat);
  g_ptr_array_unref (s->knobs);
  g_ptr_array_unref (s->reasons);
  vsm_intent_free (s->intent);
  g_free (s);
}

VsmState *
vsm_state_new (const char *bdi)
{
  VsmState *s = g_new0 (VsmState, 1);
  s->bdi = g_strdup (bdi);
  s->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_record_free);
  s->reasons = vsm_reasons_new ();
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

static char *
state_path (const char *name)
{
  return g_build_filename (vsm_rundir (), name, NULL);
}

static char *
bdi_file_name (const char *bdi)
{
  return vsm_rundir_name (VSM_RUN_FILE_RECORD, bdi);
}

static gboolean
ensure_dir (GError **error)
{
  const char *dir = vsm_rundir ();
  struct stat st;

  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR,
                   errsv == EACCES || errsv == EPERM ? VSM_ERROR_PERMISSION : VSM_ERROR_STATE,
                   _ ("cannot create state directory %s: %s"), dir, g_strerror (errsv));
      return FALSE;
    }
  if (lstat (dir, &st) < 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid () ||
      (st.st_mode & 0022) != 0)
    {
      g_set_error (
        error, VSM_ERROR, VSM_ERROR_STATE,
        _ ("state directory %s is not a directory owned by uid %u and writable only by it"), dir,
        (guint)geteuid ());
      return FALSE;
    }
  return TRUE;
}

/* Under the lock: the temporaries of runs killed while they wrote (older
 * than any write takes) go. */
static void
remove_stale_temporaries (void)
{
  int dfd = open (vsm_rundir (), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int fd = dfd >= 0 ? dup (dfd) : -1;
  DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  struct dirent *e;
  guint seen = 0;

  if (d == NULL && fd >= 0)
    close (fd);
  while (d != NULL && (e = readdir (d)) != NULL && seen++ < 10000)
    {
      struct stat st;

      if (vsm_rundir_kind_of (e->d_name, NULL) != VSM_RUN_FILE_TEMPORARY ||
          fstatat (dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR (st.st_mode) ||
          now - (gint64)st.st_mtime < VSM_STATE_STALE_TEMPORARY_S)
        continue;
      if (unlinkat (dfd, e->d_name, 0) == 0)
        g_debug ("removed %s, left by a run that did not finish", e->d_name);
    }
  if (d != NULL)
    closedir (d);
  if (dfd >= 0)
    close (dfd);
}

int
vsm_state_lock (guint timeout_ms, GError **error)
{
  g_autofree char *path = NULL;
  gint64 deadline = g_get_monotonic_time () + (gint64)timeout_ms * 1000;
  int fd;

  if (!ensure_dir (error))
    return -1;
  path = vsm_rundir_path (VSM_RUN_FILE_LOCK, NULL);
  fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot open %s: %s"), path,
                   g_strerror (errsv));
      return -1;
    }
  /* a bounded wait: a stopped vfat-smart must not stall every udev event */
  while (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      int errsv = errno;
      if (errsv != EWOULDBLOCK && errsv != EINTR)
        {
          close (fd);
          g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot lock %s: %s"), path,
                       g_strerror (errsv));
          return -1;
        }
      if (g_get_monotonic_time () >= deadline)
        {
          close (fd);
          g_set_error (error, VSM_ERROR, VSM_ERROR_BUSY,
                       _ ("another vfat-smart holds %s (waited %u ms); nothing was changed"), path,
                       timeout_ms);
          return -1;
        }
      g_usleep (10 * 1000);
    }
  remove_stale_temporaries ();
  return fd;
}

void
vsm_state_unlock (int fd)
{
  if (fd >= 0)
    close (fd); /* drops the flock */
}

/* cut: a larger file is read up to max (the caller sees len == max);
 * untrusted (may be NULL): the file is there but not ours to believe (a
 * link, not a regular file, another owner, writable by others, too
 * large), not a read that failed (EIO, EMFILE, a short read: try again) */
static gboolean
read_file_full (const char *path, gsize max, gboolean cut, char **out, gsize *len,
                gboolean *untrusted, GError **error)
{
  struct stat st;
  g_autofree char *buf = NULL;
  gsize want;
  ssize_t n;
  /* O_NONBLOCK: a FIFO planted here must not hang us */
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
  int errsv = errno;

  if (untrusted)
    *untrusted = fd < 0 && (errsv == ELOOP || errsv == ENXIO);
  if (fd < 0)
    {
      g_set_error (error, VSM_ERROR, errsv == ENOENT ? VSM_ERROR_NOT_MANAGED : VSM_ERROR_STATE,
                   _ ("cannot open %s: %s"), path, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (fd, &st) < 0)
    {
      errsv = errno;
      close (fd);
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot stat %s: %s"), path,
                   g_strerror (errsv));
      return FALSE;
    }
  /* root's files are trusted by anyone: a user's `vfat-smart status` reads
   * what the udev helper and the daemon wrote */
  if (!S_ISREG (st.st_mode) || (!cut && (gsize)st.st_size > max) ||
      (st.st_uid != geteuid () && st.st_uid != 0) || (st.st_mode & 0022) != 0)
    {
      close (fd);
      if (untrusted)
        *untrusted = TRUE;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                   _ ("%s is not a regular file of sane size, owned by uid %u (or root) and "
                      "writable only by it"),
                   path, (guint)geteuid ());
      return FALSE;
    }
  want = MIN ((gsize)st.st_size, max);
  buf = g_malloc (want + 1);
  n = read (fd, buf, want);
  errsv = errno;
  close (fd);
  if (n < 0 || (gsize)n != want)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot read %s: %s"), path,
                   n < 0 ? g_strerror (errsv) : _ ("short read"));
      return FALSE;
    }
  buf[n] = '\0';
  *len = (gsize)n;
  *out = g_steal_pointer (&buf);
  return TRUE;
}

gboolean
vsm_state_read_file (const char *path, char **out, gsize *len, GError **error)
{
  return read_file_full (path, MAX_STATE_SIZE, FALSE, out, len, NULL, error);
}

gboolean
vsm_state_read_file_max (const char *path, gsize max, char **out, gsize *len, gboolean *untrusted,
                         GError **error)
{
  return read_file_full (path, max, TRUE, out, len, untrusted, error);
}

static gboolean
write_atomic (const char *name, const char *data, gsize len, GError **error)
{
  g_autofree char *path = state_path (name);
  g_autoptr (GError) local = NULL;

  if (!ensure_dir (error))
    return FALSE;
  /* temp file + fsync + rename(): a symlink at path is replaced, never
   * followed, and a crash leaves the old file or the new one */
  if (!vsm_write_file_atomic (path, data, len, 0644, FALSE, &local))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot write %s: %s"), path,
                   local->message);
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

static char *
empty_to_null (char *s)
{
  if (s != NULL && *s == '\0')
    g_clear_pointer (&s, g_free);
  return s;
}

/* bdi NULL: the records must be global knobs; else this disk's own */
static gboolean
load_knobs (GKeyFile *kf, const char *group, const char *bdi, GPtrArray *out, GError **error)
{
  g_auto (GStrv) names = g_key_file_get_string_list (kf, group, "knobs", NULL, NULL);

  for (char **n = names; n && *n; n++)
    {
      g_autofree char *g = g_strconcat ("knob ", *n, NULL);
      VsmKnobRecord *r = g_new0 (VsmKnobRecord, 1);

      r->name = g_strdup (*n);
      r->path = g_key_file_get_string (kf, g, "path", NULL);
      r->original = empty_to_null (g_key_file_get_string (kf, g, "original", NULL));
      r->applied = empty_to_null (g_key_file_get_string (kf, g, "applied", NULL));
      r->readback = empty_to_null (g_key_file_get_string (kf, g, "readback", NULL));
      r->restore_path = g_key_file_get_string (kf, g, "restore-path", NULL);
      r->restore_value = g_key_file_get_string (kf, g, "restore-value", NULL);
      if (vsm_knob_is_global (r->name) != (bdi == NULL))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                       _ ("state: knob '%.64s' does not belong here"), *n);
          vsm_knob_record_free (r);
          return FALSE;
        }
      if (!vsm_knob_record_is_sane (r, bdi, error))
        {
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

/* reasons: in English for older readers, and as message ids with their
 * arguments (vsm-reason.h), translated where they are shown */
static void
save_reasons (GKeyFile *kf, GPtrArray *reasons)
{
  g_auto (GStrv) texts = vsm_reasons_texts (reasons);
  g_autoptr (GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < reasons->len; i++)
    g_ptr_array_add (ids, vsm_reason_serialize (g_ptr_array_index (reasons, i)));
  g_key_file_set_string_list (kf, "disk", "reasons", (const char *const *)texts, reasons->len);
  g_key_file_set_string_list (kf, "disk", "reason-ids", (const char *const *)ids->pdata, ids->len);
}

/* the ids when every one of them reads, else the texts as they are (a
 * record from before the ids) */
static void
load_reasons (GKeyFile *kf, GPtrArray *reasons)
{
  g_auto (GStrv) texts = g_key_file_get_string_list (kf, "disk", "reasons", NULL, NULL);
  g_auto (GStrv) ids = g_key_file_get_string_list (kf, "disk", "reason-ids", NULL, NULL);

  for (char **r = ids; r && *r; r++)
    {
      VsmReason *reason = vsm_reason_parse (*r);

      if (reason == NULL)
        {
          g_ptr_array_set_size (reasons, 0);
          break;
        }
      g_ptr_array_add (reasons, reason);
    }
  if (reasons->len > 0)
    return;
  for (char **r = texts; r && *r; r++)
    g_ptr_array_add (reasons, vsm_reason_new_literal (*r));
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
  set_opt (kf, "updated-by", s->updated_by);
  set_opt (kf, "baseline-stat", s->baseline_stat);
  g_key_file_set_boolean (kf, "disk", "pending", s->pending);
  g_key_file_set_boolean (kf, "disk", "uses-global", s->uses_global);
  g_key_file_set_boolean (kf, "disk", "pace-writeback", s->pace_writeback);
  g_key_file_set_uint64 (kf, "disk", "cap-bytes", s->cap_bytes);
  g_key_file_set_uint64 (kf, "disk", "bandwidth", s->bandwidth);
  g_key_file_set_int64 (kf, "disk", "applied-at", s->applied_at);
  g_key_file_set_int64 (kf, "disk", "updated-at", s->updated_at);
  save_reasons (kf, s->reasons);
  save_knobs (kf, "disk", s->knobs);
  if (s->intent != NULL)
    vsm_intent_save (s->intent, kf, "intent");
  return g_key_file_to_data (kf, len, NULL);
}

static char *
get_opt (GKeyFile *kf, const char *key)
{
  return g_key_file_get_string (kf, "disk", key, NULL);
}

VsmState *
vsm_state_from_data (const char *data, gsize len, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *bdi = NULL;

  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("state: %s"), local->message);
      return NULL;
    }
  bdi = get_opt (kf, "bdi");
  if (!vsm_bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("state: missing or bad bdi"));
      return NULL;
    }
  s = vsm_state_new (bdi);
  s->disk_node = get_opt (kf, "node");
  s->disk_name = get_opt (kf, "name");
  s->disk_syspath = get_opt (kf, "syspath");
  s->serial = get_opt (kf, "serial");
  s->class_name = get_opt (kf, "class");
  s->flush_mode = get_opt (kf, "flush-mode");
  s->fs_type = get_opt (kf, "fs-type");
  s->mount_options = get_opt (kf, "mount-options");
  s->source = get_opt (kf, "source");
  s->updated_by = get_opt (kf, "updated-by");
  s->baseline_stat = get_opt (kf, "baseline-stat");
  s->pending = g_key_file_get_boolean (kf, "disk", "pending", NULL);
  s->uses_global = g_key_file_get_boolean (kf, "disk", "uses-global", NULL);
  /* records from before the key paced every capped drive */
  s->pace_writeback = !g_key_file_has_key (kf, "disk", "pace-writeback", NULL) ||
                      g_key_file_get_boolean (kf, "disk", "pace-writeback", NULL);
  s->cap_bytes = g_key_file_get_uint64 (kf, "disk", "cap-bytes", NULL);
  s->bandwidth = g_key_file_get_uint64 (kf, "disk", "bandwidth", NULL);
  s->applied_at = g_key_file_get_int64 (kf, "disk", "applied-at", NULL);
  s->updated_at = g_key_file_get_int64 (kf, "disk", "updated-at", NULL);
  load_reasons (kf, s->reasons);
  if (s->disk_name != NULL && (strchr (s->disk_name, '/') || strstr (s->disk_name, "..")))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("state: bad disk name"));
      return NULL;
    }
  if (!load_knobs (kf, "disk", s->bdi, s->knobs, error))
    return NULL;
  /* none in a record from before intents were kept: a re-apply plans as
   * it did then, from the policy and the measurement */
  s->intent = vsm_intent_load (kf, "intent", &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  return g_steal_pointer (&s);
}

/* While the record's bdi is there, the disk it names must be the one that
 * has it: a record naming another disk would be put back on, or forgotten
 * for, the wrong one. A bdi that is gone took its knobs with it. */
static gboolean
names_its_disk (const VsmState *s)
{
  g_autofree char *bdi_dir = vsm_path (VSM_ROOT_SYSFS, "class", "bdi", s->bdi, NULL);
  g_autofree char *dev_path = NULL;
  g_autofree char *dev = NULL;

  if (s->disk_name == NULL || !g_file_test (bdi_dir, G_FILE_TEST_IS_DIR))
    return TRUE;
  dev_path = vsm_path (VSM_ROOT_SYSFS, "block", s->disk_name, "dev", NULL);
  dev = vsm_read_attr (dev_path, NULL);
  return g_strcmp0 (dev, s->bdi) == 0;
}

VsmState *
vsm_state_load (const char *bdi, GError **error)
{
  g_autofree char *name = NULL, *path = NULL, *data = NULL;
  g_autoptr (VsmState) s = NULL;
  gsize len = 0;

  if (!vsm_bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("bad bdi '%s'"), bdi);
      return NULL;
    }
  name = bdi_file_name (bdi);
  path = state_path (name);
  if (!vsm_state_read_file (path, &data, &len, error))
    return NULL;
  s = vsm_state_from_data (data, len, error);
  if (s == NULL)
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  if (!g_str_equal (s->bdi, bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("%s names bdi %s"), path, s->bdi);
      return NULL;
    }
  if (!names_its_disk (s))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE,
                   "%s names disk %s, but bdi %s is another disk's", path, s->disk_name, s->bdi);
      return NULL;
    }
  return g_steal_pointer (&s);
}

gboolean
vsm_state_save (const VsmState *s, GError **error)
{
  g_autofree char *data = NULL, *name = NULL;
  gsize len = 0;

  if (!vsm_bdi_is_valid (s->bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("bad bdi '%s'"), s->bdi);
      return FALSE;
    }
  data = vsm_state_to_data (s, &len);
  name = bdi_file_name (s->bdi);
  return write_atomic (name, data, len, error);
}

gboolean
vsm_state_write_file (const char *name, const char *data, gsize len, GError **error)
{
  g_return_val_if_fail (strchr (name, '/') == NULL && name[0] != '.', FALSE);
  return write_atomic (name, data, len, error);
}

gboolean
vsm_state_remove_file (const char *name, GError **error)
{
  g_autofree char *path = NULL;

  if (strchr (name, '/') != NULL || name[0] == '.' || !g_str_has_suffix (name, ".state"))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("bad state file name '%s'"),
                   name);
      return FALSE;
    }
  path = state_path (name);
  if (g_unlink (path) < 0 && errno != ENOENT)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("cannot remove %s: %s"), path,
                   g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

gboolean
vsm_state_remove (const char *bdi, GError **error)
{
  g_autofree char *name = NULL;

  if (!vsm_bdi_is_valid (bdi))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("bad bdi '%s'"), bdi);
      return FALSE;
    }
  name = bdi_file_name (bdi);
  return vsm_state_remove_file (name, error);
}

static int
compare_states (gconstpointer a, gconstpointer b)
{
  const VsmState *sa = *(VsmState *const *)a;
  const VsmState *sb = *(VsmState *const *)b;
  return g_strcmp0 (sa->bdi, sb->bdi);
}

GPtrArray *
vsm_state_list (GPtrArray *corrupt, GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_state_free);
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) dir = g_dir_open (vsm_rundir (), 0, &local);
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

      if (!g_str_has_suffix (name, ".state") ||
          vsm_rundir_kind_of (name, NULL) == VSM_RUN_FILE_GLOBAL)
        continue;
      bdi = g_strndup (name, strlen (name) - strlen (".state"));
      g_strdelimit (bdi, "-", ':');
      s = vsm_state_load (bdi, &local);
      if (s == NULL)
        {
          if (corrupt)
            g_ptr_array_add (corrupt, g_strdup_printf ("%s: %s", name, local->message));
          g_clear_error (&local);
          continue;
        }
      g_ptr_array_add (out, s);
    }
  /* the vm.* record too: one that cannot be trusted is never hidden */
  if (corrupt)
    {
      g_autoptr (VsmGlobalState) g = vsm_global_state_load (&local);
      if (g == NULL)
        g_ptr_array_add (corrupt, g_strdup_printf ("global.state: %s", local->message));
      g_clear_error (&local);
    }
  g_ptr_array_sort (out, compare_states);
  return g_steal_pointer (&out);
}

static VsmGlobalState *
global_state_new (void)
{
  VsmGlobalState *g = g_new0 (VsmGlobalState, 1);
  g->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_record_free);
  g->owners = g_ptr_array_new_with_free_func (g_free);
  return g;
}

VsmGlobalState *
vsm_global_state_from_data (const char *data, gsize len, GError **error)
{
  g_autoptr (VsmGlobalState) g = global_state_new ();
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) owners = NULL;

  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("global state: %s"), local->message);
      return NULL;
    }
  owners = g_key_file_get_string_list (kf, "global", "owners", NULL, NULL);
  for (char **o = owners; o && *o; o++)
    if (vsm_bdi_is_valid (*o) && !vsm_global_state_has_owner (g, *o))
      g_ptr_array_add (g->owners, g_strdup (*o));
  if (!load_knobs (kf, "global", NULL, g->knobs, error))
    return NULL;
  return g_steal_pointer (&g);
}

VsmGlobalState *
vsm_global_state_load (GError **error)
{
  g_autofree char *path = vsm_rundir_path (VSM_RUN_FILE_GLOBAL, NULL);
  g_autofree char *data = NULL;
  g_autoptr (GError) local = NULL;
  VsmGlobalState *g;
  gsize len = 0;

  if (!vsm_state_read_file (path, &data, &len, &local))
    {
      if (g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        return global_state_new ();
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  g = vsm_global_state_from_data (data, len, error);
  if (g == NULL)
    g_prefix_error (error, "%s: ", path);
  return g;
}

gboolean
vsm_global_state_save (const VsmGlobalState *g, GError **error)
{
  g_autoptr (GKeyFile) kf = NULL;
  g_autofree char *data = NULL;
  g_autofree char *name = vsm_rundir_name (VSM_RUN_FILE_GLOBAL, NULL);
  gsize len = 0;

  if (g->owners->len == 0)
    return vsm_state_remove_file (name, error);

  kf = g_key_file_new ();
  g_key_file_set_string_list (kf, "global", "owners", (const char *const *)g->owners->pdata,
                              g->owners->len);
  save_knobs (kf, "global", g->knobs);
  data = g_key_file_to_data (kf, &len, NULL);
  return write_atomic (name, data, len, error);
}

gboolean
vsm_global_state_has_owner (const VsmGlobalState *g, const char *bdi)
{
  return g_ptr_array_find_with_equal_func (g->owners, bdi, g_str_equal, NULL);
}

void
vsm_global_state_add_owner (VsmGlobalState *g, const char *bdi)
{
  if (!vsm_global_state_has_owner (g, bdi))
    g_ptr_array_add (g->owners, g_strdup (bdi));
}

void
vsm_global_state_drop_owner (VsmGlobalState *g, const char *bdi)
{
  guint i;

  if (g_ptr_array_find_with_equal_func (g->owners, bdi, g_str_equal, &i))
    g_ptr_array_remove_index (g->owners, i);
}
