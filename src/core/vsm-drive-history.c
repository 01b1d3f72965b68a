/* vsm-drive-history.c - what vfat-smart learned about each drive
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-drive-history.h"
#include "vsm-apply.h"
#include "vsm-paths.h"
#include "vsm-policy.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HISTORY_FILE "drives.history"
#define GROUP_PREFIX "drive "
#define IDENTITY_MAX 200

void
vsm_drive_history_free (VsmDriveHistory *h)
{
  if (h == NULL)
    return;
  g_free (h->identity);
  g_array_unref (h->mounts);
  g_free (h);
}

static VsmDriveHistory *
drive_history_new (const char *identity)
{
  VsmDriveHistory *h = g_new0 (VsmDriveHistory, 1);
  h->identity = g_strdup (identity);
  h->mounts = g_array_new (FALSE, TRUE, sizeof (VsmDriveMount));
  return h;
}

static void
append_escaped (GString *out, const char *text)
{
  for (const char *c = text; *c && out->len < IDENTITY_MAX; c++)
    if (g_ascii_isalnum (*c) || *c == '.' || *c == '_' || *c == '-')
      g_string_append_c (out, *c);
    else
      g_string_append_printf (out, "%%%02X", (guchar)*c);
  g_string_truncate (out, MIN (out->len, IDENTITY_MAX));
}

char *
vsm_drive_identity (const VsmDevice *d)
{
  GString *out;

  g_return_val_if_fail (d != NULL, NULL);
  if (d->usb && d->usb->vendor_id && d->usb->product_id && d->usb->serial && *d->usb->serial)
    {
      out = g_string_new ("usb:");
      append_escaped (out, d->usb->vendor_id);
      g_string_append_c (out, ':');
      append_escaped (out, d->usb->product_id);
      g_string_append_c (out, ':');
      append_escaped (out, d->usb->serial);
    }
  else if ((d->fs_uuid && *d->fs_uuid) || (d->disk_fs_uuid && *d->disk_fs_uuid))
    {
      out = g_string_new ("uuid:");
      append_escaped (out, d->fs_uuid && *d->fs_uuid ? d->fs_uuid : d->disk_fs_uuid);
    }
  else
    return NULL;
  return g_string_free (out, FALSE);
}

gboolean
vsm_drive_identity_is_valid (const char *identity)
{
  if (identity == NULL || strlen (identity) > IDENTITY_MAX + 16 ||
      (!g_str_has_prefix (identity, "usb:") && !g_str_has_prefix (identity, "uuid:")))
    return FALSE;
  for (const char *c = identity; *c; c++)
    if (!g_ascii_isalnum (*c) && strchr ("._-:%", *c) == NULL)
      return FALSE;
  return TRUE;
}

/* "AT:BANDWIDTH:CAP:BYTES:SECONDS" */
static gboolean
mount_parse (const char *text, VsmDriveMount *m)
{
  g_auto (GStrv) f = g_strsplit (text, ":", -1);
  char *end = NULL;

  if (g_strv_length (f) != 5 || !vsm_parse_i64 (f[0], &m->at_usec) ||
      !vsm_parse_u64 (f[1], &m->bandwidth) || !vsm_parse_u64 (f[2], &m->cap_bytes) ||
      !vsm_parse_u64 (f[3], &m->bytes_written))
    return FALSE;
  m->seconds_to_safe = g_ascii_strtod (f[4], &end);
  if (end == f[4] || *end != '\0' || !isfinite (m->seconds_to_safe) || m->seconds_to_safe > 1e7 ||
      m->bandwidth > VSM_POLICY_MAX_BANDWIDTH)
    return FALSE;
  if (m->seconds_to_safe < 0)
    m->seconds_to_safe = -1;
  return TRUE;
}

static char *
mount_format (const VsmDriveMount *m)
{
  char sts[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (sts, sizeof sts, "%.3f", m->seconds_to_safe);
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
                          ":%" G_GUINT64_FORMAT ":%s",
                          m->at_usec, m->bandwidth, m->cap_bytes, m->bytes_written, sts);
}

