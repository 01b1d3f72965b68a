/* vsm-flush-mode.h - how a drive's written data reaches it: the plan's
 * choice and the flush-mode key of the policy's schema
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A part of vsm.h (front ends include that), on its own so that the
 * schema's enums (data/meson.build) are made from the policy's enums only.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  VSM_FLUSH_MODE_AUTO,
  VSM_FLUSH_MODE_KERNEL_FLUSH,
  VSM_FLUSH_MODE_DIRTY_CAP,
  VSM_FLUSH_MODE_SYNC,
  VSM_FLUSH_MODE_OFF,
  VSM_FLUSH_MODE_LAST, /*< skip >*/
} VsmFlushMode;

G_END_DECLS
