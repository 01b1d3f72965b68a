/* vsm-stall.h - a throttled writer with no writeback under way
 *
 * "mm/block/fs: remove laptop_mode" (merged for Linux 7.0) took out the
 * unconditional start of background writeback in balance_dirty_pages():
 * on a BDI with strict_limit a writer is throttled at the device's own
 * threshold while the system's dirty data stays far below the background
 * threshold, so nothing starts writeback until the periodic flusher comes
 * by. "mm: reinstate unconditional writeback start in
 * balance_dirty_pages()" fixed it. A kernel's version does not tell
 * (stable backports, distribution patches): the counters do. A writer is
 * throttled when the device's dirty data is past the point where
 * strict_limit throttles ((threshold + background threshold) / 2); a
 * healthy kernel then always has writeback under way for the device. When,
 * within a window, the device spent long throttled with nothing in
 * writeback and no sector written, the kernel has the regression; the
 * fallback is to drop strict_limit for the drive (max_bytes stays).
 *
 * Pure: fed samples, never reads anything itself.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-plan.h"
#include "vsm-stats.h"

G_BEGIN_DECLS

const char *vsm_stall_verdict_to_string (VsmStallVerdict verdict);

/* The fallback, in the plan so that it goes through the one recorded and
 * restorable apply: strict_limit is written as 0 (restore puts the
 * original back), max_bytes and the rest stay; why (a serialized
 * VsmReason, vsm-reason.h, or text as it is) is added to the reasons.
 * FALSE when the plan sets no strict_limit. */
gboolean vsm_stall_drop_strict_limit (VsmPlan *plan, const char *why);

G_END_DECLS