/* One group; NULL when anything in it is wrong. */
static VsmDriveHistory *
group_parse (GKeyFile *kf, const char *group)
{
  const char *identity = group + strlen (GROUP_PREFIX);
  g_autoptr (VsmDriveHistory) h = NULL;
  g_autofree char *bw = g_key_file_get_value (kf, group, "bandwidth", NULL);
  g_autofree char *updated = g_key_file_get_value (kf, group, "updated", NULL);
  g_auto (GStrv) mounts = g_key_file_get_string_list (kf, group, "mounts", NULL, NULL);
  guint n, from;

  if (!vsm_drive_identity_is_valid (identity))
    return NULL;
  h = drive_history_new (identity);
  if (bw == NULL || !vsm_parse_u64 (bw, &h->bandwidth) || h->bandwidth > VSM_POLICY_MAX_BANDWIDTH ||
      updated == NULL || !vsm_parse_i64 (updated, &h->updated_usec))
    return NULL;
  n = mounts ? g_strv_length (mounts) : 0;
  from = n > VSM_DRIVE_HISTORY_MAX_MOUNTS ? n - VSM_DRIVE_HISTORY_MAX_MOUNTS : 0;
  for (guint i = from; i < n; i++)
    {
      VsmDriveMount m = { 0 };
      if (!mount_parse (mounts[i], &m))
        return NULL;
      g_array_append_val (h->mounts, m);
    }
  return g_steal_pointer (&h);
}

GPtrArray *
vsm_drive_history_parse (const char *data, gsize len, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_auto (GStrv) groups = NULL;
  GPtrArray *out;

  if (len > VSM_DRIVE_HISTORY_MAX_BYTES)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("drive history larger than %u bytes"),
                   VSM_DRIVE_HISTORY_MAX_BYTES);
      return NULL;
    }
  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, error))
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_drive_history_free);
  groups = g_key_file_get_groups (kf, NULL);
  for (char **g = groups; *g && out->len < VSM_DRIVE_HISTORY_MAX_DRIVES; g++)
    {
      VsmDriveHistory *h = g_str_has_prefix (*g, GROUP_PREFIX) ? group_parse (kf, *g) : NULL;
      if (h != NULL)
        g_ptr_array_add (out, h);
    }
  return out;
}

char *
vsm_drive_history_serialize (GPtrArray *drives, gsize *len)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();

  for (guint i = 0; i < drives->len; i++)
    {
      VsmDriveHistory *h = g_ptr_array_index (drives, i);
      g_autofree char *group = g_strconcat (GROUP_PREFIX, h->identity, NULL);
      g_autoptr (GPtrArray) mounts = g_ptr_array_new_with_free_func (g_free);

      g_key_file_set_uint64 (kf, group, "bandwidth", h->bandwidth);
      g_key_file_set_int64 (kf, group, "updated", h->updated_usec);
      for (guint j = 0; j < h->mounts->len; j++)
        g_ptr_array_add (mounts, mount_format (&g_array_index (h->mounts, VsmDriveMount, j)));
      g_ptr_array_add (mounts, NULL);
      g_key_file_set_string_list (kf, group, "mounts", (const char *const *)mounts->pdata,
                                  mounts->len - 1);
    }
  return g_key_file_to_data (kf, len, NULL);
}

static char *
history_path (void)
{
  return vsm_path (VSM_ROOT_LIB, HISTORY_FILE, NULL);
}

/* Every drive in the file; an absent file is an empty history. */
static GPtrArray *
load_all (GError **error)
{
  g_autofree char *path = history_path ();
  g_autofree char *data = NULL;
  g_autoptr (GError) local = NULL;
  gsize len = 0;

  if (!vsm_state_read_file (path, &data, &len, &local))
    {
      if (g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        return g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_drive_history_free);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  return vsm_drive_history_parse (data, len, error);
}

static gboolean
ensure_lib_dir (GError **error)
{
  const char *dir = vsm_root_dir (VSM_ROOT_LIB);
  struct stat st;

  if (g_mkdir_with_parents (dir, 0755) < 0 || lstat (dir, &st) < 0 || !S_ISDIR (st.st_mode) ||
      st.st_uid != geteuid () || (st.st_mode & 0022) != 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR,
                   errsv == EACCES || errsv == EPERM ? VSM_ERROR_PERMISSION : VSM_ERROR_STATE,
                   _ ("%s is not a directory owned by uid %u and writable only by it"), dir,
                   (guint)geteuid ());
      return FALSE;
    }
  return TRUE;
}

static gint
by_updated_desc (gconstpointer a, gconstpointer b)
{
  const VsmDriveHistory *x = *(VsmDriveHistory **)a, *y = *(VsmDriveHistory **)b;
  return x->updated_usec < y->updated_usec ? 1 : x->updated_usec > y->updated_usec ? -1 : 0;
}

