/* vsm-drive-history.c - what vfat-smart learned about each drive
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* memrchr */
#include "config.h"

#include "vsm-drive-history.h"
#include "vsm-apply.h"
#include "vsm-paths.h"
#include "vsm-policy.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <errno.h>
#include <stdarg.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HISTORY_FILE "drives.history"
#define GROUP_PREFIX "drive "
#define IDENTITY_MAX 200
#define MAX_PROBLEMS 10

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

static void problem (GPtrArray *problems, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
problem (GPtrArray *problems, const char *format, ...)
{
  va_list ap;

  /* a binary file would give one per line: the first few tell enough */
  if (problems == NULL || problems->len > MAX_PROBLEMS)
    return;
  if (problems->len == MAX_PROBLEMS)
    {
      g_ptr_array_add (problems, g_strdup ("more skipped, not listed"));
      return;
    }
  va_start (ap, format);
  g_ptr_array_add (problems, g_strdup_vprintf (format, ap));
  va_end (ap);
}

/* the mounts that parse, newest VSM_DRIVE_HISTORY_MAX_MOUNTS */
static void
mounts_parse (VsmDriveHistory *h, char **mounts, GPtrArray *problems)
{
  for (char **t = mounts; t && *t; t++)
    {
      VsmDriveMount m = { 0 };

      if (**t == '\0')
        continue;
      if (!mount_parse (*t, &m))
        {
          problem (problems, "%s: mount entry %u skipped", h->identity, (guint)(t - mounts));
          continue;
        }
      g_array_append_val (h->mounts, m);
      if (h->mounts->len > VSM_DRIVE_HISTORY_MAX_MOUNTS)
        g_array_remove_index (h->mounts, 0);
    }
}

/* One group: NULL only for an identity that is not one; a bad value or
 * mount costs only itself */
static VsmDriveHistory *
group_parse (GKeyFile *kf, const char *group, GPtrArray *problems)
{
  const char *identity = group + strlen (GROUP_PREFIX);
  g_autoptr (VsmDriveHistory) h = NULL;
  g_autofree char *bw = g_key_file_get_value (kf, group, "bandwidth", NULL);
  g_autofree char *updated = g_key_file_get_value (kf, group, "updated", NULL);
  g_auto (GStrv) mounts = g_key_file_get_string_list (kf, group, "mounts", NULL, NULL);

  if (!vsm_drive_identity_is_valid (identity))
    {
      problem (problems, "group %.40s skipped: not a drive identity", group);
      return NULL;
    }
  h = drive_history_new (identity);
  if (bw == NULL || !vsm_parse_u64 (bw, &h->bandwidth) || h->bandwidth > VSM_POLICY_MAX_BANDWIDTH)
    {
      problem (problems, "%s: bandwidth skipped", identity);
      h->bandwidth = 0;
    }
  if (updated == NULL || !vsm_parse_i64 (updated, &h->updated_usec))
    {
      problem (problems, "%s: updated skipped", identity);
      h->updated_usec = 0;
    }
  mounts_parse (h, mounts, problems);
  /* the learned value lost: the newest mount that measured one */
  for (guint i = h->mounts->len; h->bandwidth == 0 && i > 0; i--)
    h->bandwidth = g_array_index (h->mounts, VsmDriveMount, i - 1).bandwidth;
  return g_steal_pointer (&h);
}

/* the white space GKeyFile skips at a line's start */
static gsize
leading_space (const char *line, gsize len)
{
  gsize i = 0;

  while (i < len && g_ascii_isspace (line[i]))
    i++;
  return i;
}

/* a header GKeyFile takes: "[NAME]", NAME not empty and without brackets
 * or control characters, white space before, spaces or tabs after */
static gboolean
is_group_line (const char *line, gsize len)
{
  gsize skip = leading_space (line, len);

  line += skip;
  len -= skip;
  /* GKeyFile drops a line's final '\r', then takes only ' ' and '\t' */
  if (len > 0 && line[len - 1] == '\r')
    len--;
  while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
    len--;
  if (len < 3 || line[0] != '[' || line[len - 1] != ']')
    return FALSE;
  for (gsize i = 1; i < len - 1; i++)
    if (line[i] == '[' || line[i] == ']' || g_ascii_iscntrl (line[i]))
      return FALSE;
  return TRUE;
}

/* "KEY=VALUE", KEY of letters, digits, '-', '_' and inner spaces, at
 * least one not a space (GKeyFile refuses an empty key: the whole file) */
static gboolean
is_key_line (const char *line, gsize len)
{
  const char *eq = memchr (line, '=', len);
  gboolean named = FALSE;

  if (eq == NULL)
    return FALSE;
  for (const char *c = line; c < eq; c++)
    if (!g_ascii_isalnum (*c) && *c != '-' && *c != '_' && *c != ' ')
      return FALSE;
    else
      named |= *c != ' ';
  for (const char *c = eq + 1; c < line + len; c++)
    if (g_ascii_iscntrl (*c) && *c != '\t' && *c != '\r')
      return FALSE;
  /* GKeyFile refuses the whole file for an "Encoding" other than UTF-8;
   * no key of ours has that name */
  {
    g_autofree char *key = g_strstrip (g_strndup (line, eq - line));
    if (g_str_equal (key, "Encoding"))
      return FALSE;
  }
  return named;
}

/* What GKeyFile may read of data: every line that is a key file's (valid
 * UTF-8, no NUL, a group header, a comment, a key of a group whose header
 * was sound); the rest is skipped, line by line. */
static GString *
sound_lines (const char *data, gsize len, GPtrArray *problems)
{
  GString *out = g_string_sized_new (len + 1);
  gboolean in_group = FALSE;
  guint n = 0;

  for (const char *line = data, *end = data + len; line < end; n++)
    {
      const char *nl = memchr (line, '\n', end - line);
      gsize l = (nl ? nl : end) - line;
      gboolean sane = memchr (line, '\0', l) == NULL && g_utf8_validate (line, l, NULL);
      gboolean blank = l == 0 || line[0] == '#' || strspn (line, " \t\r") == l;
      gboolean group = sane && is_group_line (line, l);

      if (group || (sane && blank) || (sane && in_group && is_key_line (line, l)))
        {
          g_string_append_len (out, line, l);
          g_string_append_c (out, '\n');
        }
      else
        problem (problems, "line %u skipped: not a key file's", n + 1);
      /* any header, sound or not, ends the group before it */
      if (group || (leading_space (line, l) < l && line[leading_space (line, l)] == '['))
        in_group = group;
      line += l + 1;
    }
  return out;
}

GPtrArray *
vsm_drive_history_parse (const char *data, gsize len, GPtrArray *problems, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_auto (GStrv) groups = NULL;
  g_autoptr (GString) text = NULL;
  GPtrArray *out;

  if (len > VSM_DRIVE_HISTORY_MAX_BYTES)
    {
      const char *nl = memrchr (data, '\n', VSM_DRIVE_HISTORY_MAX_BYTES);
      problem (problems, "larger than %u bytes: the rest skipped", VSM_DRIVE_HISTORY_MAX_BYTES);
      len = nl ? (gsize)(nl - data) + 1 : 0;
    }
  text = sound_lines (data, len, problems);
  if (!g_key_file_load_from_data (kf, text->str, text->len, G_KEY_FILE_NONE, error))
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_drive_history_free);
  groups = g_key_file_get_groups (kf, NULL);
  for (char **g = groups; *g && out->len < VSM_DRIVE_HISTORY_MAX_DRIVES; g++)
    {
      VsmDriveHistory *h =
        g_str_has_prefix (*g, GROUP_PREFIX) ? group_parse (kf, *g, problems) : NULL;
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

/* Every drive in the file; an absent file is an empty history. At most
 * the bound is read (vsm_state_read_file_max); what was skipped goes to
 * problems; untrusted (may be NULL): the file failed the state checks. */
static GPtrArray *
load_all (GPtrArray *problems, gboolean *untrusted, GError **error)
{
  g_autofree char *path = history_path ();
  g_autofree char *data = NULL;
  g_autoptr (GError) local = NULL;
  gsize len = 0;

  /* one byte more than the bound: the parser sees that there was more */
  if (!vsm_state_read_file_max (path, VSM_DRIVE_HISTORY_MAX_BYTES + 1, &data, &len, untrusted,
                                &local))
    {
      if (g_error_matches (local, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
        return g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_drive_history_free);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  return vsm_drive_history_parse (data, len, problems, error);
}

/* for a change: a file that cannot be trusted or parsed is replaced, what
 * could not be read of it is logged; one that could not be read now (EIO,
 * EMFILE, a short read) fails the change and stays, every drive in it */
static GPtrArray *
load_all_for_change (GError **error)
{
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) local = NULL;
  gboolean untrusted = FALSE;
  GPtrArray *drives = load_all (problems, &untrusted, &local);

  for (guint i = 0; i < problems->len; i++)
    g_message ("drive history: %s", (char *)g_ptr_array_index (problems, i));
  if (drives != NULL)
    return drives;
  if (!untrusted && !g_error_matches (local, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE))
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  g_message ("drive history not read (%s): it is written anew", local->message);
  return g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_drive_history_free);
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
  return vsm_write_file_atomic (path, data, len, 0644, TRUE, error);
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
  drives = load_all (NULL, NULL, error);
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
  drives = load_all_for_change (error);
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

/* the mounts that measured a bandwidth, and their mean */
static guint
measured_mounts (const VsmDriveHistory *h, double *mean)
{
  double sum = 0;
  guint n = 0;

  for (guint i = 0; i < h->mounts->len; i++)
    {
      const VsmDriveMount *m = &g_array_index (h->mounts, VsmDriveMount, i);
      if (m->bandwidth > 0)
        {
          sum += (double)m->bandwidth;
          n++;
        }
    }
  *mean = n > 0 ? sum / n : 0;
  return n;
}

/* translate: in the reader's language; else English, as logs and records
 * have it */
static char *
describe (const VsmDriveHistory *h, gboolean translate)
{
  double mean;
  guint n = measured_mounts (h, &mean);
  g_autofree char *rate = NULL;

  if (n == 0)
    return g_strdup_printf (translate ? g_dngettext (GETTEXT_PACKAGE, "%u mount, nothing measured",
                                                     "%u mounts, nothing measured", h->mounts->len)
                                      : "%u mounts, nothing measured",
                            h->mounts->len);
  rate = vsm_format_rate (mean);
  return g_strdup_printf (
    translate ? g_dngettext (GETTEXT_PACKAGE, "last %u mount: %s", "last %u mounts: %s", n)
              : "last %u mounts: %s",
    n, rate);
}

char *
vsm_drive_history_describe (const VsmDriveHistory *h)
{
  return describe (h, FALSE);
}

char *
vsm_drive_history_to_display (const VsmDriveHistory *h)
{
  return describe (h, TRUE);
}
