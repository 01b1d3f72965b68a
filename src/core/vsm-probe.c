/* vsm-probe.c - does the running fat module have the flush fix? Ask its behaviour.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-probe.h"
#include "vsm-rundir.h"
#include "vsm-paths.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <libmount.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define LONG_MAX_TEXT "9223372036854775807"
#define CACHE_GROUP "flush-fix"

const char *
vsm_flush_fix_variant_to_string (VsmFlushFixVariant v)
{
  return vsm_enum_to_nick (VSM_TYPE_FLUSH_FIX_VARIANT, v, "unknown");
}

static gboolean
variant_from_string (const char *s, VsmFlushFixVariant *v)
{
  return vsm_enum_from_nick (VSM_TYPE_FLUSH_FIX_VARIANT, s, (int *)v);
}

static gboolean
fix_from_string (const char *s, VsmFlushFix *f)
{
  return vsm_enum_from_nick (VSM_TYPE_FLUSH_FIX, s, (int *)f);
}

void
vsm_probe_result_free (VsmProbeResult *r)
{
  if (r == NULL)
    return;
  g_free (r->release);
  g_free (r->srcversion);
  g_free (r->evidence);
  g_free (r);
}

/* ---- the trace ---------------------------------------------------------------- */

/* "  task-1234  [001] .....  12.345678: event: fields": the pid after the last
 * '-' before the " [cpu]" column (comm may contain '-'). -1 if not found. */
static int
line_pid (const char *line)
{
  const char *bracket = strstr (line, " [");
  const char *dash = NULL;

  if (bracket == NULL)
    return -1;
  for (const char *p = line; p < bracket; p++)
    if (*p == '-')
      dash = p;
  if (dash == NULL)
    return -1;
  return (int)g_ascii_strtoll (dash + 1, NULL, 10);
}

/* the value of " KEY=" in line, or NULL */
static char *
field (const char *line, const char *key)
{
  g_autofree char *pat = g_strconcat (" ", key, "=", NULL);
  const char *p = strstr (line, pat);
  const char *end;

  if (p == NULL)
    return NULL;
  p += strlen (pat);
  end = p + strcspn (p, " \t\n");
  return g_strndup (p, end - p);
}

gboolean
vsm_probe_parse_trace (const char *trace, guint64 ino, int pid, VsmFlushFix *fix,
                       VsmFlushFixVariant *variant, char **evidence)
{
  g_auto (GStrv) lines = g_strsplit (trace ? trace : "", "\n", -1);
  g_autofree char *want_ino = g_strdup_printf ("%" G_GUINT64_FORMAT, ino);
  guint full = 0, meta = 0, other = 0, sync_none = 0, sync_all = 0;
  g_autofree char *other_to_write = NULL;

  *fix = VSM_FLUSH_FIX_UNKNOWN;
  *variant = VSM_FLUSH_FIX_VARIANT_UNKNOWN;
  for (char **l = lines; *l != NULL; l++)
    {
      gboolean single = strstr (*l, " writeback_single_inode_start: ") != NULL;
      gboolean write = strstr (*l, " writeback_write_inode_start: ") != NULL;
      g_autofree char *i = NULL;

      if (!single && !write)
        continue;
      if (pid > 0 && line_pid (*l) != pid)
        continue;
      i = field (*l, "ino");
      if (g_strcmp0 (i, want_ino) != 0)
        continue;
      if (single)
        {
          g_autofree char *tw = field (*l, "to_write");
          if (g_strcmp0 (tw, LONG_MAX_TEXT) == 0)
            full++;
          else if (g_strcmp0 (tw, "0") == 0)
            meta++;
          else
            {
              other++;
              if (other_to_write == NULL)
                other_to_write = g_strdup (tw ? tw : "?");
            }
        }
      else
        {
          g_autofree char *sm = field (*l, "sync_mode");
          if (g_strcmp0 (sm, "0") == 0)
            sync_none++;
          else if (g_strcmp0 (sm, "1") == 0)
            sync_all++;
        }
    }

  if (full > 0)
    {
      *fix = VSM_FLUSH_FIX_PRESENT;
      if (sync_all > 0)
        *variant = VSM_FLUSH_FIX_VARIANT_WAIT;
      else if (sync_none > 0)
        *variant = VSM_FLUSH_FIX_VARIANT_NOWAIT;
      if (evidence)
        *evidence = g_strdup_printf (
          "close() wrote the file through write_inode_now() (writeback_single_inode_start "
          "to_write=LONG_MAX x%u; write_inode sync_mode=0 x%u, sync_mode=1 x%u)",
          full, sync_none, sync_all);
      return TRUE;
    }
  if (meta > 0)
    {
      *fix = VSM_FLUSH_FIX_ABSENT;
      if (evidence)
        *evidence = g_strdup_printf (
          "close() wrote only the inode through writeback_single_inode() (to_write=0 x%u), "
          "the data outside it: the old writeback_inode()",
          meta);
      return TRUE;
    }
  if (evidence)
    *evidence = other > 0 ? g_strdup_printf ("only writeback of the file with to_write=%s: "
                                             "neither the old nor the fixed close()",
                                             other_to_write)
                          : g_strdup ("no writeback event for the probe file");
  return other > 0;
}

