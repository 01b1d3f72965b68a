/* vsm-mount-helper.c - mount.vfat-smart and umount.vfat-smart in mount(8)'s
 * terms: the sequence, exit codes, arguments
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-mount-helper.h"
#include "vsm.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <libmount.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

G_DEFINE_QUARK (vsm - mount - error - quark, vsm_mount_error)

int
vsm_mount_error_to_exit_status (const GError *error)
{
  if (error == NULL)
    return MNT_EX_SUCCESS;
  if (error->domain == VSM_MOUNT_ERROR)
    return error->code;
  if (error->domain == VSM_ERROR &&
      (error->code == VSM_ERROR_INVALID_ARGUMENT || error->code == VSM_ERROR_PERMISSION))
    return MNT_EX_USAGE;
  return MNT_EX_FAIL;
}

static gboolean
need_root (gboolean mounting, GError **error)
{
  if (geteuid () == 0)
    return TRUE;
  g_set_error_literal (error, VSM_ERROR, VSM_ERROR_PERMISSION,
                       mounting ? _ ("only root can mount with vfat-smart")
                                : _ ("only root can unmount with vfat-smart"));
  return FALSE;
}

static gboolean
has_option (const char *options, const char *name)
{
  return options != NULL && mnt_optstr_get_option (options, name, NULL, NULL) == 0;
}

/* The class option: mount(8) hands no x-* option to a helper (libmount
 * drops them, like X-* and comment=, before it runs mount.TYPE), so on
 * mount(8)'s command line the class is given as vfat-smart.class=, which
 * it passes on; x-vfat-smart.class= is read from the options when the
 * helper is run by hand and from the mount's line in fstab. */
#define CLASS_OPTION "vfat-smart.class"
#define CLASS_OPTION_X "x-vfat-smart.class"

/* the class in an option string, either form; NULL when none */
static char *
class_in (const char *options)
{
  char *value = NULL;
  size_t len = 0;

  if (options == NULL)
    return NULL;
  if (mnt_optstr_get_option (options, CLASS_OPTION, &value, &len) == 0 ||
      mnt_optstr_get_option (options, CLASS_OPTION_X, &value, &len) == 0)
    return g_strndup (value ? value : "", len);
  return NULL;
}

/* The class on the fstab line of this mount (its target, and its source
 * when that resolves to spec): what mount(8) did not pass on. */
static char *
fstab_class (const char *spec, const char *target)
{
  struct libmnt_table *tb = mnt_new_table ();
  struct libmnt_cache *cache = mnt_new_cache ();
  struct libmnt_fs *fs = NULL;
  char *klass = NULL;

  if (tb == NULL || cache == NULL)
    goto out;
  mnt_table_set_cache (tb, cache);
  if (mnt_table_parse_fstab (tb, NULL) != 0)
    goto out;
  fs = mnt_table_find_target (tb, target, MNT_ITER_BACKWARD);
  if (fs != NULL &&
      g_str_has_prefix (mnt_fs_get_fstype (fs) ? mnt_fs_get_fstype (fs) : "", "vfat-smart") &&
      (spec == NULL || mnt_fs_match_source (fs, spec, cache)))
    klass = class_in (mnt_fs_get_user_options (fs));
out:
  mnt_unref_table (tb);
  mnt_unref_cache (cache);
  return klass;
}

/* What the person's -o (or the mount's fstab line) decides over the plan:
 * the class, flush or sync. Everything here is checked before any side
 * effect. */
static gboolean
person_overrides (const VsmMountRequest *req, VsmOverrides *o, GError **error)
{
  const char *options = req->options;
  g_autofree char *name = NULL;

  memset (o, 0, sizeof *o);
  for (const char *p = options; p && *p; p++)
    if (g_ascii_iscntrl (*p))
      {
        /* a newline would forge a line of utab; no option has one */
        g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                     _ ("-o: control character (0x%02x) in the options"), (guint)(guchar)*p);
        return FALSE;
      }
  /* libmount would stop at an open quote and drop the rest (ro, uid=) */
  if (!vsm_options_are_valid (options))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   _ ("-o %s: cannot be read (an open quote?)"), options);
      return FALSE;
    }
  name = class_in (options);
  if (name == NULL && req->target != NULL)
    name = fstab_class (req->spec, req->target);
  if (name != NULL)
    {
      o->set_class = TRUE;
      if (!vsm_class_from_string (name, &o->klass))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                       _ ("vfat-smart.class: unknown class '%s'"), name);
          return FALSE;
        }
    }
  if (has_option (options, "sync"))
    {
      o->flush_mode = VSM_FLUSH_MODE_SYNC;
      o->flush_mode_why = N_ ("-o sync given: flush mode sync, no dirty cap");
    }
  else if (has_option (options, "flush"))
    {
      o->flush_mode = VSM_FLUSH_MODE_KERNEL_FLUSH;
      o->flush_mode_why = N_ ("-o flush given: flush mode kernel-flush, no dirty cap");
    }
  return TRUE;
}

