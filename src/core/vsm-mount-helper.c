/* vsm-mount-helper.c - the sequence behind mount.vfat-smart and
 * umount.vfat-smart, in mount(8)'s terms
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-manager.h"
#include "vsm-util.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <libmount.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

G_GNUC_PRINTF (2, 3)
static void
note (GPtrArray *notes, const char *format, ...)
{
  va_list args;

  if (notes == NULL)
    return;
  va_start (args, format);
  g_ptr_array_add (notes, g_strdup_vprintf (format, args));
  va_end (args);
}

G_GNUC_PRINTF (2, 3)
static int
fail (char **message, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  *message = g_strdup_vprintf (format, args);
  va_end (args);
  return MNT_EX_FAIL;
}

static int
error_to_excode (const GError *error)
{
  if (error->domain == VSM_ERROR &&
      (error->code == VSM_ERROR_INVALID_ARGUMENT || error->code == VSM_ERROR_PERMISSION))
    return MNT_EX_USAGE;
  return MNT_EX_FAIL;
}

/* the filesystem as it is on the device now (udev may not have seen it yet) */
static char *
probe_fs_type (const char *devnode, char **message)
{
  blkid_probe pr = blkid_new_probe_from_filename (devnode);
  const char *type = NULL;
  char *out = NULL;

  if (pr == NULL)
    {
      *message = g_strdup_printf (_ ("cannot read %s: %s"), devnode, g_strerror (errno));
      return NULL;
    }
  blkid_probe_enable_superblocks (pr, TRUE);
  blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_TYPE);
  if (blkid_do_safeprobe (pr) == 0 && blkid_probe_lookup_value (pr, "TYPE", &type, NULL) == 0)
    out = g_strdup (type);
  blkid_free_probe (pr);
  if (out == NULL)
    *message = g_strdup_printf (_ ("%s: no filesystem found"), devnode);
  return out;
}