/* ---- a FAT12 image ---------------------------------------------------------------- */

GBytes *
vsm_probe_fat12_image (void)
{
  const gsize sectors = 2880, bps = 512;
  guint8 *img = g_malloc0 (sectors * bps);
  guint8 *b = img;

  /* boot sector, BPB of a 1.44 MB floppy */
  b[0] = 0xEB, b[1] = 0x3C, b[2] = 0x90;
  memcpy (b + 3, "VFSMPROB", 8);
  b[11] = bps & 0xff, b[12] = bps >> 8; /* bytes per sector */
  b[13] = 1;                            /* sectors per cluster */
  b[14] = 1, b[15] = 0;                 /* reserved sectors */
  b[16] = 2;                            /* FATs */
  b[17] = 224 & 0xff, b[18] = 224 >> 8; /* root entries */
  b[19] = sectors & 0xff, b[20] = sectors >> 8;
  b[21] = 0xF0;                                           /* media */
  b[22] = 9, b[23] = 0;                                   /* sectors per FAT */
  b[24] = 18, b[25] = 0;                                  /* sectors per track */
  b[26] = 2, b[27] = 0;                                   /* heads */
  b[38] = 0x29;                                           /* extended boot signature */
  b[39] = 0x56, b[40] = 0x53, b[41] = 0x4d, b[42] = 0x50; /* volume id */
  memcpy (b + 43, "VSMPROBE   ", 11);
  memcpy (b + 54, "FAT12   ", 8);
  b[510] = 0x55, b[511] = 0xAA;
  /* both FATs: media descriptor and end-of-chain for clusters 0 and 1 */
  for (int f = 0; f < 2; f++)
    {
      guint8 *fat = img + (1 + f * 9) * bps;
      fat[0] = 0xF0, fat[1] = 0xFF, fat[2] = 0xFF;
    }
  return g_bytes_new_take (img, sectors * bps);
}

/* ---- running it ---------------------------------------------------------------- */

static char *
find_tracefs (const char *root)
{
  g_autofree char *sys = vsm_path (VSM_ROOT_SYSFS, "kernel/tracing", NULL);
  g_autofree char *debug = vsm_path (VSM_ROOT_DEBUGFS, "tracing", NULL);
  const char *const candidates[] = { sys, debug, NULL };

  if (root != NULL)
    return g_strdup (root);
  for (const char *const *c = candidates; *c; c++)
    {
      g_autofree char *ev =
        g_build_filename (*c, "events", "writeback", "writeback_single_inode_start", NULL);
      if (g_file_test (ev, G_FILE_TEST_IS_DIR))
        return g_strdup (*c);
    }
  return NULL;
}

static gboolean
put (const char *dir, const char *rel, const char *value, GError **error)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  int fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  gssize n;

  if (fd < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  n = write (fd, value, strlen (value));
  if (n < 0)
    {
      int e = errno;
      close (fd);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (e), "%s: %s", path, g_strerror (e));
      return FALSE;
    }
  close (fd);
  return TRUE;
}

static gboolean
do_mount (const char *source, const char *target, GError **error)
{
  struct libmnt_context *cxt = mnt_new_context ();
  int rc;

  mnt_context_set_source (cxt, source);
  mnt_context_set_target (cxt, target);
  mnt_context_set_fstype (cxt, "vfat");
  mnt_context_set_options (cxt, "loop,flush,nodev,nosuid,noexec,noatime");
  mnt_context_disable_helpers (cxt, TRUE);
  mnt_context_disable_mtab (cxt, TRUE);
  rc = mnt_context_mount (cxt);
  if (rc != 0 || mnt_context_get_status (cxt) != 1)
    {
      char buf[256] = "";
      mnt_context_get_excode (cxt, rc, buf, sizeof buf);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _ ("cannot mount the probe image: %s"),
                   *buf ? buf : g_strerror (-rc));
      mnt_free_context (cxt);
      return FALSE;
    }
  mnt_free_context (cxt);
  return TRUE;
}