static gboolean
check_request (const VsmMountRequest *req, GError **error)
{
  if (!need_root (TRUE, error))
    return FALSE;
  if (req->spec == NULL || req->target == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                   _ ("a device and a mount point are needed"));
      return FALSE;
    }
  if (!g_file_test (req->target, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, VSM_MOUNT_ERROR, MNT_EX_FAIL,
                   _ ("mount point %s does not exist or is not a directory"), req->target);
      return FALSE;
    }
  return TRUE;
}

/* The person's -o as the kernel and utab get them (the engine merges them
 * over the plan's): vfat-smart.class= as the x- option, -r and -w. */
static char *
person_options (const VsmMountRequest *req)
{
  char *user = g_strdup (req->options ? req->options : "");
  char *value = NULL;
  size_t len = 0;

  /* not for the kernel: the class goes to utab as the x- option */
  if (mnt_optstr_get_option (user, CLASS_OPTION, &value, &len) == 0)
    {
      g_autofree char *klass = g_strndup (value ? value : "", len);
      mnt_optstr_remove_option (&user, CLASS_OPTION);
      if (mnt_optstr_get_option (user, CLASS_OPTION_X, NULL, NULL) != 0)
        mnt_optstr_append_option (&user, CLASS_OPTION_X, klass);
    }
  if (req->read_only)
    mnt_optstr_append_option (&user, "ro", NULL);
  if (req->read_write)
    mnt_optstr_append_option (&user, "rw", NULL);
  return user;
}

/* what utab keeps besides: a class from the mount's fstab line, as if
 * given, and the unmount helper */
static char *
utab_options (const VsmAssessment *a, const char *merged)
{
  char *options = g_strdup (merged);

  if (a->intent != NULL && a->intent->set_class &&
      mnt_optstr_get_option (options, CLASS_OPTION_X, NULL, NULL) != 0)
    mnt_optstr_append_option (&options, CLASS_OPTION_X, vsm_class_to_string (a->intent->klass));
  /* helper= sends root's umount(8) to umount.vfat-smart, uhelper= a user's */
  mnt_optstr_append_option (&options, "helper=" VSM_UHELPER, NULL);
  mnt_optstr_append_option (&options, "uhelper=" VSM_UHELPER, NULL);
  return options;
}

/* what a mount and an unmount context share: libmount's own helpers off, the
 * target, utab, the namespace */
static struct libmnt_context *
helper_context (const char *target, const char *namespace, gboolean nomtab, GError **error)
{
  struct libmnt_context *cxt = mnt_new_context ();

  if (cxt == NULL)
    {
      g_set_error_literal (error, VSM_MOUNT_ERROR, MNT_EX_SYSERR, _ ("out of memory"));
      return NULL;
    }
  mnt_context_disable_helpers (cxt, TRUE); /* never /sbin/mount.vfat: we are the helper */
  mnt_context_set_target (cxt, target);
  mnt_context_disable_mtab (cxt, nomtab);
  if (namespace && mnt_context_set_target_ns (cxt, namespace) != 0)
    {
      mnt_free_context (cxt);
      g_set_error (error, VSM_MOUNT_ERROR, MNT_EX_USAGE, _ ("cannot use namespace %s"), namespace);
      return NULL;
    }
  return cxt;
}

static struct libmnt_context *
mount_context (const VsmMountRequest *req, const char *devnode, const char *fs_type,
               const char *options, GError **error)
{
  struct libmnt_context *cxt = helper_context (req->target, req->namespace, req->nomtab, error);

  if (cxt == NULL)
    return NULL;
  mnt_context_set_optsmode (cxt, MNT_OMODE_IGNORE);
  mnt_context_set_source (cxt, devnode);
  mnt_context_set_fstype (cxt, fs_type);
  mnt_context_set_options (cxt, options);
  mnt_context_enable_fake (cxt, req->fake);
  mnt_context_enable_sloppy (cxt, req->sloppy);
  return cxt;
}

typedef struct
{
  const VsmMountRequest *req;
  const char *user; /* person_options () */
  GPtrArray *notes;
  gboolean noted;
} MountCall;

