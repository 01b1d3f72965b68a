/* vsm-plan.h - (facts, class, policy, kernel) -> mount options + knobs (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-classify.h"
#include "vsm-device.h"
#include "vsm-kernel.h"
#include "vsm-policy.h"
#include "vsm-reason.h"

G_BEGIN_DECLS

typedef struct
{
  char *name;  /* a BDI attribute ("strict_limit") or "vm.NAME" */
  char *value; /* as written */
} VsmKnob;

typedef struct
{
  VsmClass klass;
  gboolean managed;         /* FALSE: vfat-smart leaves the device alone */
  VsmFlushMode flush_mode;  /* never AUTO */
  char *fs_type;            /* "vfat", "exfat", or NULL when not FAT */
  char *mount_options;      /* for mount -o; NULL when not FAT */
  char *udisks_defaults;    /* UDISKS_MOUNT_OPTIONS_<FS>_DEFAULTS (the only set changed) */
  guint64 bandwidth;        /* bytes/s the cap was computed from */
  char *bandwidth_source;   /* in English */
  VsmReason *bandwidth_why; /* the same, translated where shown */
  guint64 cap_bytes;        /* 0 without a cap */
  const char *cap_via;      /* "per-device" or "global" (vm.dirty_*), NULL without a cap */
  gboolean pace_writeback;  /* with a cap: vfat-smartd may pace one big file (vsm-pace.h) */
  GPtrArray *knobs;         /* VsmKnob*, in the order to write them */
  GPtrArray *reasons;       /* VsmReason* */
  char *left_alone_reason;  /* why, when !managed, in English */
  VsmReason *left_alone;    /* the same, translated where shown */
} VsmPlan;

/* What a person (or the daemon's measurement) decides over the policy.
 * A zeroed struct changes nothing. */
typedef struct
{
  gboolean set_class; /* --class, x-vfat-smart.class= */
  VsmClass klass;
  const char *fs_type;          /* what is on the device now, when udev had not seen it */
  VsmFlushMode flush_mode;      /* AUTO: the plan decides; -o flush / -o sync */
  const char *flush_mode_why;   /* an N_ () message, a serialized VsmReason or text as it is */
  guint64 bandwidth;            /* measured write bandwidth, bytes/s; 0: none */
  const char *bandwidth_source; /* an N_ () message, a serialized VsmReason or text as it is */
} VsmOverrides;

void vsm_plan_free (VsmPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmPlan, vsm_plan_free)

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
