/* vsm-rundir.h - /run/vfat-smart: the one module that knows its layout
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every file vfat-smart keeps there, its name and its writer:
 *
 *   MAJ-MIN.state        a disk's record: originals, what was applied, the
 *                        intent (vsm-state; every front end, under the lock)
 *   MAJ-MIN.options      per-drive options SetOptions sent (vsm-user-options;
 *                        the daemon only)
 *   global.state         the vm.* knobs and the drives holding them
 *                        (vsm-state; under the lock)
 *   unmounts.log         how each unmount went (vsm-history; the unmount
 *                        helper)
 *   udev-answered/       one stamp per file system the udev helper answered
 *                        for (MAJ:MIN:TYPE:UUID; the udev helper)
 *   flush-fix-probe.ini  the flush-fix probe's cache (vsm-probe; the CLI
 *                        and the daemon)
 *   .lock                the lock every writer of records takes (vsm-state)
 *   NAME.XXXXXX          a temporary of an atomic write of the above
 *
 * Every other module asks here for a path; none builds one itself.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* the udev helper's stamps (a directory) */
#define VSM_UDEV_ANSWERED_DIR "udev-answered"

typedef enum
{
  VSM_RUN_FILE_OTHER, /* not one of ours */
  VSM_RUN_FILE_RECORD,
  VSM_RUN_FILE_OPTIONS,
  VSM_RUN_FILE_GLOBAL,
  VSM_RUN_FILE_UNMOUNTS,
  VSM_RUN_FILE_UDEV_ANSWERED,
  VSM_RUN_FILE_PROBE_CACHE,
  VSM_RUN_FILE_LOCK,
  VSM_RUN_FILE_TEMPORARY,
} VsmRunFile;

/* the directory (vsm-paths' state root) */
const char *vsm_rundir (void);
/* the name of a file of that kind in the directory; bdi ("MAJ:MIN") for a
 * record or options, else ignored. NULL for OTHER and TEMPORARY. */
char *vsm_rundir_name (VsmRunFile kind, const char *bdi);
/* the same, as a path */
char *vsm_rundir_path (VsmRunFile kind, const char *bdi);
/* what kind of file name (a base name in the directory) is; *bdi (may be
 * NULL) gets "MAJ:MIN" for a record or options */
VsmRunFile vsm_rundir_kind_of (const char *name, char **bdi);

G_END_DECLS