static void note_plan (GPtrArray *notes, const VsmAssessment *a);

/* the step between writing the knobs and recording them: the mount, with
 * the real type through libmount */
static gboolean
do_mount (const VsmAssessment *a, const char *merged, gpointer data, GError **error)
{
  MountCall *call = data;
  g_autofree char *options = utab_options (a, merged);
  struct libmnt_context *cxt;
  char buf[BUFSIZ] = { 0 };
  int rc, excode;

  note_plan (call->notes, a);
  call->noted = TRUE;
  if (*call->user)
    vsm_note (call->notes, _ ("options given win over the plan: %s"), call->user);
  vsm_note (call->notes, _ ("mount -t %s -o %s %s %s"), a->device->fs_type, options,
            a->device->devnode, call->req->target);
  cxt = mount_context (call->req, a->device->devnode, a->device->fs_type, options, error);
  if (cxt == NULL)
    return FALSE;
  rc = mnt_context_mount (cxt);
  excode = mnt_context_get_excode (cxt, rc, buf, sizeof buf);
  mnt_free_context (cxt);
  if (excode == MNT_EX_SUCCESS)
    return TRUE;
  g_set_error_literal (error, VSM_MOUNT_ERROR, excode, *buf ? buf : _ ("mount failed"));
  return FALSE;
}

static void
note_plan (GPtrArray *notes, const VsmAssessment *a)
{
  vsm_note (notes, _ ("%s: class %s (confidence %u%%), flush mode %s"), a->device->devnode,
            vsm_class_to_string (a->classification->klass), a->classification->confidence,
            vsm_flush_mode_to_string (a->plan->flush_mode));
  for (guint i = 0; i < a->plan->reasons->len; i++)
    {
      g_autofree char *why = vsm_reason_to_display (g_ptr_array_index (a->plan->reasons, i));
      vsm_note (notes, "  %s", why);
    }
}

static void
note_knobs (GPtrArray *notes, const VsmState *state)
{
  for (guint i = 0; state && i < state->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (state->knobs, i);
      vsm_note (notes, _ ("knob %s: %s -> %s"), r->path, r->original ? r->original : "?",
                r->readback);
    }
  if (state == NULL || state->knobs->len == 0)
    vsm_note (notes, _ ("no knobs to set"));
}

gboolean
vsm_mount_run (const VsmMountRequest *req, GPtrArray *notes, GError **error)
{
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) state = NULL;
  g_autofree char *user = NULL;
  MountCall call = { req, NULL, notes, FALSE };
  VsmOverrides o;
  VsmMountIntent m = { req->spec, &o, NULL, req->fake };
  gboolean ok;

  g_return_val_if_fail (req != NULL, FALSE);
  if (!check_request (req, error) || !person_overrides (req, &o, error))
    return FALSE;
  user = person_options (req);
  m.options = call.user = user;
  /* -f changes nothing; managed mounts are recorded even without knobs
   * (6.1): status shows them and why the cap is not there */
  ok = vsm_mount (&m, do_mount, &call, &a, &state, error);
  if (a != NULL && !call.noted)
    note_plan (notes, a);
  /* the engine's "not FAT" is mount(8)'s failure to mount (MNT_EX_FAIL) */
  if (!ok)
    return FALSE;
  note_knobs (notes, state);
  syslog (LOG_INFO, "mounted %s on %s as %s, %s (class %s)", a->device->devnode, req->target,
          a->device->fs_type, vsm_flush_mode_to_string (a->plan->flush_mode),
          vsm_class_to_string (a->classification->klass));
  return TRUE;
}

static struct libmnt_context *
umount_context (const VsmUmountRequest *req, GError **error)
{
  struct libmnt_context *cxt = helper_context (req->target, req->namespace, req->nomtab, error);

  if (cxt == NULL)
    return NULL;
  mnt_context_enable_lazy (cxt, req->lazy);
  mnt_context_enable_force (cxt, req->force);
  mnt_context_enable_rdonly_umount (cxt, req->read_only);
  return cxt;
}

