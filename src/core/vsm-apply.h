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

#include "vsm-device.h"
#include "vsm-plan.h"
#include "vsm-state.h"

G_BEGIN_DECLS

/* how long a front end waits for another vfat-smart's lock */
#define VSM_LOCK_WAIT_UDEV_MS 1000
#define VSM_LOCK_WAIT_MS 10000

typedef struct
{
  const char *source; /* "cli", "udev", "mount", "daemon": recorded */
  guint lock_wait_ms; /* 0: VSM_LOCK_WAIT_MS */
  /* the vm.* knobs of a plan only while a filesystem of the disk is mounted
   * (udev at the plug, the daemon at every mount and unmount); otherwise
   * this disk holds none of them (and lets go of them if it did) */
  gboolean global_while_mounted;
  /* only a disk that has a record (checked under the lock): a re-apply of
   * vfat-smartd must not undo a restore that ran since it decided. A
   * pending record (an apply that did not finish) counts: it is undone,
   * then this plan is applied in its place. */
  gboolean only_if_recorded;
  /* what was asked, recorded with the knobs; NULL: source only, nothing
   * chosen by hand */
  const VsmIntent *intent;
} VsmApplyOptions;

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

/* Puts every recorded original of the disk back and forgets it (a disk that
 * is gone, or whose numbers now belong to another disk, needs nothing put
 * back). The vm.* knobs go back when their last owner goes.
 * VSM_ERROR_NOT_MANAGED when nothing is recorded. */
gboolean vsm_restore (const char *bdi, guint lock_wait_ms, GPtrArray *report, GError **error);

/* Forgets the disk without writing its knobs (it is gone, or its record is
 * not to be trusted); still restores the vm.* knobs when it was their last
 * owner. */
gboolean vsm_forget (const char *bdi, guint lock_wait_ms, GPtrArray *report, GError **error);

/* restore for every recorded disk, then drops vm.* owners without a record
 * and reports corrupt records (VSM_ERROR_STATE: they are not obeyed; see
 * vsm_forget_file). */
gboolean vsm_restore_all (GPtrArray *report, GError **error);

/* Lets go of vm.* owners that have no record (a crash between writing the
 * knobs and the record, a full /run): the knobs go back when no owner is
 * left. What vfat-smartd does at start; restore --all does it too. */
gboolean vsm_release_phantom_owners (GPtrArray *report, GError **error);

/* Forgets a corrupt record by file name, writing nothing. */
gboolean vsm_forget_file (const char *name, GError **error);

G_END_DECLS