static void
do_umount (const char *target)
{
  struct libmnt_context *cxt = mnt_new_context ();

  mnt_context_set_target (cxt, target);
  mnt_context_disable_helpers (cxt, TRUE);
  mnt_context_disable_mtab (cxt, TRUE);
  if (mnt_context_umount (cxt) != 0)
    g_warning ("probe: cannot unmount %s", target);
  mnt_free_context (cxt);
}

static char *
module_attr (const char *name)
{
  g_autofree char *path = vsm_path (VSM_ROOT_SYSFS, "module/fat", name, NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

/* The GNU build-id of the loaded fat module (/sys/module/fat/notes/.note.gnu.build-id:
 * an ELF note, namesz descsz type name desc) as hex, or NULL. */
static char *
module_build_id (void)
{
  g_autofree char *path = vsm_path (VSM_ROOT_SYSFS, "module/fat/notes/.note.gnu.build-id", NULL);
  g_autofree char *data = NULL;
  gsize len = 0;
  guint32 namesz, descsz;
  gsize off;
  GString *hex;

  if (!g_file_get_contents (path, &data, &len, NULL) || len < 12)
    return NULL;
  memcpy (&namesz, data, 4);
  memcpy (&descsz, data + 4, 4);
  off = 12 + (((gsize)namesz + 3) & ~(gsize)3);
  if (descsz == 0 || descsz > 64 || off + descsz > len)
    return NULL;
  hex = g_string_new (NULL);
  for (gsize i = 0; i < descsz; i++)
    g_string_append_printf (hex, "%02x", (guint8)data[off + i]);
  return g_string_free (hex, FALSE);
}

void
vsm_probe_current_key (char **release, char **srcversion)
{
  struct utsname u;
  g_autofree char *sv = module_attr ("srcversion");
  g_autofree char *build_id = sv == NULL ? module_build_id () : NULL;
  g_autofree char *coresize = vsm_path (VSM_ROOT_SYSFS, "module/fat/coresize", NULL);
  g_autofree char *module = vsm_path (VSM_ROOT_SYSFS, "module/fat", NULL);

  *release = uname (&u) == 0 ? g_strdup (u.release) : g_strdup ("unknown");
  if (sv != NULL)
    *srcversion = g_strdup_printf ("srcversion=%s", sv);
  else if (build_id != NULL)
    /* A module without MODULE_VERSION has no srcversion (Debian does not set
     * CONFIG_MODULE_SRCVERSION_ALL); its build-id is a hash of its content. */
    *srcversion = g_strdup_printf ("build-id=%s", build_id);
  else if (g_file_test (coresize, G_FILE_TEST_EXISTS))
    {
      /* Without a build-id either: its taint flags, size and load address (the lab
       * saw different builds of the same size at the same address on 6.1: not
       * enough to tell them apart, a last resort). */
      g_autofree char *taint = module_attr ("taint");
      g_autofree char *size = module_attr ("coresize");
      g_autofree char *text = module_attr ("sections/.text");
      *srcversion = g_strdup_printf ("taint=%s,coresize=%s,text=%s", taint ? taint : "",
                                     size ? size : "", text ? text : "");
    }
  else if (g_file_test (module, G_FILE_TEST_IS_DIR))
    *srcversion = g_strdup ("builtin");
  else
    *srcversion = NULL;
}

typedef struct
{
  char *tracefs, *base, *img, *mnt, *file, *inst;
  int tid;
  gboolean mounted;
} Probe;

static gboolean
errno_error (GError **error, const char *what)
{
  int errsv = errno;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", what,
               g_strerror (errsv));
  return FALSE;
}

/* root, tracefs, a private directory with the image mounted with flush */
static gboolean
probe_prepare (Probe *p, const char *tracefs_root, const char *work_dir, GError **error)
{
  g_autoptr (GBytes) image = vsm_probe_fat12_image ();

  if (geteuid () != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   _ ("the flush-fix probe needs root (it loop-mounts a FAT image)"));
      return FALSE;
    }
  if ((p->tracefs = find_tracefs (tracefs_root)) == NULL)
    {
      g_set_error (
        error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
        _ ("no tracefs with the writeback events (mount tracefs on /sys/kernel/tracing)"));
      return FALSE;
    }
  if (work_dir == NULL)
    work_dir = vsm_rundir ();
  if (g_mkdir_with_parents (work_dir, 0700) != 0)
    return errno_error (error, work_dir);
  p->base = g_build_filename (work_dir, "probe-XXXXXX", NULL);
  if (g_mkdtemp (p->base) == NULL)
    {
      g_clear_pointer (&p->base, g_free);
      return errno_error (error, work_dir);
    }
  p->img = g_build_filename (p->base, "fat.img", NULL);
  p->mnt = g_build_filename (p->base, "mnt", NULL);
  p->file = g_build_filename (p->mnt, "probe.bin", NULL);
  /* close() runs in this thread: its events carry this thread's id */
  p->tid = (int)syscall (SYS_gettid);
  p->inst = g_strdup_printf ("%s/instances/vfat-smart-probe-%d", p->tracefs, p->tid);
  if (!g_file_set_contents (p->img, g_bytes_get_data (image, NULL), g_bytes_get_size (image),
                            error))
    return FALSE;
  if (g_mkdir (p->mnt, 0700) != 0)
    return errno_error (error, p->mnt);
  return p->mounted = do_mount (p->img, p->mnt, error);
}

