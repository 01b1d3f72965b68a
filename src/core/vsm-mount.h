/* vsm-mount.h - mounts through libmount
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <gudev/gudev.h>

G_BEGIN_DECLS

typedef struct
{
  char *source;
  char *target;
  char *fstype;
  char *options;      /* VFS and filesystem options as the kernel shows them */
  char *user_options; /* from utab: uhelper=, x-* */
} VsmMountInfo;

void vsm_mount_info_free (VsmMountInfo *m);

/* Mounts of the disk at disk_syspath or any of its partitions. */
GPtrArray *vsm_mounts_for_disk (GUdevClient *client, const char *disk_syspath);

/* Merges options: every option in wins replaces one of the same name in
 * base; "flush", "sync" and "async" replace each other's opposite. */
char *vsm_options_merge (const char *base, const char *wins);

G_END_DECLS

G_BEGIN_DECLS

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
 * the real type through libmount -> state. Returns mount(8)'s exit status
 * (0, 1, 32, ...); notes get what -v prints; *message the one error line. */
int vsm_mount_run (const VsmMountRequest *req, GPtrArray *notes, char **message);

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
 * were applied for a mount. Returns umount(8)'s exit status. */
int vsm_umount_run (const VsmUmountRequest *req, GPtrArray *notes, char **message);

/* Parses mount(8)'s helper arguments: SPEC DIR [-sfnrvw] [-N NS] [-o OPTS]
 * [-t TYPE], options before, between or after the two paths, "-o" values
 * joined. Returns FALSE with *message on bad usage. The strings in req
 * point into argv. */
gboolean vsm_mount_parse_args (int argc, char **argv, VsmMountRequest *req, gboolean *verbose,
                               char **options, char **message);
/* umount helper: DIR [-flnrv] [-N NS] [-t TYPE] */
gboolean vsm_umount_parse_args (int argc, char **argv, VsmUmountRequest *req, gboolean *verbose,
                                char **message);

/* the last unmounts, newest last: JSON lines in the state directory */
GPtrArray *vsm_unmount_history (const char *bdi, guint max);

G_END_DECLS
