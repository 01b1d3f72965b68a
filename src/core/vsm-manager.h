/* vsm-manager.h - the sequence every front end runs:
 * facts -> class -> plan -> apply -> record, and the status of it all
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-apply.h"
#include "vsm-device.h"
#include "vsm-drive-history.h"
#include "vsm-history.h"
#include "vsm-intent.h"
#include "vsm-kernel.h"
#include "vsm-knobs.h"
#include "vsm-plan.h"
#include "vsm-policy.h"
#include "vsm-state.h"
#include "vsm-stats.h"

G_BEGIN_DECLS

/* takes device (and policy, when not NULL) over */
VsmAssessment *vsm_assess_device (VsmDevice *device, VsmPolicy *policy,
                                  const VsmOverrides *overrides);

/* Plans a recorded disk again from the intent in its record, with a new
 * measurement, and applies it (only while the record is there: a restore
 * since wins). A class, a flush mode or options a person chose stay; a
 * record without an intent (older) plans from the policy as before.
 * Takes device over. *state (may be NULL) gets the record, NULL when the
 * plan now leaves the drive alone (and what was applied was restored).
 * VSM_ERROR_NOT_MANAGED when the disk has no record. */
gboolean vsm_reapply_device (VsmDevice *device, const VsmReapply *r, VsmState **state,
                             GError **error);
/* A disk planned from an intent (taken over, like device and r->policy,
 * NULL: loaded): the person's choices in it (class, flush mode, the
 * per-drive options) over the policy, with r's measurement (bandwidth 0:
 * the drive's history), stall fallback (drop_strict_limit, NULL: none) and
 * one big file, and why (r->reason, "the cap drifted") among the plan's
 * reasons. r's user options and class are not read: the intent holds
 * them. */
VsmAssessment *vsm_assess_intent (VsmDevice *device, VsmIntent *intent, const VsmReapply *r);

void vsm_status_entry_free (VsmStatusEntry *e);

G_END_DECLS