/* a private tracefs instance with the two writeback events of this thread */
static gboolean
probe_trace_on (Probe *p, GError **error)
{
  g_autofree char *pidtext = g_strdup_printf ("%d", p->tid);

  if (g_mkdir (p->inst, 0700) != 0 && errno != EEXIST)
    return errno_error (error, p->inst);
  return put (p->inst, "tracing_on", "0", error) && put (p->inst, "trace", "", error) &&
         put (p->inst, "set_event_pid", pidtext, error) &&
         put (p->inst, "events/writeback/writeback_single_inode_start/enable", "1", error) &&
         put (p->inst, "events/writeback/writeback_write_inode_start/enable", "1", error) &&
         put (p->inst, "tracing_on", "1", error);
}

/* the step that is probed: write one file and close it */
static gboolean
probe_write_close (Probe *p, struct stat *st, GError **error)
{
  guint8 data[65536];
  int fd;

  memset (data, 0x5a, sizeof data);
  fd = open (p->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || write (fd, data, sizeof data) != (gssize)sizeof data || fstat (fd, st) != 0)
    {
      errno_error (error, p->file);
      if (fd >= 0)
        close (fd);
      return FALSE;
    }
  close (fd); /* fat_file_release() -> fat_flush_inodes() */
  put (p->inst, "tracing_on", "0", NULL);
  return TRUE;
}

static VsmProbeResult *
probe_read_result (Probe *p, const struct stat *st, GError **error)
{
  g_autofree char *tpath = g_build_filename (p->inst, "trace", NULL);
  g_autofree char *trace = NULL;
  g_autoptr (VsmProbeResult) r = NULL;

  if (!g_file_get_contents (tpath, &trace, NULL, error))
    return NULL;
  r = g_new0 (VsmProbeResult, 1);
  vsm_probe_current_key (&r->release, &r->srcversion);
  r->probed_at = g_get_real_time ();
  if (!vsm_probe_parse_trace (trace, (guint64)st->st_ino, p->tid, &r->fix, &r->variant,
                              &r->evidence))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, _ ("the probe could not tell: %s"),
                   r->evidence);
      return NULL;
    }
  return g_steal_pointer (&r);
}

static void
probe_clean_up (Probe *p)
{
  if (p->inst && g_file_test (p->inst, G_FILE_TEST_IS_DIR))
    {
      put (p->inst, "tracing_on", "0", NULL);
      put (p->inst, "events/writeback/enable", "0", NULL);
      g_rmdir (p->inst);
    }
  if (p->mounted)
    {
      g_unlink (p->file);
      do_umount (p->mnt);
    }
  if (p->base)
    {
      g_rmdir (p->mnt);
      g_unlink (p->img);
      g_rmdir (p->base);
    }
  g_free (p->tracefs);
  g_free (p->base);
  g_free (p->img);
  g_free (p->mnt);
  g_free (p->file);
  g_free (p->inst);
}

VsmProbeResult *
vsm_probe_flush_fix_run (const char *tracefs_root, const char *work_dir, GError **error)
{
  Probe p = { 0 };
  struct stat st;
  VsmProbeResult *r = NULL;

  if (probe_prepare (&p, tracefs_root, work_dir, error) && probe_trace_on (&p, error) &&
      probe_write_close (&p, &st, error))
    r = probe_read_result (&p, &st, error);
  probe_clean_up (&p);
  return r;
}

