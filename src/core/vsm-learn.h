/* vsm-learn.h - the cap controller: a drive's write bandwidth, learned
 * while it writes, and the cap that follows from it (pure)
 *
 * Fed /sys/block/DISK/stat samples with their times, it measures bytes
 * written over busy time (io_ticks), only over stretches where the device
 * was busy writing: an idle or trickling device teaches nothing (the
 * kernel's own estimate decays towards zero then, which is why it is never
 * used). The cap = bandwidth x the limits' seconds (vsm_learn_cap_seconds
 * () of max-dirty-seconds), within the policy's clamps, moves at most once
 * per VSM_LEARN_MIN_CHANGE_USEC and only by more than VSM_LEARN_HYSTERESIS
 * of itself; new seconds move it at once (vsm_learn_set_seconds ()).
 * Before the first measurement it never moves: the plan's cap stands (for
 * a drive nothing is known of, the first cap, VSM_LEARN_FIRST_SHARE of the
 * seconds), and the first measurement moves it at once.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-stats.h"

G_BEGIN_DECLS

/* a stretch counts when the device was busy at least this share of it */
#define VSM_LEARN_MIN_BUSY 0.5
/* a measurement needs at least this much written, busy this long */
#define VSM_LEARN_MIN_BYTES (G_GUINT64_CONSTANT (8) * 1024 * 1024)
#define VSM_LEARN_MIN_BUSY_MS 1000
/* reads above this share of the sectors make the busy time a mix: skipped */
#define VSM_LEARN_MAX_READ_SHARE 0.1
/* A drive nothing was measured or given of starts with this share of the
 * cap its class's bandwidth gives (half a second of it at the default
 * max-dirty-seconds) until vfat-smartd measured its first second of
 * writing: the class's bandwidth is a guess, and the first copy dirties
 * the whole cap before the drive wrote anything (the USB 2.0 stick model at
 * 12 MB/s held 2.6-3.3 s of its writing on its first plug under the class's
 * 38 MiB, bench/RESULTS.md "First plug"). A drive at a quarter of its
 * class's speed or more holds no more than max-dirty-seconds of its own
 * writing then. */
#define VSM_LEARN_FIRST_SHARE 0.25
/* Where vfat-smartd paces (sticks, cards), the cap holds this share of
 * max-dirty-seconds except while it paces one big file: what a pull when
 * the copy returns loses of many files is what the cap holds, and more
 * (their directory entries wait for the next metadata commit). On the PNY
 * model (bench/EXPERIMENTS.md, x-return-gap-pny32g) a pull at the return
 * lost 1.93 s of 1000 x 64 KiB and 1.64 s of the photo tree under 2 s of
 * cap, 1.24 s and 0.90 s under 1 s, 0.57 s and 0.53 s under 0.5 s (at
 * 1.33x and 1.25x the drive time of no flush, against 1.16x and 1.11x).
 * One big file, paced, keeps the whole of it: its syncs commit metadata
 * once per cap, and under 0.5 s the 1 GiB file took 1.25x the time of no
 * flush (1.00x under 2 s). */
#define VSM_LEARN_MANY_FILES_SHARE 0.25
/* damping: one change per 5 s at most (the first measurement's at once),
 * and only by more than 20 % */
#define VSM_LEARN_MIN_CHANGE_USEC (5 * G_USEC_PER_SEC)
/* weight of a new measurement in the running estimate */
#define VSM_LEARN_WEIGHT 0.5

/* number of measurements taken */
guint vsm_learn_get_n_measurements (const VsmLearn *learn);

/* What a USB link can carry of data writes, bytes/s (0: speed unknown):
 * Bulk-Only at 480 Mb/s tops out near 35 MB/s. */
guint64 vsm_learn_link_bandwidth (guint speed_mbps);

G_END_DECLS
