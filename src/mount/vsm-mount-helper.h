/* vsm-mount-helper.h - mount.vfat-smart and umount.vfat-smart in mount(8)'s
 * terms: arguments, the sequence, exit codes
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* libmount's own failures: code is mount(8)'s exit status (MNT_EX_*) */
#define VSM_MOUNT_ERROR (vsm_mount_error_quark ())
GQuark vsm_mount_error_quark (void);

/* What mount.vfat-smart was asked, in mount(8)'s helper terms. */
typedef struct
{
  const char *spec; /* node, LABEL=, UUID=, by-* link */
  const char *target;
  const char *options;   /* -o, may be NULL */
  const char *namespace; /* -N, may be NULL */
  gboolean fake;         /* -f */
  gboolean nomtab;       /* -n */
  gboolean sloppy;       /* -s */
  gboolean read_only;    /* -r */
  gboolean read_write;   /* -w */
} VsmMountRequest;

#define VSM_UHELPER "vfat-smart"

/* facts -> class -> plan (the person's options win) -> knobs -> mount with
 * the real type through libmount -> record, as one transaction: a failed
 * mount leaves every knob and record as it was. notes get what -v prints. */
gboolean vsm_mount_run (const VsmMountRequest *req, GPtrArray *notes, GError **error);

typedef struct
{
  const char *target;
  const char *namespace;
  gboolean nomtab;    /* -n */
  gboolean lazy;      /* -l */
  gboolean force;     /* -f */
  gboolean read_only; /* -r: remount read-only when unmount fails */
} VsmUmountRequest;

/* Unmounts, records how long it took and how much was still dirty, and
 * restores the knobs when no other mount of the disk remains and the knobs
 * were applied for a mount. */
gboolean vsm_umount_run (const VsmUmountRequest *req, GPtrArray *notes, GError **error);

/* mount(8)'s exit status for an error of either run */
int vsm_mount_error_to_exit_status (const GError *error);

/* Parses mount(8)'s helper arguments: SPEC DIR [-sfnrvw] [-N NS] [-o OPTS]
 * [-t TYPE], options before, between or after the two paths, "-o" values
 * joined. Returns FALSE with *message on bad usage. The strings in req
 * point into argv. */
gboolean vsm_mount_parse_args (int argc, char **argv, VsmMountRequest *req, gboolean *verbose,
                               char **options, char **message);
/* umount helper: DIR [-flnrv] [-N NS] [-t TYPE] */
gboolean vsm_umount_parse_args (int argc, char **argv, VsmUmountRequest *req, gboolean *verbose,
                                char **message);

G_END_DECLS