/* ---- cache and table ------------------------------------------------------------ */

VsmProbeResult *
vsm_probe_cache_load (const char *cache_dir, const char *release, const char *srcversion)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *cache_name = vsm_rundir_name (VSM_RUN_FILE_PROBE_CACHE, NULL);
  g_autofree char *path = cache_dir ? g_build_filename (cache_dir, cache_name, NULL)
                                    : vsm_rundir_path (VSM_RUN_FILE_PROBE_CACHE, NULL);
  g_autofree char *rel = NULL, *sv = NULL, *fix = NULL, *var = NULL, *data = NULL;
  VsmProbeResult *r;
  gsize len = 0;

  /* read as any record of the state directory: a regular file of ours */
  if (release == NULL || srcversion == NULL || !vsm_state_read_file (path, &data, &len, NULL) ||
      !g_key_file_load_from_data (kf, data, len, 0, NULL))
    return NULL;
  rel = g_key_file_get_string (kf, CACHE_GROUP, "release", NULL);
  sv = g_key_file_get_string (kf, CACHE_GROUP, "srcversion", NULL);
  if (g_strcmp0 (rel, release) != 0 || g_strcmp0 (sv, srcversion) != 0)
    return NULL;
  fix = g_key_file_get_string (kf, CACHE_GROUP, "fix", NULL);
  var = g_key_file_get_string (kf, CACHE_GROUP, "variant", NULL);
  r = g_new0 (VsmProbeResult, 1);
  if (!fix_from_string (fix, &r->fix) || !variant_from_string (var, &r->variant))
    {
      vsm_probe_result_free (r);
      return NULL;
    }
  r->release = g_steal_pointer (&rel);
  r->srcversion = g_steal_pointer (&sv);
  r->evidence = g_key_file_get_string (kf, CACHE_GROUP, "evidence", NULL);
  r->probed_at = g_key_file_get_int64 (kf, CACHE_GROUP, "probed-at", NULL);
  r->from_cache = TRUE;
  return r;
}

gboolean
vsm_probe_cache_store (const char *cache_dir, const VsmProbeResult *r, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *cache_name = vsm_rundir_name (VSM_RUN_FILE_PROBE_CACHE, NULL);
  g_autofree char *data = NULL, *path = NULL;
  gsize len = 0;

  g_key_file_set_string (kf, CACHE_GROUP, "release", r->release ? r->release : "");
  g_key_file_set_string (kf, CACHE_GROUP, "srcversion", r->srcversion ? r->srcversion : "");
  g_key_file_set_string (kf, CACHE_GROUP, "fix", vsm_flush_fix_to_string (r->fix));
  g_key_file_set_string (kf, CACHE_GROUP, "variant", vsm_flush_fix_variant_to_string (r->variant));
  g_key_file_set_string (kf, CACHE_GROUP, "evidence", r->evidence ? r->evidence : "");
  g_key_file_set_int64 (kf, CACHE_GROUP, "probed-at", r->probed_at);
  data = g_key_file_to_data (kf, &len, NULL);
  /* as every file of the state directory (its checks, atomic, 0644 under
   * any umask): vsm_probe_cache_load reads it as one */
  if (cache_dir == NULL)
    return vsm_state_write_file (cache_name, data, len, error);
  if (g_mkdir_with_parents (cache_dir, 0755) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", cache_dir,
                   g_strerror (errsv));
      return FALSE;
    }
  path = g_build_filename (cache_dir, cache_name, NULL);
  return g_file_set_contents_full (path, data, len, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

VsmProbeResult *
vsm_probe_find_answer (const char *tracefs_root, const char *cache_dir, gboolean force,
                       gboolean cached_only, char **store_note, GError **error)
{
  g_autofree char *release = NULL, *srcversion = NULL;
  VsmProbeResult *r = NULL;

  vsm_probe_current_key (&release, &srcversion);
  if (!force)
    r = vsm_probe_cache_load (cache_dir, release, srcversion);
  if (r == NULL && !cached_only)
    {
      g_autoptr (GError) store = NULL;
      r = vsm_probe_flush_fix_run (tracefs_root, cache_dir, error);
      if (r != NULL && !vsm_probe_cache_store (cache_dir, r, &store) && store_note != NULL)
        *store_note = g_strdup (store->message);
    }
  if (r == NULL && error != NULL && *error == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _ ("no cached probe result for this kernel and fat module"));
  return r;
}
