/* fuzz-state.c - state files: vsm_state_from_data () and the write-read
 * round trip through vsm_state_to_data (), and what `status --json` makes
 * of a state (vsm_json_state ())
 *
 * Promises checked: a rejected file gives a VSM_ERROR_STATE error and no
 * state; an accepted one has a MAJ:MIN bdi and only knob paths under
 * /sys/class/bdi/ or /proc/sys/vm/; parse -> serialize -> parse gives the
 * same data, and serializing that again gives the same bytes; its JSON is
 * valid UTF-8 and parses back.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-json.h"
#include "vsm-state.h"
#include "vsm-util.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

static void
assert_same_strings (GPtrArray *a, GPtrArray *b)
{
  fuzz_assert (a->len == b->len);
  for (guint i = 0; i < a->len; i++)
    fuzz_assert (g_strcmp0 (g_ptr_array_index (a, i), g_ptr_array_index (b, i)) == 0);
}

static void
assert_same_state (const VsmState *a, const VsmState *b)
{
  fuzz_assert (g_strcmp0 (a->bdi, b->bdi) == 0);
  fuzz_assert (g_strcmp0 (a->disk_node, b->disk_node) == 0);
  fuzz_assert (g_strcmp0 (a->disk_name, b->disk_name) == 0);
  fuzz_assert (g_strcmp0 (a->disk_syspath, b->disk_syspath) == 0);
  fuzz_assert (g_strcmp0 (a->serial, b->serial) == 0);
  fuzz_assert (g_strcmp0 (a->class_name, b->class_name) == 0);
  fuzz_assert (g_strcmp0 (a->flush_mode, b->flush_mode) == 0);
  fuzz_assert (g_strcmp0 (a->fs_type, b->fs_type) == 0);
  fuzz_assert (g_strcmp0 (a->mount_options, b->mount_options) == 0);
  fuzz_assert (g_strcmp0 (a->source, b->source) == 0);
  fuzz_assert (g_strcmp0 (a->baseline_stat, b->baseline_stat) == 0);
  fuzz_assert (a->cap_bytes == b->cap_bytes);
  fuzz_assert (a->bandwidth == b->bandwidth);
  fuzz_assert (a->applied_at == b->applied_at);
  fuzz_assert (a->updated_at == b->updated_at);
  assert_same_strings (a->reasons, b->reasons);
  fuzz_assert (a->knobs->len == b->knobs->len);
  for (guint i = 0; i < a->knobs->len; i++)
    {
      const VsmKnobRecord *ka = g_ptr_array_index (a->knobs, i);
      const VsmKnobRecord *kb = g_ptr_array_index (b->knobs, i);
      fuzz_assert (g_strcmp0 (ka->name, kb->name) == 0);
      fuzz_assert (g_strcmp0 (ka->path, kb->path) == 0);
      /* absent and empty are both written as "" */
      fuzz_assert (g_strcmp0 (ka->original, kb->original) == 0);
      fuzz_assert (g_strcmp0 (ka->applied, kb->applied) == 0);
      fuzz_assert (g_strcmp0 (ka->readback, kb->readback) == 0);
      fuzz_assert (g_strcmp0 (ka->restore_path, kb->restore_path) == 0);
      fuzz_assert (g_strcmp0 (ka->restore_value, kb->restore_value) == 0);
    }
}

static void
check_json (const VsmState *s)
{
  g_autoptr (JsonNode) node = vsm_json_state (s);
  g_autofree char *text = vsm_json_to_string (node);
  g_autoptr (JsonParser) parser = json_parser_new ();

  fuzz_assert (text != NULL);
  fuzz_assert (g_utf8_validate (text, -1, NULL));
  fuzz_assert (json_parser_load_from_data (parser, text, -1, NULL));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) s = NULL, back = NULL, third = NULL;
  g_autofree char *out = NULL, *out2 = NULL;
  gsize len = 0, len2 = 0;
  guint maj, min;
  char tail;

  if (size > FUZZ_MAX_INPUT)
    return 0;
  s = vsm_state_from_data ((const char *)data, size, &error);
  if (s == NULL)
    {
      fuzz_assert (g_error_matches (error, VSM_ERROR, VSM_ERROR_STATE));
      return 0;
    }
  fuzz_assert (error == NULL);
  fuzz_assert (sscanf (s->bdi, "%u:%u%c", &maj, &min, &tail) == 2);
  for (guint i = 0; i < s->knobs->len; i++)
    {
      const VsmKnobRecord *k = g_ptr_array_index (s->knobs, i);
      fuzz_assert (k->name && k->path && k->restore_path && k->restore_value);
      fuzz_assert (g_str_has_prefix (k->path, "/sys/class/bdi/") ||
                   g_str_has_prefix (k->path, "/proc/sys/vm/"));
      fuzz_assert (g_str_has_prefix (k->restore_path, "/sys/class/bdi/") ||
                   g_str_has_prefix (k->restore_path, "/proc/sys/vm/"));
      fuzz_assert (strchr (k->restore_value, '\n') == NULL);
    }

  out = vsm_state_to_data (s, &len);
  fuzz_assert (out != NULL && strlen (out) == len);
  back = vsm_state_from_data (out, len, &error);
  if (back == NULL)
    {
      fprintf (stderr, "round trip: the serialized state does not load: %s\n---\n%s---\n",
               error->message, out);
      abort ();
    }
  assert_same_state (s, back);

  out2 = vsm_state_to_data (back, &len2);
  fuzz_assert (len == len2 && memcmp (out, out2, len) == 0);
  third = vsm_state_from_data (out2, len2, NULL);
  fuzz_assert (third != NULL);
  assert_same_state (back, third);

  check_json (s);
  return 0;
}
