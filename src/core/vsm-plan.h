/* vsm-plan.h - (facts, class, policy, kernel) -> mount options + knobs (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-device.h"
#include "vsm-kernel.h"
#include "vsm-policy.h"
#include "vsm-reason.h"

G_BEGIN_DECLS

/* overrides may be NULL */
VsmPlan *vsm_plan_compute (const VsmDevice *device, const VsmClassification *classification,
                           const VsmPolicy *policy, const VsmKernel *kernel,
                           const VsmOverrides *overrides);

const char *vsm_plan_get_knob (const VsmPlan *plan, const char *name);

/* udisks' built-in defaults (udisks 2.9-2.11), without uid/gid */
#define VSM_VFAT_BASE_OPTIONS "shortname=mixed,utf8=1,showexec"
#define VSM_EXFAT_BASE_OPTIONS "iocharset=utf8,errors=remount-ro"

/* the device matches an entry of the policy's ignore-devices (*which) */
gboolean vsm_plan_device_ignored (const VsmDevice *device, const VsmPolicy *policy,
                                  const char **which);

/* what a cap of cap bytes writes to vm.dirty_bytes or
 * vm.dirty_background_bytes */
guint64 vsm_plan_global_value (const char *knob, guint64 cap);

/* TRUE for a knob some plan writes (the cap's knobs); a record naming any
 * other is not obeyed. */
gboolean vsm_plan_knob_is_written (const char *name);

G_END_DECLS
