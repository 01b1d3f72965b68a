/* vsm-pace.h - when to pace writeback of a mount (pure)
 *
 * Under the cap (strict_limit), background writeback goes in rounds of
 * about half a second of the drive's bandwidth, and after every round FAT
 * writes FSINFO, both FAT copies and the directory entry: 4-5 jumps per
 * round, the cost that made one big file as slow as udisks' flush. A
 * sync of the file system (the kernel's sync_filesystem(), by BLKFLSBUF or
 * syncfs(2): src/daemon/vsmd-pacer.c) writes everything dirty when it
 * starts, data first, and the metadata once at its end; called back to
 * back while a big file is being written, it commits metadata about once
 * per cap's worth of data
 * (bench/EXPERIMENTS.md: 0.87x the no-flush time to safe at 1 GiB).
 *
 * On many small files it costs (each file's directory entry is written
 * synchronously: 3.2x the drive time for 1000 x 64 KiB), so it runs only
 * while the drive's dirty data is held by few inodes and fills the cap,
 * and stops as soon as nothing new is dirtied (the writer stopped).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-stats.h"

G_BEGIN_DECLS

/* a big writer: at most this many inodes hold the dirty data (the file,
 * the block device's FAT buffers, FSINFO, its directory) ... */
#define VSM_PACE_MAX_INODES 4
/* ... and, to start, they fill at least this share of the cap. The kernel
 * can hold a writer below half of max_bytes (the lab's 7.2 daemon check: a
 * 128 MiB copy held at 6.1 MiB under a 13 MiB cap for 15 s, the drive busy
 * all the time, and never paced with half the cap needed to start; why the
 * kernel held it there was not worked out) */
#define VSM_PACE_MIN_FILL 0.4
/* ... and, to go on, they still hold this share of it. Each sync drains
 * what was dirty when it began; while the drive is the slower one the
 * writer, held at the cap, refills it meanwhile: on the cheap stick paced
 * under cp the data at risk never fell below 14 % of the cap (h-cheap-daemon,
 * every 0.2 s of the middle of each copy). A drive faster than its writer is
 * drained by the syncs: on the decent stick 96-99 % of such samples were
 * under a tenth of the cap (h-decent), 15-29 % with the busy gate below
 * (x-decent-gate), down to 1 %; the syncs then write a few MB each with a
 * metadata commit after every one. */
#define VSM_PACE_MIN_KEEP 0.1
/* the samples must agree this long before pacing starts; meanwhile a writer
 * counts as writing when a sample saw it dirty data within this long: at the
 * cap, strict_limit holds it in balance_dirty_pages() for longer than the
 * daemon's quarter-second samples (the lab's 8 MB/s stick: a 128 MiB copy
 * whose every second had a sample with nothing new was never paced) */
#define VSM_PACE_START_USEC (G_USEC_PER_SEC)
/* ... and the drive was busy at least this share of the time since the last
 * sample: the writer is held by the cap only while the drive is the slower
 * one. A drive faster than its writer (the lab's decent stick at 80 MB/s
 * under a 25 MB/s cp) is idle between the flusher's rounds, and back-to-back
 * syncs there wrote a few MB each with a metadata commit after every one:
 * 2736 jumps against 279 without flush, 1.26x its time to safe
 * (bench/RESULTS.md, h-decent). Paced or not, the cheap stick under cp is
 * busy nearly all the time. */
#define VSM_PACE_MIN_BUSY 0.8
/* ... measured over this long: the daemon samples a writing drive four times
 * a second, and on the lab's 8 MB/s stick a quarter second between two
 * writeback rounds read idle often enough that pacing never started */
#define VSM_PACE_BUSY_WINDOW_USEC (G_USEC_PER_SEC)
/* nothing newly dirtied for this long before the writer counts as stopped
 * (vsm_pace_settle()), and then no more than the cap at risk. The daemon
 * samples a writing drive four times a second (vsmd-device-private.h), so
 * the sync that commits what a copy left starts about half a second after
 * cp returned, or once the flusher drained the data below three quarters of
 * the cap. A writer held at the cap stalls when a lower cap is applied under
 * it (the learned cap of a first copy): then more than the new cap is
 * at risk and the stall is not a stop (the lab's daemon check saw a 128 MiB
 * copy's cap go from 38 to 26 MiB; on the lab's 8 MB/s stick the data above
 * the new cap drained for 3 s). */