/* bounded, then written atomically */
static gboolean
save_all (GPtrArray *drives, GError **error)
{
  g_autofree char *path = history_path ();
  g_autofree char *data = NULL;
  gsize len = 0;

  g_ptr_array_sort (drives, by_updated_desc);
  if (drives->len > VSM_DRIVE_HISTORY_MAX_DRIVES)
    g_ptr_array_set_size (drives, VSM_DRIVE_HISTORY_MAX_DRIVES);
  for (;;)
    {
      g_free (data);
      data = vsm_drive_history_serialize (drives, &len);
      if (len <= VSM_DRIVE_HISTORY_MAX_BYTES || drives->len == 0)
        break;
      g_ptr_array_set_size (drives, drives->len - 1);
    }
  if (!ensure_lib_dir (error))
    return FALSE;
  return g_file_set_contents_full (
    path, data, len, G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0644, error);
}

static VsmDriveHistory *
find_drive (GPtrArray *drives, const char *identity, guint *index)
{
  for (guint i = 0; i < drives->len; i++)
    {
      VsmDriveHistory *h = g_ptr_array_index (drives, i);
      if (g_str_equal (h->identity, identity))
        {
          if (index)
            *index = i;
          return h;
        }
    }
  return NULL;
}

VsmDriveHistory *
vsm_drive_history_load (const char *identity, GError **error)
{
  g_autoptr (GPtrArray) drives = NULL;
  guint i;

  g_return_val_if_fail (identity != NULL, NULL);
  drives = load_all (error);
  if (drives == NULL)
    return NULL;
  if (find_drive (drives, identity, &i) == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("no history for %s"), identity);
      return NULL;
    }
  return g_ptr_array_steal_index (drives, i);
}

/* read, change, write under the state lock (never called with it held) */
typedef gboolean (*ChangeFunc) (GPtrArray *drives, const char *identity, gconstpointer data,
                                GError **error);

static gboolean
change_history (const char *identity, ChangeFunc change, gconstpointer data, GError **error)
{
  g_autoptr (GPtrArray) drives = NULL;
  gboolean ok;
  int lock;

  if (!vsm_drive_identity_is_valid (identity))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("not a drive identity: %s"),
                   identity ? identity : "(null)");
      return FALSE;
    }
  lock = vsm_state_lock (VSM_LOCK_WAIT_MS, error);
  if (lock < 0)
    return FALSE;
  drives = load_all (error);
  ok = drives != NULL && change (drives, identity, data, error) && save_all (drives, error);
  vsm_state_unlock (lock);
  return ok;
}

static gboolean
add_mount (GPtrArray *drives, const char *identity, gconstpointer data, GError **error)
{
  const VsmDriveMount *m = data;
  VsmDriveHistory *h = find_drive (drives, identity, NULL);

  if (h == NULL)
    g_ptr_array_add (drives, h = drive_history_new (identity));
  g_array_append_val (h->mounts, *m);
  if (h->mounts->len > VSM_DRIVE_HISTORY_MAX_MOUNTS)
    g_array_remove_index (h->mounts, 0);
  if (m->bandwidth > 0)
    h->bandwidth = MIN (m->bandwidth, VSM_POLICY_MAX_BANDWIDTH);
  h->updated_usec = g_get_real_time ();
  return TRUE;
}

gboolean
vsm_drive_history_record (const char *identity, const VsmDriveMount *mount, GError **error)
{
  g_return_val_if_fail (mount != NULL, FALSE);
  return change_history (identity, add_mount, mount, error);
}

static gboolean
drop_drive (GPtrArray *drives, const char *identity, gconstpointer data, GError **error)
{
  guint i;

  if (find_drive (drives, identity, &i) == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("no history for %s"), identity);
      return FALSE;
    }
  g_ptr_array_remove_index (drives, i);
  return TRUE;
}

gboolean
vsm_drive_history_forget (const char *identity, GError **error)
{
  return change_history (identity, drop_drive, NULL, error);
}

char *
vsm_drive_history_describe (const VsmDriveHistory *h)
{
  double sum = 0;
  guint n = 0;
  g_autofree char *rate = NULL;

  for (guint i = 0; i < h->mounts->len; i++)
    {
      const VsmDriveMount *m = &g_array_index (h->mounts, VsmDriveMount, i);
      if (m->bandwidth > 0)
        {
          sum += (double)m->bandwidth;
          n++;
        }
    }
  if (n == 0)
    return g_strdup_printf ("%u mounts, nothing measured", h->mounts->len);
  rate = vsm_format_rate (sum / n);
  return g_strdup_printf ("last %u mounts: %s", n, rate);
}
