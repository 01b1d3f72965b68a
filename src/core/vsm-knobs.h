/* vsm-knobs.h - write, verify and restore writeback knobs
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-device.h"
#include "vsm-plan.h"
#include "vsm-state.h"

G_BEGIN_DECLS

/* "strict_limit" -> /sys/class/bdi/BDI/strict_limit; "vm.x" -> /proc/sys/vm/x */
char *vsm_knob_path (const char *bdi, const char *name);
gboolean vsm_knob_is_global (const char *name);

/* TRUE when readback is what applied asked for (byte knobs move with the
 * dirty threshold, so they are compared with a tolerance). */
gboolean vsm_knob_value_matches (const char *name, const char *applied, const char *readback);

/* Writes the plan's knobs in order, reads each back, records originals (kept
 * from an earlier apply: applying twice changes nothing) and the baseline
 * I/O counters. On any failure everything written is put back and nothing is
 * recorded. source: "cli", "udev", "mount". */
VsmState *vsm_knobs_apply (const VsmDevice *device, const VsmPlan *plan, const char *source,
                           GError **error);

/* Puts every original back and forgets the disk. A disk that is gone needs
 * nothing put back. report: lines saying what was done (may be NULL). */
gboolean vsm_knobs_restore (const char *bdi, GPtrArray *report, GError **error);

typedef enum
{
  VSM_DRIFT_NONE,    /* as applied */
  VSM_DRIFT_CHANGED, /* someone else changed it */
  VSM_DRIFT_GONE,    /* cannot be read: device unplugged */
} VsmDrift;

VsmDrift vsm_knob_check (const VsmKnobRecord *record, char **now);

G_END_DECLS