#define VSM_PACE_SETTLE_USEC (G_USEC_PER_SEC / 2)
/* (Either wait counts from the end of the last metadata commit too: the
 * lab's daemon check saw a settle 1.6 s into a copy of 1000 small files to
 * its 8 MB/s stick, right after the copy's first commit, and the settle's
 * sync held the copy for 9 s. Why the writer was quiet was not traced; a
 * writer that needs a directory block the commit is writing would wait for
 * it and dirty nothing meanwhile.) */
/* ... but this long while at least VSM_PACE_HELD_FILL of the cap is at risk:
 * strict_limit holds a writer in balance_dirty_pages() while the drive's
 * dirty data is near the cap, for longer than half a second on a slow stick
 * (the lab's 8 MB/s stick: settles in the middle of 128 MiB copies, which
 * were then never paced). Once the writer is done the flusher drains the
 * data to the drive's background threshold, half the cap, and stops there
 * (the rest waits for its age, 30 s): the shorter wait applies. */
#define VSM_PACE_SETTLE_HELD_USEC (2 * G_USEC_PER_SEC)
/* ... the share of the cap above which balance_dirty_pages() may hold a
 * writer: under strict_limit it runs free below the drive's freerun ceiling,
 * halfway between the background threshold and the cap (dirty_background_ratio
 * 10 against dirty_ratio 20: three quarters of the cap). With the longer wait
 * from half the cap, where the flusher stops, the notice came 3.4-3.6 s after
 * cp returned in two of three copies of 1000 small files on the PNY model,
 * about half the cap at risk and nothing written for 1.6 s (x-notice-pny32g's
 * rerun, bench/EXPERIMENTS.md). */
#define VSM_PACE_HELD_FILL 0.75
/* ... and no settle this long after the cap changed (vsm_pace_feed() sees it,
 * vsm_pace_applying() from an apply's end) while the cap can hold a
 * writer: a writer held while a lower cap is applied under it is quiet, not
 * done (the lab's exFAT check: the first copy's cap from 38 to 11 MiB, a
 * settle in the middle of a 128 MiB copy, and the file was never paced).
 * Below that the wait serves nothing, and the learned cap is applied again
 * at the end of many copies (it moved by up to a fifth from copy to copy):
 * most likely why x-notice-pny32g-b's photo trees had "safe to unplug"
 * 3.3-3.7 s after cp returned, with 12 MiB at risk and nothing written for
 * 2 s (the daemon's log was not kept). */
#define VSM_PACE_CAP_CHANGE_HOLD_USEC (2 * G_USEC_PER_SEC)
/* A writer whose dirty data is held by more than VSM_PACE_MAX_INODES
 * inodes this long writes many files: the cap holds a share of
 * max-dirty-seconds again (vsm_pace_one_big_file (), vsm-learn.h). Pacing
 * a big file stops and starts again within 1.3 s (the lab's 7.2 notice
 * group, the daemon's log): a count that moved for less than that is no
 * change of copy. */
#define VSM_PACE_MANY_FILES_USEC (2 * G_USEC_PER_SEC)
/* While a writer that is not paced (many small files) writes, the metadata
 * the flusher leaves is committed every half of the cap's seconds
 * (vsm_pace_commit_period(), vsm_pace_commit_due()), within these bounds.
 * Without commits FAT's directory entries and FAT chains wait in the block
 * device's buffers: a pull 1 s after 1000 x 64 KiB were copied to the lab's
 * cheap stick found none of the files (62.5 MiB, 3.3 s of the drive's
 * bandwidth, with 25.6 MiB at risk), and a pull at half found 15 of them
 * (bench group h-cheap-settle-small-b): what such a copy loses grows with
 * the copy, not with the cap. Each commit costs the drive a few jumps
 * (FSINFO, both FATs, the directory): the lower bound keeps that under
 * about a tenth of a slow stick's time. */
#define VSM_PACE_COMMIT_MIN_USEC (G_USEC_PER_SEC / 4)
#define VSM_PACE_COMMIT_MAX_USEC (G_USEC_PER_SEC)

G_END_DECLS
