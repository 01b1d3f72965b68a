/* vsm-knobs.h - the writeback knobs vfat-smart may touch: where each lives,
 * how it reads back, and how it is restored
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-state.h"

G_BEGIN_DECLS

gboolean vsm_bdi_is_valid (const char *bdi);

typedef struct
{
  const char *name;    /* "max_bytes", or "vm.NAME" for /proc/sys/vm/NAME */
  gboolean global;     /* acts on every disk of the system */
  gboolean relative;   /* stored as a ratio of the dirty threshold: read back with a tolerance */
  const char *via[3];  /* restored through the first of these that exists (NULL: itself) */
  const char *if_zero; /* vm.*_bytes: "0" means the ratio was in charge: restore that */
} VsmKnobSpec;

/* NULL for a knob vfat-smart never writes */
const VsmKnobSpec *vsm_knob_spec_lookup (const char *name);

/* /sys/class/bdi/BDI/NAME or /proc/sys/vm/NAME (under vsm-paths' roots);
 * NULL for an unknown knob or a malformed bdi. */
char *vsm_knob_path (const char *bdi, const char *name);
gboolean vsm_knob_is_global (const char *name);

/* TRUE when readback is what was written (relative knobs within 5 % +
 * 256 KiB: they move with free memory and with vm.dirty_*). */
gboolean vsm_knob_value_matches (const char *name, const char *applied, const char *readback);

/* What puts knob name back as it is now: its value, and where and what to
 * write (relative knobs go back through the ratio they are stored as). */
gboolean vsm_knob_read_for_restore (const char *bdi, const char *name, char **value,
                                    char **restore_path, char **restore_value, GError **error);

/* Fills record->path, ->original, ->restore_path, ->restore_value from the
 * kernel, before the knob is first written. */
gboolean vsm_knob_record_read (VsmKnobRecord *record, const char *bdi, GError **error);

/* A record from a state file is obeyed only when it names a known knob at
 * exactly its place for this bdi, restores through an allowed place, and
 * holds numbers. */
gboolean vsm_knob_record_is_sane (const VsmKnobRecord *record, const char *bdi, GError **error);

VsmDrift vsm_knob_check (const VsmKnobRecord *record, char **now);

/* Writes each record's restore value, newest first; a knob that is gone
 * (device unplugged) needs nothing. report gets a line per knob, failures
 * a "; "-joined list. Returns FALSE when any write failed. */
gboolean vsm_knob_records_restore (GPtrArray *records, GPtrArray *report, GString *failures);

G_END_DECLS
