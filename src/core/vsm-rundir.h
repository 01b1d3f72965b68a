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

#include "vsm.h"

#include <glib.h>

G_BEGIN_DECLS

/* the udev helper's stamps (a directory) */
#define VSM_UDEV_ANSWERED_DIR "udev-answered"

/* the name of a file of that kind in the directory; bdi ("MAJ:MIN") for a
 * record or options, else ignored. NULL for OTHER and TEMPORARY. */
char *vsm_rundir_name (VsmRunFile kind, const char *bdi);

G_END_DECLS
