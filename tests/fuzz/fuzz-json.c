/* fuzz-json.c - the JSON of `--json` (vsm_json_to_string ()) over strings
 * from outside
 *
 * First input byte even: a JsonNode built from the NUL-separated input
 * strings (members named by them with string values, and an array of all
 * of them) is written with vsm_json_to_string (). Odd: the strings are a
 * drive's (label, UUID, vendor, model, USB serial, manufacturer, product)
 * on a USB stick, through vsm_json_classify () as `classify --json` does.
 *
 * Promises checked (issue 10, defect 5): the output is valid UTF-8 and
 * json-glib parses it back; strings that were clean text (valid UTF-8, no
 * control characters) come back unchanged.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-json.h"

#define MAX_STRINGS 16

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

static JsonNode *
parse_back (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    {
      g_autofree char *esc = text ? g_strescape (text, NULL) : NULL;
      fprintf (stderr, "JSON output is not valid UTF-8: %s\n", esc ? esc : "(null)");
      abort ();
    }
  if (!json_parser_load_from_data (parser, text, -1, &error))
    {
      fprintf (stderr, "JSON output does not parse (%s):\n%s\n", error->message, text);
      abort ();
    }
  return json_node_copy (json_parser_get_root (parser));
}

static void
check_builder (char **strings)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) node = NULL, back = NULL;
  g_autofree char *text = NULL;
  JsonArray *all;
  guint n = g_strv_length (strings);

  json_builder_begin_object (b);
  for (guint i = 0; i + 1 < n; i += 2)
    {
      json_builder_set_member_name (b, strings[i]);
      json_builder_add_string_value (b, strings[i + 1]);
    }
  json_builder_set_member_name (b, "all");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    json_builder_add_string_value (b, strings[i]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  node = json_builder_get_root (b);

  text = vsm_json_to_string (node);
  back = parse_back (text);
  fuzz_assert (JSON_NODE_HOLDS_OBJECT (back));
  all = json_object_get_array_member (json_node_get_object (back), "all");
  fuzz_assert (all != NULL && json_array_get_length (all) == n);
  for (guint i = 0; i < n; i++)
    if (fuzz_is_clean_text (strings[i]))
      fuzz_assert (g_strcmp0 (json_array_get_string_element (all, i), strings[i]) == 0);
}

static const char *
piece (char **parts, guint i)
{
  return i < g_strv_length (parts) ? parts[i] : NULL;
}

static void
check_classify (char **parts)
{
  VsmAssessment a = { 0 };
  g_autoptr (VsmDevice) d = g_new0 (VsmDevice, 1);
  g_autoptr (VsmClassification) cls = NULL;
  g_autoptr (JsonNode) node = NULL, back = NULL;
  g_autofree char *text = NULL;
  JsonObject *fs;
  const char *label = piece (parts, 0);

  d->devnode = g_strdup ("/dev/sdz1");
  d->disk_node = g_strdup ("/dev/sdz");
  d->disk_name = g_strdup ("sdz");
  d->bdi = g_strdup ("8:240");
  d->is_partition = TRUE;
  d->n_partitions = 1;
  d->transport = VSM_TRANSPORT_USB_STORAGE;
  d->usb = g_new0 (VsmUsbInfo, 1);
  d->usb->driver = g_strdup ("usb-storage");
  d->usb->vendor_id = g_strdup ("0781");
  d->usb->product_id = g_strdup ("5581");
  d->usb->speed_mbps = 480;
  d->usb->serial = g_strdup (piece (parts, 4));
  d->usb->manufacturer = g_strdup (piece (parts, 5));
  d->usb->product = g_strdup (piece (parts, 6));
  d->removable = TRUE;
  d->size_bytes = G_GUINT64_CONSTANT (8) << 30;
  d->vendor = g_strdup (piece (parts, 2));
  d->model = g_strdup (piece (parts, 3));
  d->n_luns = 1;
  d->fs_type = g_strdup ("vfat");
  d->fs_label = g_strdup (label);
  d->fs_uuid = g_strdup (piece (parts, 1));

  cls = vsm_classify (d);
  a.device = d;
  a.classification = cls;
  node = vsm_json_classify (&a);
  text = vsm_json_to_string (node);
  back = parse_back (text);
  fuzz_assert (JSON_NODE_HOLDS_OBJECT (back));
  fs = json_object_get_object_member (json_node_get_object (back), "filesystem");
  fuzz_assert (fs != NULL);
  if (label != NULL && fuzz_is_clean_text (label))
    fuzz_assert (g_strcmp0 (json_object_get_string_member (fs, "label"), label) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_auto (GStrv) parts = NULL;

  if (size < 1 || size > 16384)
    return 0;
  parts = fuzz_split (data + 1, size - 1, MAX_STRINGS);
  if ((data[0] & 1) == 0)
    check_builder (parts);
  else
    check_classify (parts);
  return 0;
}
