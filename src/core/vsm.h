/* vsm.h - the engine: all a front end (src/cli, src/mount, src/udev,
 * src/daemon) includes from the core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The other headers of src/core/ are the core's own (and its tests', which
 * link it directly); a front end names none of them. The engine's calls,
 * one per thing a front end wants done:
 *
 *   apply (disk, intent)  vsm_assess () or vsm_assess_device () with what a
 *                         person chose (VsmOverrides), then
 *                         vsm_assessment_apply () with who asks
 *                         (VsmApplyOptions.source): one transaction, the
 *                         intent recorded
 *   reapply (disk, why)   vsm_reapply (), vsm_reapply_device (): plans again
 *                         from the recorded intent with new measurements
 *   unmounted (disk)      vsm_unmounted (): the knobs go back when no mount
 *                         of the disk remains
 *   restore (disk | all)  vsm_restore (), vsm_restore_all (); vsm_forget ()
 *   status                vsm_status_collect ()
 *   pure, for printing    vsm_classify (), the plan in an assessment, the
 *                         enums' names (vsm_class_to_string () ...)
 *
 * The daemon's controller (vsm-learn, vsm-pace, vsm-stall, vsm-user-options,
 * vsm-drive-history) is pure or file-level code of the core; the daemon
 * reaches it through this header too.
 */
#pragma once

/* apply, reapply, unmounted, status; facts, class, plan, records */
#include "vsm-manager.h"

/* the state directory (its layout: vsm-rundir) and the one seam for every path */
#include "vsm-paths.h"
#include "vsm-rundir.h"

/* the daemon's controller and the figures it publishes */
#include "vsm-learn.h"
#include "vsm-pace.h"
#include "vsm-stall.h"
#include "vsm-truth.h"
#include "vsm-user-options.h"

/* mounts, udisks' options, the flush-fix probe */
#include "vsm-mount.h"
#include "vsm-probe.h"
#include "vsm-udisks.h"

/* small helpers: numbers, sizes, sysfs attributes */
#include "vsm-util.h"
