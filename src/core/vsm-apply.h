/* vsm-apply.h - the one way writeback knobs change: a transaction
 *
 * Every front end changes knobs only through here. An apply is one
 * transaction: lock; undo what an interrupted apply left (its record is
 * marked pending); record the originals first (write-ahead, pending); write
 * and read back each knob; then commit the record, or undo every write of
 * this transaction and put the record back as it was. A kill at any point
 * leaves a record from which restore brings back exactly what was there.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-device.h"
#include "vsm-plan.h"
#include "vsm-state.h"

G_BEGIN_DECLS

typedef struct _VsmApply VsmApply;

/* Locks and writes the plan's knobs (and puts back the ones an earlier plan
 * of this disk set and this one does not). plan must be managed. On
 * failure nothing is changed and nothing is held. */
VsmApply *vsm_apply_begin (const VsmDevice *device, const VsmPlan *plan,
                           const VsmApplyOptions *options, GError **error);
/* Records the result and unlocks; returns the committed state. On failure
 * the transaction is aborted (every write undone). Frees txn. */
VsmState *vsm_apply_commit (VsmApply *txn, GError **error);
/* Undoes every write of the transaction, newest first, and puts the record
 * back as it was. report gets what was done; returns FALSE when something
 * could not be undone (report says what). Frees txn. */
gboolean vsm_apply_abort (VsmApply *txn, GPtrArray *report);

/* begin + commit */
VsmState *vsm_apply (const VsmDevice *device, const VsmPlan *plan, const VsmApplyOptions *options,
                     GError **error);

G_END_DECLS
