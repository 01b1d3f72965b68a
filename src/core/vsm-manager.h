/* vsm-manager.h - the one sequence every front end runs:
 * facts -> class -> plan -> apply -> record, and the status of it all
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-classify.h"
#include "vsm-device.h"
#include "vsm-kernel.h"
#include "vsm-knobs.h"
#include "vsm-mount.h"
#include "vsm-plan.h"
#include "vsm-policy.h"
#include "vsm-state.h"
#include "vsm-stats.h"
#include "vsm-util.h"

G_BEGIN_DECLS

typedef struct
{
  VsmDevice *device;
  VsmClassification *classification;
  VsmPolicy *policy;
  VsmKernel *kernel;
  VsmPlan *plan;
} VsmAssessment;

void vsm_assessment_free (VsmAssessment *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmAssessment, vsm_assessment_free)

/* policy: NULL to load it from GSettings (taken over otherwise) */
VsmAssessment *vsm_assess (GUdevClient *client, const char *spec, VsmPolicy *policy,
                           GError **error);
/* takes device (and policy, when not NULL) over */
VsmAssessment *vsm_assess_device (VsmDevice *device, VsmPolicy *policy);

/* Replaces the classification (a person knows better: `--class`) and
 * recomputes the plan. */
void vsm_assessment_set_class (VsmAssessment *a, VsmClass klass);

/* Applies the plan's knobs (restoring them when the plan has none and an
 * earlier apply left some) and records the state. */
VsmState *vsm_assessment_apply (VsmAssessment *a, const char *source, GError **error);

/* Restores every managed disk; report gets a line per action. */
gboolean vsm_restore_all (GPtrArray *report, GError **error);

typedef struct
{
  VsmKnobRecord *record; /* borrowed from the state */
  char *now;
  VsmDrift drift;
  gboolean global;
} VsmKnobStatus;

typedef struct
{
  VsmState *state;
  gboolean present;  /* the disk is still there */
  GPtrArray *mounts; /* VsmMountInfo* */
  GPtrArray *knobs;  /* VsmKnobStatus* */
  VsmIoDelta io;
  double seconds_since_apply;
  VsmDirtyInfo dirty;
  guint64 at_risk_bytes;  /* dirty + writeback */
  guint64 safe_bandwidth; /* bytes/s used for the estimate */
  const char *safe_bandwidth_source;
  double seconds_to_safe;
  char *safety_note; /* how this compares to udisks' default */
} VsmStatusEntry;

void vsm_status_entry_free (VsmStatusEntry *e);

/* bdi: one disk, or NULL for all managed disks */
GPtrArray *vsm_status_collect (GUdevClient *client, const char *bdi, GError **error);

G_END_DECLS