/* x-vfat-smart.class=CLASS: the class, for fstab lines */
static gboolean
forced_class (const char *options, VsmClass *klass, char **message)
{
  char *value = NULL;
  size_t len = 0;
  g_autofree char *name = NULL;

  if (options == NULL || mnt_optstr_get_option (options, "x-vfat-smart.class", &value, &len) != 0)
    return TRUE;
  name = g_strndup (value, len);
  if (!vsm_class_from_string (name, klass))
    {
      *message = g_strdup_printf (_ ("x-vfat-smart.class: unknown class '%s'"), name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
has_option (const char *options, const char *name)
{
  return options != NULL && mnt_optstr_get_option (options, name, NULL, NULL) == 0;
}

int
vsm_mount_run (const VsmMountRequest *req, GPtrArray *notes, char **message)
{
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) state = NULL;
  g_autoptr (VsmState) before = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *fs_type = NULL;
  g_autofree char *options = NULL;
  g_autofree char *user = NULL;
  struct libmnt_context *cxt = NULL;
  VsmClass klass = VSM_CLASS_UNKNOWN;
  gboolean force_class = FALSE;
  int rc, excode;
  char buf[BUFSIZ] = { 0 };

  *message = NULL;
  if (geteuid () != 0)
    {
      *message = g_strdup (_ ("only root can mount with vfat-smart"));
      return MNT_EX_USAGE;
    }
  if (req->spec == NULL || req->target == NULL)
    {
      *message = g_strdup (_ ("a device and a mount point are needed"));
      return MNT_EX_USAGE;
    }
  if (!g_file_test (req->target, G_FILE_TEST_IS_DIR))
    return fail (message, _ ("mount point %s does not exist or is not a directory"), req->target);

  if (!forced_class (req->options, &klass, message))
    return MNT_EX_USAGE;
  force_class = has_option (req->options, "x-vfat-smart.class");

  client = g_udev_client_new (NULL);
  a = vsm_assess (client, req->spec, NULL, &error);
  if (a == NULL)
    {
      *message = g_strdup (error->message);
      return error_to_excode (error);
    }
  if (force_class)
    vsm_assessment_set_class (a, klass);

  fs_type = probe_fs_type (a->device->devnode, message);
  if (fs_type == NULL)
    return MNT_EX_FAIL;
  if (!g_str_equal (fs_type, "vfat") && !g_str_equal (fs_type, "exfat"))
    return fail (message, _ ("%s holds %s, not vfat or exfat: vfat-smart does not mount it"),
                 a->device->devnode, fs_type);
  if (g_strcmp0 (a->device->fs_type, fs_type) != 0)
    {
      /* udev had not seen the filesystem: plan for what is there */
      g_free (a->device->fs_type);
      a->device->fs_type = g_strdup (fs_type);
      vsm_assessment_set_class (a, a->classification->klass);
    }

  /* The person's flush or sync decides the mode; the plan follows. */
  if (has_option (req->options, "sync") || has_option (req->options, "flush"))
    {
      VsmFlushMode mode =
        has_option (req->options, "sync") ? VSM_FLUSH_MODE_SYNC : VSM_FLUSH_MODE_KERNEL_FLUSH;
      note (notes, _ ("-o %s given: flush mode %s, no dirty cap"),
            mode == VSM_FLUSH_MODE_SYNC ? "sync" : "flush", vsm_flush_mode_to_string (mode));
      a->policy->class_mode[a->classification->klass] = mode;
      vsm_assessment_set_class (a, a->classification->klass);
    }

  note (notes, _ ("%s: class %s (confidence %u%%), flush mode %s"), a->device->devnode,
        vsm_class_to_string (a->classification->klass), a->classification->confidence,
        vsm_flush_mode_to_string (a->plan->flush_mode));
  for (guint i = 0; i < a->plan->reasons->len; i++)
    note (notes, "  %s", (char *)g_ptr_array_index (a->plan->reasons, i));

  user = g_strdup (req->options ? req->options : "");
  if (req->read_only)
    mnt_optstr_append_option (&user, "ro", NULL);
  if (req->read_write)
    mnt_optstr_append_option (&user, "rw", NULL);
  options = vsm_options_merge (a->plan->mount_options, user);
  /* helper= sends root's umount(8) to umount.vfat-smart, uhelper= a user's */
  mnt_optstr_append_option (&options, "helper=" VSM_UHELPER, NULL);
  mnt_optstr_append_option (&options, "uhelper=" VSM_UHELPER, NULL);
  if (user && *user)
    note (notes, _ ("options given win over the plan: %s"), user);
  note (notes, _ ("mount -t %s -o %s %s %s"), fs_type, options, a->device->devnode, req->target);

  before = vsm_state_load (a->device->bdi, NULL);
  /* managed mounts are recorded even without knobs (6.1): status shows
   * them and why the cap is not there */
  if (!req->fake && a->plan->managed)
    {
      state = vsm_knobs_apply (a->device, a->plan, "mount", &error);
      if (state == NULL)
        {
          *message = g_strdup (error->message);
          return MNT_EX_FAIL;
        }
      for (guint i = 0; i < state->knobs->len; i++)
        {
          VsmKnobRecord *r = g_ptr_array_index (state->knobs, i);
          note (notes, _ ("knob %s: %s -> %s"), r->path, r->original ? r->original : "?",
                r->readback);
        }
    }
  else if (!a->plan->knobs->len)
    note (notes, _ ("no knobs to set"));

  cxt = mnt_new_context ();
  if (cxt == NULL)
    return fail (message, _ ("out of memory"));
  mnt_context_disable_helpers (cxt, TRUE); /* never /sbin/mount.vfat: we are the helper */
  mnt_context_set_optsmode (cxt, MNT_OMODE_IGNORE);
  mnt_context_set_source (cxt, a->device->devnode);
  mnt_context_set_target (cxt, req->target);
  mnt_context_set_fstype (cxt, fs_type);
  mnt_context_set_options (cxt, options);
  mnt_context_enable_fake (cxt, req->fake);
  mnt_context_disable_mtab (cxt, req->nomtab);
  mnt_context_enable_sloppy (cxt, req->sloppy);
  if (req->namespace && mnt_context_set_target_ns (cxt, req->namespace) != 0)
    {
      mnt_free_context (cxt);
      if (state)
        vsm_knobs_restore (a->device->bdi, NULL, NULL);
      return fail (message, _ ("cannot use namespace %s"), req->namespace);
    }

  rc = mnt_context_mount (cxt);
  excode = mnt_context_get_excode (cxt, rc, buf, sizeof buf);
  mnt_free_context (cxt);

  if (excode != MNT_EX_SUCCESS)
    {
      /* nothing may stay changed: undo the knobs unless they were there before */
      if (state != NULL && before == NULL)
        {
          g_autoptr (GError) rerr = NULL;
          if (!vsm_knobs_restore (a->device->bdi, NULL, &rerr))
            note (notes, _ ("restoring the knobs failed too: %s"), rerr->message);
          else
            note (notes, _ ("knobs put back as they were"));
        }
      *message = g_strdup (*buf ? buf : _ ("mount failed"));
      return excode;
    }

  syslog (LOG_INFO, "mounted %s on %s as %s, %s (class %s)", a->device->devnode, req->target,
          fs_type, vsm_flush_mode_to_string (a->plan->flush_mode),
          vsm_class_to_string (a->classification->klass));
  return MNT_EX_SUCCESS;
}

static char *
history_path (void)
{
  return g_build_filename (vsm_state_dir (), "unmounts.log", NULL);
}

static void
record_unmount (const char *bdi, const char *target, double seconds, guint64 dirty,
                gboolean per_device)
{
  g_autofree char *path = history_path ();
  g_autofree char *line = NULL;
  g_autofree char *escaped = g_strescape (target, NULL);
  int fd;

  line = g_strdup_printf (
    "{\"bdi\": \"%s\", \"target\": \"%s\", \"at_usec\": %" G_GINT64_FORMAT
    ", \"seconds\": %.3f, \"dirty_bytes\": %" G_GUINT64_FORMAT ", \"dirty_scope\": \"%s\"}\n",
    bdi, escaped, g_get_real_time (), seconds, dirty, per_device ? "device" : "system");
  fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return;
  if (write (fd, line, strlen (line)) < 0)
    g_debug ("cannot append to %s", path);
  close (fd);
}

GPtrArray *
vsm_unmount_history (const char *bdi, guint max)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = history_path ();
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autofree char *needle = g_strdup_printf ("{\"bdi\": \"%s\",", bdi);

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return out;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (g_str_has_prefix (*l, needle))
      g_ptr_array_add (out, g_strdup (*l));
  while (out->len > max)
    g_ptr_array_remove_index (out, 0);
  return out;
}

static gboolean
disk_still_mounted (GUdevClient *client, const char *disk_syspath)
{
  g_autoptr (GPtrArray) mounts = vsm_mounts_for_disk (client, disk_syspath);
  return mounts->len > 0;
}

int
vsm_umount_run (const VsmUmountRequest *req, GPtrArray *notes, char **message)
{
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  g_autoptr (VsmDevice) d = NULL;
  g_autoptr (VsmState) state = NULL;
  g_autoptr (GError) error = NULL;
  struct libmnt_context *cxt;
  VsmDirtyInfo dirty;
  gint64 t0, t1;
  double seconds;
  int rc, excode;
  char buf[BUFSIZ] = { 0 };

  *message = NULL;
  if (geteuid () != 0)
    {
      *message = g_strdup (_ ("only root can unmount with vfat-smart"));
      return MNT_EX_USAGE;
    }

  /* the device behind the mount point, before it is gone */
  d = vsm_device_new_from_spec (client, req->target, &error);
  if (d == NULL)
    note (notes, _ ("cannot tell the device of %s (%s); unmounting anyway"), req->target,
          error->message);
  else
    vsm_dirty_info_read (d->bdi, &dirty);

  cxt = mnt_new_context ();
  if (cxt == NULL)
    return fail (message, _ ("out of memory"));
  mnt_context_disable_helpers (cxt, TRUE);
  mnt_context_set_target (cxt, req->target);
  mnt_context_disable_mtab (cxt, req->nomtab);
  mnt_context_enable_lazy (cxt, req->lazy);
  mnt_context_enable_force (cxt, req->force);
  mnt_context_enable_rdonly_umount (cxt, req->read_only);
  if (req->namespace && mnt_context_set_target_ns (cxt, req->namespace) != 0)
    {
      mnt_free_context (cxt);
      return fail (message, _ ("cannot use namespace %s"), req->namespace);
    }

  t0 = g_get_monotonic_time ();
  rc = mnt_context_umount (cxt);
  t1 = g_get_monotonic_time ();
  excode = mnt_context_get_excode (cxt, rc, buf, sizeof buf);
  mnt_free_context (cxt);
  if (excode != MNT_EX_SUCCESS)
    {
      *message = g_strdup (*buf ? buf : _ ("unmount failed"));
      return excode;
    }

  seconds = (double)(t1 - t0) / 1e6;
  if (d == NULL)
    return MNT_EX_SUCCESS;

  {
    guint64 at_risk = dirty.dirty_bytes + dirty.writeback_bytes;
    g_autofree char *size = vsm_format_bytes (at_risk);

    note (notes, _ ("unmounted %s in %.2f s; %s%s was still dirty or in writeback"), req->target,
          seconds, dirty.per_device ? "" : _ ("at most "), size);
    syslog (LOG_INFO, "unmounted %s (%s) in %.2f s, %s dirty%s", req->target, d->devnode, seconds,
            size, dirty.per_device ? "" : " (system-wide figure)");
    record_unmount (d->bdi, req->target, seconds, at_risk, dirty.per_device);
  }

  state = vsm_state_load (d->bdi, NULL);
  if (state != NULL && g_strcmp0 (state->source, "mount") == 0 &&
      !disk_still_mounted (client, d->disk_syspath))
    {
      g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
      if (!vsm_knobs_restore (d->bdi, report, &error))
        {
          *message =
            g_strdup_printf (_ ("unmounted, but restoring the knobs failed: %s"), error->message);
          return MNT_EX_FAIL;
        }
      for (guint i = 0; i < report->len; i++)
        note (notes, "%s", (char *)g_ptr_array_index (report, i));
    }
  else if (state != NULL)
    note (notes, _ ("knobs kept: %s"),
          g_strcmp0 (state->source, "mount") != 0 ? _ ("they were not applied for a mount")
                                                  : _ ("another mount of the disk remains"));
  return MNT_EX_SUCCESS;
}

/* one short option with a value: "-o VALUE" or "-oVALUE" */
static const char *
option_value (int argc, char **argv, int *i, const char *arg, char **message)
{
  if (arg[2] != '\0')
    return arg + 2;
  if (*i + 1 >= argc)
    {
      *message = g_strdup_printf (_ ("option %s needs a value"), arg);
      return NULL;
    }
  return argv[++*i];
}

typedef struct
{
  const char *flags;  /* accepted flag letters */
  const char *valued; /* letters that take a value */
  guint n_paths;      /* positional arguments */
} HelperSyntax;

typedef void (*FlagFunc) (char flag, const char *value, gpointer data);

static gboolean
parse_helper_args (const HelperSyntax *syn, int argc, char **argv, const char **paths,
                   FlagFunc func, gpointer data, char **message)
{
  guint n = 0;
  gboolean only_paths = FALSE;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (only_paths || arg[0] != '-' || arg[1] == '\0')
        {
          if (n >= syn->n_paths)
            {
              *message = g_strdup_printf (_ ("unexpected argument '%s'"), arg);
              return FALSE;
            }
          paths[n++] = arg;
          continue;
        }
      if (g_str_equal (arg, "--"))
        {
          only_paths = TRUE;
          continue;
        }
      if (strchr (syn->valued, arg[1]) != NULL)
        {
          const char *value = option_value (argc, argv, &i, arg, message);
          if (value == NULL)
            return FALSE;
          func (arg[1], value, data);
          continue;
        }
      for (const char *f = arg + 1; *f; f++)
        {
          if (strchr (syn->flags, *f) == NULL)
            {
              *message = g_strdup_printf (_ ("unknown option -%c"), *f);
              return FALSE;
            }
          func (*f, NULL, data);
        }
    }
  if (n != syn->n_paths)
    {
      *message = g_strdup (syn->n_paths == 2 ? _ ("a device and a mount point are needed")
                                             : _ ("a mount point is needed"));
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  VsmMountRequest *req;
  gboolean *verbose;
  GString *options;
} MountParse;

static void
mount_flag (char flag, const char *value, gpointer data)
{
  MountParse *mp = data;

  switch (flag)
    {
    case 's':
      mp->req->sloppy = TRUE;
      break;
    case 'f':
      mp->req->fake = TRUE;
      break;
    case 'n':
      mp->req->nomtab = TRUE;
      break;
    case 'r':
      mp->req->read_only = TRUE;
      mp->req->read_write = FALSE;
      break;
    case 'w':
      mp->req->read_write = TRUE;
      mp->req->read_only = FALSE;
      break;
    case 'v':
      *mp->verbose = TRUE;
      break;
    case 'N':
      mp->req->namespace = value;
      break;
    case 't':
      break; /* vfat-smart or vfat-smart.SUBTYPE: the real type comes from the device */
    case 'o':
      if (mp->options->len > 0)
        g_string_append_c (mp->options, ',');
      g_string_append (mp->options, value);
      break;
    default:
      break;
    }
}

gboolean
vsm_mount_parse_args (int argc, char **argv, VsmMountRequest *req, gboolean *verbose,
                      char **options, char **message)
{
  static const HelperSyntax syn = { "sfnrvw", "oNt", 2 };
  const char *paths[2] = { NULL, NULL };
  MountParse mp = { req, verbose, g_string_new (NULL) };
  gboolean ok;

  memset (req, 0, sizeof *req);
  *verbose = FALSE;
  *message = NULL;
  ok = parse_helper_args (&syn, argc, argv, paths, mount_flag, &mp, message);
  req->spec = paths[0];
  req->target = paths[1];
  *options = g_string_free (mp.options, !ok || mp.options->len == 0);
  req->options = *options;
  return ok;
}

typedef struct
{
  VsmUmountRequest *req;
  gboolean *verbose;
} UmountParse;

static void
umount_flag (char flag, const char *value, gpointer data)
{
  UmountParse *up = data;

  switch (flag)
    {
    case 'f':
      up->req->force = TRUE;
      break;
    case 'l':
      up->req->lazy = TRUE;
      break;
    case 'n':
      up->req->nomtab = TRUE;
      break;
    case 'r':
      up->req->read_only = TRUE;
      break;
    case 'v':
      *up->verbose = TRUE;
      break;
    case 'N':
      up->req->namespace = value;
      break;
    default:
      break;
    }
}

gboolean
vsm_umount_parse_args (int argc, char **argv, VsmUmountRequest *req, gboolean *verbose,
                       char **message)
{
  static const HelperSyntax syn = { "flnrvi", "Nt", 1 };
  const char *paths[1] = { NULL };
  UmountParse up = { req, verbose };
  gboolean ok;

  memset (req, 0, sizeof *req);
  *verbose = FALSE;
  *message = NULL;
  ok = parse_helper_args (&syn, argc, argv, paths, umount_flag, &up, message);
  req->target = paths[0];
  return ok;
}
