/* fuzz-dirty-info.h - what the harnesses of the two VsmDirtyInfo parsers
 * share (fuzz-bdi-stats.c: debugfs bdi/MAJ:MIN/stats, fuzz-meminfo.c:
 * /proc/meminfo): their LLVMFuzzerInitialize () and the promises every such
 * parser keeps. Include it from exactly one harness per executable.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "fuzz-common.h"

#include "vsm-stats.h"

typedef gboolean (*FuzzDirtyParser) (const char *text, VsmDirtyInfo *out);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

/* Parses the input (when it is not too big) and checks: the return value
 * is out->valid, out->per_device is per_device (which source it is from),
 * and a second parse of the same text gives the same result. Returns
 * whether the input parsed, with the result in *out. */
static gboolean
fuzz_dirty_info_parse (const uint8_t *data, size_t size, FuzzDirtyParser parse, gboolean per_device,
                       VsmDirtyInfo *out)
{
  g_autofree char *text = NULL;
  VsmDirtyInfo again;
  gboolean ok;

  if (size > FUZZ_MAX_INPUT)
    return FALSE;
  text = fuzz_strdup (data, size);
  ok = parse (text, out);
  fuzz_assert (ok == out->valid);
  fuzz_assert (!out->per_device == !per_device);
  fuzz_assert (parse (text, &again) == ok);
  fuzz_assert (memcmp (out, &again, sizeof again) == 0);
  return ok;
}