/* how long it took and what was still unwritten, for status and syslog */
static void
record_unmount (GPtrArray *notes, const VsmUmountRequest *req, const VsmDevice *d,
                const VsmDirtyInfo *dirty, double seconds)
{
  VsmUnmountRecord r = { d->bdi,
                         (char *)req->target,
                         g_get_real_time (),
                         seconds,
                         dirty->dirty_bytes + dirty->writeback_bytes,
                         dirty->per_device };
  g_autofree char *size = vsm_format_bytes (r.dirty_bytes);
  g_autoptr (GError) error = NULL;

  vsm_note (notes, _ ("unmounted %s in %.2f s; %s%s was still dirty or in writeback"), req->target,
            seconds, dirty->per_device ? "" : _ ("at most "), size);
  syslog (LOG_INFO, "unmounted %s (%s) in %.2f s, %s dirty%s", req->target, d->devnode, seconds,
          size, dirty->per_device ? "" : " (system-wide figure)");
  if (!vsm_history_append_unmount (&r, &error))
    vsm_note (notes, "%s", error->message);
}

gboolean
vsm_umount_run (const VsmUmountRequest *req, GPtrArray *notes, GError **error)
{
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (VsmDevice) d = NULL;
  g_autoptr (GError) local = NULL;
  struct libmnt_context *cxt;
  VsmDirtyInfo dirty = { 0 };
  char buf[BUFSIZ] = { 0 };
  gint64 t0, t1;
  int rc, excode;

  g_return_val_if_fail (req != NULL, FALSE);
  if (!need_root (FALSE, error) || (cxt = umount_context (req, error)) == NULL)
    return FALSE;

  /* the device behind the mount point, before it is gone */
  client = g_udev_client_new (NULL);
  d = vsm_device_new_from_spec (client, req->target, &local);
  if (d == NULL)
    vsm_note (notes, _ ("cannot tell the device of %s (%s); unmounting anyway"), req->target,
              local->message);
  else
    vsm_dirty_info_read (d->bdi, &dirty);

  t0 = g_get_monotonic_time ();
  rc = mnt_context_umount (cxt);
  t1 = g_get_monotonic_time ();
  excode = mnt_context_get_excode (cxt, rc, buf, sizeof buf);
  mnt_free_context (cxt);
  if (excode != MNT_EX_SUCCESS)
    {
      g_set_error_literal (error, VSM_MOUNT_ERROR, excode, *buf ? buf : _ ("unmount failed"));
      return FALSE;
    }
  if (d == NULL)
    return TRUE;
  record_unmount (notes, req, d, &dirty, (double)(t1 - t0) / 1e6);
  return vsm_unmounted (d, notes, error);
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

/* What one flag letter of a helper's command line does: one table per
 * helper (the letters it accepts and their meaning) read by one parser. */
typedef enum
{
  FLAG_SET,        /* a gboolean field of the request to TRUE (and `clears` to FALSE) */
  FLAG_VALUE,      /* takes a value: a const char * field of the request points to it */
  FLAG_OPTIONS,    /* takes a value: joined to the -o list with commas */
  FLAG_VERBOSE,    /* -v: *verbose = TRUE */
  FLAG_SKIP,       /* accepted, nothing to do */
  FLAG_SKIP_VALUE, /* takes a value, nothing to do */
} FlagKind;

#define NO_FIELD (-1)

typedef struct
{
  char letter;
  FlagKind kind;
  glong field;  /* G_STRUCT_OFFSET in the request, or NO_FIELD */
  glong clears; /* FLAG_SET: a gboolean set to FALSE, or NO_FIELD */
} HelperFlag;

typedef struct
{
  const HelperFlag *flags;
  gsize n_flags;
  guint n_paths; /* positional arguments */
} HelperSyntax;

/* where the flags go */
typedef struct
{
  gpointer req;
  gboolean *verbose;
  GString *options; /* NULL when no flag is FLAG_OPTIONS */
} HelperTarget;

static const HelperFlag *
find_flag (const HelperSyntax *syn, char letter)
{
  for (gsize i = 0; i < syn->n_flags; i++)
    if (syn->flags[i].letter == letter)
      return &syn->flags[i];
  return NULL;
}

static gboolean
takes_value (const HelperFlag *f)
{
  return f->kind == FLAG_VALUE || f->kind == FLAG_OPTIONS || f->kind == FLAG_SKIP_VALUE;
}

static void
apply_flag (const HelperFlag *f, const char *value, const HelperTarget *t)
{
  switch (f->kind)
    {
    case FLAG_SET:
      G_STRUCT_MEMBER (gboolean, t->req, f->field) = TRUE;
      if (f->clears != NO_FIELD)
        G_STRUCT_MEMBER (gboolean, t->req, f->clears) = FALSE;
      break;
    case FLAG_VALUE:
      G_STRUCT_MEMBER (const char *, t->req, f->field) = value;
      break;
    case FLAG_OPTIONS:
      if (t->options->len > 0)
        g_string_append_c (t->options, ',');
      g_string_append (t->options, value);
      break;
    case FLAG_VERBOSE:
      *t->verbose = TRUE;
      break;
    case FLAG_SKIP:
    case FLAG_SKIP_VALUE:
      break;
    }
}

static gboolean
parse_helper_args (const HelperSyntax *syn, int argc, char **argv, const char **paths,
                   const HelperTarget *t, char **message)
{
  guint n = 0;
  gboolean only_paths = FALSE;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const HelperFlag *f;

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
      f = find_flag (syn, arg[1]);
      if (f != NULL && takes_value (f))
        {
          const char *value = option_value (argc, argv, &i, arg, message);
          if (value == NULL)
            return FALSE;
          apply_flag (f, value, t);
          continue;
        }
      /* a cluster of flags without values, "-nv" */
      for (const char *c = arg + 1; *c; c++)
        {
          f = find_flag (syn, *c);
          if (f == NULL || takes_value (f))
            {
              *message = g_strdup_printf (_ ("unknown option -%c"), *c);
              return FALSE;
            }
          apply_flag (f, NULL, t);
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

#define MOUNT_FIELD(name) G_STRUCT_OFFSET (VsmMountRequest, name)
#define UMOUNT_FIELD(name) G_STRUCT_OFFSET (VsmUmountRequest, name)

gboolean
vsm_mount_parse_args (int argc, char **argv, VsmMountRequest *req, gboolean *verbose,
                      char **options, char **message)
{
  static const HelperFlag flags[] = {
    { 's', FLAG_SET, MOUNT_FIELD (sloppy), NO_FIELD },
    { 'f', FLAG_SET, MOUNT_FIELD (fake), NO_FIELD },
    { 'n', FLAG_SET, MOUNT_FIELD (nomtab), NO_FIELD },
    { 'r', FLAG_SET, MOUNT_FIELD (read_only), MOUNT_FIELD (read_write) },
    { 'w', FLAG_SET, MOUNT_FIELD (read_write), MOUNT_FIELD (read_only) },
    { 'v', FLAG_VERBOSE, NO_FIELD, NO_FIELD },
    { 'N', FLAG_VALUE, MOUNT_FIELD (namespace), NO_FIELD },
    { 'o', FLAG_OPTIONS, NO_FIELD, NO_FIELD },
    /* vfat-smart or vfat-smart.SUBTYPE: the real type comes from the device */
    { 't', FLAG_SKIP_VALUE, NO_FIELD, NO_FIELD },
  };
  static const HelperSyntax syn = { flags, G_N_ELEMENTS (flags), 2 };
  const char *paths[2] = { NULL, NULL };
  HelperTarget t = { req, verbose, g_string_new (NULL) };
  gboolean ok;

  memset (req, 0, sizeof *req);
  *verbose = FALSE;
  *message = NULL;
  ok = parse_helper_args (&syn, argc, argv, paths, &t, message);
  req->spec = paths[0];
  req->target = paths[1];
  *options = g_string_free (t.options, !ok || t.options->len == 0);
  req->options = *options;
  return ok;
}

gboolean
vsm_umount_parse_args (int argc, char **argv, VsmUmountRequest *req, gboolean *verbose,
                       char **message)
{
  static const HelperFlag flags[] = {
    { 'f', FLAG_SET, UMOUNT_FIELD (force), NO_FIELD },
    { 'l', FLAG_SET, UMOUNT_FIELD (lazy), NO_FIELD },
    { 'n', FLAG_SET, UMOUNT_FIELD (nomtab), NO_FIELD },
    { 'r', FLAG_SET, UMOUNT_FIELD (read_only), NO_FIELD },
    { 'v', FLAG_VERBOSE, NO_FIELD, NO_FIELD },
    { 'i', FLAG_SKIP, NO_FIELD, NO_FIELD },
    { 'N', FLAG_VALUE, UMOUNT_FIELD (namespace), NO_FIELD },
    { 't', FLAG_SKIP_VALUE, NO_FIELD, NO_FIELD },
  };
  static const HelperSyntax syn = { flags, G_N_ELEMENTS (flags), 1 };
  const char *paths[1] = { NULL };
  HelperTarget t = { req, verbose, NULL };
  gboolean ok;

  memset (req, 0, sizeof *req);
  *verbose = FALSE;
  *message = NULL;
  ok = parse_helper_args (&syn, argc, argv, paths, &t, message);
  req->target = paths[0];
  return ok;
}
