/* fuzz-history.c - the files in the state directory that are not per-disk
 * state: global.state (vsm_global_state_load () and the write-read round
 * trip through vsm_global_state_save ()) and the unmount history
 * (vsm_history_unmounts (), and each record written back and read again). The first input byte picks which; the rest is
 * the file, written into a private state directory
 * ($VFAT_SMART_STATE_DIR, removed at exit).
 *
 * Promises checked: global.state either loads with owners that are all
 * MAJ:MIN and knob paths under /sys/class/bdi/ or /proc/sys/vm/, or fails
 * with a VSM_ERROR; saved and loaded again it gives the same owners and
 * knobs. The history gives at most MAX lines, each one line, each the
 * asked disk's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-history.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <glib/gstdio.h>

static char *state_dir;
static char *global_path;
static char *history_path;

static void
cleanup (void)
{
  g_unlink (global_path);
  g_unlink (history_path);
  g_rmdir (state_dir);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  state_dir = g_dir_make_tmp ("vsm-fuzz-state-XXXXXX", NULL);
  if (state_dir == NULL)
    abort ();
  g_setenv ("VFAT_SMART_STATE_DIR", state_dir, TRUE);
  global_path = g_build_filename (state_dir, "global.state", NULL);
  history_path = g_build_filename (state_dir, "unmounts.log", NULL);
  atexit (cleanup);
  return 0;
}

static gboolean
is_bdi (const char *s)
{
  guint maj, min;
  char tail;
  return s != NULL && sscanf (s, "%u:%u%c", &maj, &min, &tail) == 2;
}

static void
check_global (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmGlobalState) g = vsm_global_state_load (&error);
  g_autoptr (VsmGlobalState) back = NULL;

  if (g == NULL)
    {
      fuzz_assert (error != NULL && error->domain == VSM_ERROR);
      return;
    }
  fuzz_assert (error == NULL);
  for (guint i = 0; i < g->owners->len; i++)
    fuzz_assert (is_bdi (g_ptr_array_index (g->owners, i)));
  for (guint i = 0; i < g->knobs->len; i++)
    {
      const VsmKnobRecord *k = g_ptr_array_index (g->knobs, i);
      fuzz_assert (k->path && k->restore_path && k->restore_value);
      fuzz_assert (g_str_has_prefix (k->path, "/sys/class/bdi/") ||
                   g_str_has_prefix (k->path, "/proc/sys/vm/"));
    }

  /* write-read round trip (saving with no owners removes the file) */
  if (!vsm_global_state_save (g, &error))
    {
      fprintf (stderr, "saving a loaded global state failed: %s\n", error->message);
      abort ();
    }
  back = vsm_global_state_load (&error);
  fuzz_assert (back != NULL);
  fuzz_assert (back->owners->len == g->owners->len);
  for (guint i = 0; i < g->owners->len; i++)
    fuzz_assert (g_str_equal (g_ptr_array_index (g->owners, i), g_ptr_array_index (back->owners, i)));
  if (g->owners->len == 0)
    return; /* the knobs went with the file */
  fuzz_assert (back->knobs->len == g->knobs->len);
  for (guint i = 0; i < g->knobs->len; i++)
    {
      const VsmKnobRecord *a = g_ptr_array_index (g->knobs, i);
      const VsmKnobRecord *b = g_ptr_array_index (back->knobs, i);
      fuzz_assert (g_strcmp0 (a->name, b->name) == 0);
      fuzz_assert (g_strcmp0 (a->path, b->path) == 0);
      fuzz_assert (g_strcmp0 (a->original, b->original) == 0);
      fuzz_assert (g_strcmp0 (a->restore_path, b->restore_path) == 0);
      fuzz_assert (g_strcmp0 (a->restore_value, b->restore_value) == 0);
    }
}

static void
check_history (guint max)
{
  g_autoptr (GPtrArray) records = vsm_history_unmounts ("8:16", max);

  fuzz_assert (records != NULL);
  fuzz_assert (records->len <= max);
  for (guint i = 0; i < records->len; i++)
    {
      const VsmUnmountRecord *r = g_ptr_array_index (records, i);
      g_autofree char *line = vsm_unmount_record_to_line (r);
      g_autoptr (VsmUnmountRecord) back = vsm_unmount_record_from_line (line, NULL);

      fuzz_assert (g_str_equal (r->bdi, "8:16"));
      /* written back, one valid line that reads as the same record */
      fuzz_assert (g_utf8_validate (line, -1, NULL) && strchr (line, '\n') == NULL);
      fuzz_assert (back != NULL && g_str_equal (back->bdi, r->bdi));
      fuzz_assert (back->dirty_bytes == r->dirty_bytes && back->at_usec == r->at_usec);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path;

  if (size < 1 || size > FUZZ_MAX_INPUT)
    return 0;
  path = (data[0] & 1) ? history_path : global_path;
  g_unlink (global_path);
  g_unlink (history_path);
  if (!g_file_set_contents_full (path, (const char *)data + 1, size - 1, G_FILE_SET_CONTENTS_NONE,
                                 0644, NULL))
    abort ();
  if (data[0] & 1)
    check_history (data[0] >> 1);
  else
    check_global ();
  return 0;
}
