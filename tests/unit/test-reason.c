/* test-reason.c - reasons recorded in no language, shown in the reader's
 *
 * The build's German catalogue (LOCALE_DIR) stands in for an installed one.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm.h"
#include "vsm-drive-history.h"
#include "vsm-plan.h"
#include "vsm-reason.h"
#include "vsm-state.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <string.h>

#define STICK_WHY                                                                                  \
  "cheap sticks stall when close() races the flusher; a cap bounds the data at risk without flush"

/* LANGUAGE is read again after setlocale () */
static void
in_language (const char *lang)
{
  g_setenv ("LANGUAGE", lang, TRUE);
  setlocale (LC_ALL, "C.UTF-8");
}

static VsmDevice *
stick (void)
{
  VsmDevice *d = g_new0 (VsmDevice, 1);

  d->devnode = g_strdup ("/dev/sdz1");
  d->disk_node = g_strdup ("/dev/sdz");
  d->disk_name = g_strdup ("sdz");
  d->bdi = g_strdup ("8:240");
  d->transport = VSM_TRANSPORT_USB_STORAGE;
  d->usb = g_new0 (VsmUsbInfo, 1);
  d->usb->driver = g_strdup ("usb-storage");
  d->usb->vendor_id = g_strdup ("abcd");
  d->usb->product_id = g_strdup ("1234");
  d->usb->speed_mbps = 480;
  d->removable = TRUE;
  d->rotational = TRUE;
  d->size_bytes = 16000000000;
  d->n_partitions = 1;
  d->is_partition = TRUE;
  d->fs_type = g_strdup ("vfat");
  return d;
}

static VsmKernel *
kernel (void)
{
  VsmKernel *k = g_new0 (VsmKernel, 1);

  k->release = g_strdup ("6.12.57+deb12-amd64");
  k->bdi_knobs = g_ptr_array_new_with_free_func (g_free);
  k->has_strict_limit = k->has_max_bytes = TRUE;
  k->flush_fix = VSM_FLUSH_FIX_PRESENT;
  k->flush_fix_reason = g_strdup ("test");
  return k;
}

/* a plan computed now (in the current language), as vfat-smart apply
 * records it */
static char *
record_plan (void)
{
  g_autoptr (VsmDevice) d = stick ();
  g_autoptr (VsmKernel) k = kernel ();
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmClassification) c = vsm_classify (d);
  g_autoptr (VsmPlan) plan = vsm_plan_compute (d, c, p, k, NULL);
  g_autoptr (VsmState) s = vsm_state_new ("8:240");

  for (guint i = 0; i < plan->reasons->len; i++)
    g_ptr_array_add (s->reasons, vsm_reason_ref (g_ptr_array_index (plan->reasons, i)));
  return vsm_state_to_data (s, NULL);
}

static VsmState *
load (const char *data)
{
  g_autoptr (GError) error = NULL;
  VsmState *s = vsm_state_from_data (data, strlen (data), &error);

  g_assert_no_error (error);
  return s;
}

/* the reason whose English text starts with prefix, shown now */
static char *
shown (VsmState *s, const char *prefix)
{
  for (guint i = 0; i < s->reasons->len; i++)
    {
      VsmReason *r = g_ptr_array_index (s->reasons, i);
      if (g_str_has_prefix (r->text, prefix))
        return vsm_reason_to_display (r);
    }
  g_assert_not_reached ();
}

static void
assert_english (VsmState *s)
{
  g_autofree char *cap = shown (s, "dirty cap ");
  g_autofree char *why = shown (s, "usb-stick: ");

  g_assert_cmpstr (why, ==, "usb-stick: " STICK_WHY);
  /* GLib's sizes have a no-break space before the unit */
  g_assert_true (g_str_has_prefix (cap, "dirty cap 9.0"));
  g_assert_nonnull (strstr (cap, " = 20.0 MB/s (starting value for usb-stick) x 0.5 s while "
                                 "files are written, what a pull loses of many files (x 2 s "
                                 "while the daemon paces one big file of a measured drive), "
                                 "clamped to "));
  for (guint i = 0; i < s->reasons->len; i++)
    {
      VsmReason *r = g_ptr_array_index (s->reasons, i);
      g_autofree char *text = vsm_reason_to_display (r);
      g_assert_cmpstr (text, ==, r->text);
    }
}

static void
assert_german (VsmState *s)
{
  g_autofree char *cap = shown (s, "dirty cap ");
  g_autofree char *why = shown (s, "usb-stick: ");
  g_autofree char *expect_why = g_strdup_printf ("usb-stick: %s", _ (STICK_WHY));
  g_autofree char *expect_source = g_strdup_printf (_ ("starting value for %s"), "usb-stick");

  /* the catalogue is there */
  g_assert_cmpstr (_ (STICK_WHY), !=, STICK_WHY);
  g_assert_cmpstr (why, ==, expect_why);
  g_assert_true (g_str_has_prefix (cap, "Obergrenze 9.0"));
  g_assert_nonnull (strstr (cap, "(x 2 s, während der Dienst"));
  g_assert_nonnull (strstr (cap, " = 20.0 MB/s ("));
  g_assert_nonnull (strstr (cap, expect_source));
}

/* recorded by a German admin's apply, shown to someone in C: English; the
 * record's "reasons" (for older readers) is English too */
static void
test_german_record_shown_in_c (void)
{
  g_autofree char *data = NULL;
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_auto (GStrv) texts = NULL;

  in_language ("de");
  data = record_plan ();
  in_language ("C");
  s = load (data);
  assert_english (s);
  g_assert_true (g_key_file_load_from_data (kf, data, -1, G_KEY_FILE_NONE, NULL));
  texts = g_key_file_get_string_list (kf, "disk", "reasons", NULL, NULL);
  g_assert_nonnull (texts);
  g_assert_true (g_strv_contains ((const char *const *)texts, "usb-stick: " STICK_WHY));
}

/* recorded in C (the udev helper), shown to someone in German: German */
static void
test_c_record_shown_in_german (void)
{
  g_autofree char *data = NULL;
  g_autoptr (VsmState) s = NULL;

  in_language ("C");
  data = record_plan ();
  in_language ("de");
  s = load (data);
  assert_german (s);
  in_language ("C");
}

/* a bandwidth source given as a serialized reason (what the drive's
 * history taught) is translated inside the cap's reason */
static void
test_nested_source (void)
{
  g_autoptr (VsmDevice) d = stick ();
  g_autoptr (VsmKernel) k = kernel ();
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmClassification) c = vsm_classify (d);
  g_autoptr (VsmReason) learned = vsm_reason_new ("learned on this drive (%s)", "3 mounts");
  g_autofree char *source = vsm_reason_serialize (learned);
  VsmOverrides o = { .bandwidth = 10000000, .bandwidth_source = source };
  g_autoptr (VsmPlan) plan = vsm_plan_compute (d, c, p, k, &o);
  g_autofree char *cap = NULL;
  g_autofree char *expect = NULL;

  g_assert_cmpstr (plan->bandwidth_source, ==, "learned on this drive (3 mounts)");
  in_language ("de");
  for (guint i = 0; i < plan->reasons->len; i++)
    if (g_str_has_prefix (((VsmReason *)g_ptr_array_index (plan->reasons, i))->text, "dirty cap"))
      cap = vsm_reason_to_display (g_ptr_array_index (plan->reasons, i));
  expect = g_strdup_printf (_ ("learned on this drive (%s)"), "3 mounts");
  g_assert_cmpstr (expect, !=, "learned on this drive (3 mounts)");
  g_assert_nonnull (cap);
  g_assert_nonnull (strstr (cap, expect));
  in_language ("C");
}

/* a record from before the ids: its texts as they are, in any language */
static void
test_old_record (void)
{
  const char *data = "[disk]\nbdi=8:240\nreasons=usb-stick: alt\\;text;zweiter Grund;\n";
  g_autoptr (VsmState) s = NULL;
  g_autofree char *first = NULL;

  in_language ("de");
  s = load (data);
  g_assert_cmpuint (s->reasons->len, ==, 2);
  first = vsm_reason_to_display (g_ptr_array_index (s->reasons, 0));
  g_assert_cmpstr (first, ==, "usb-stick: alt;text");
  in_language ("C");
}

/* ids that do not read (or do not fit their msgid): the English texts */
static void
test_bad_ids (void)
{
  const char *const bad[] = {
    "{%s and %s|one}",
    "{%s|one|two}",
    "{%n|x}",
    "{%s|{%d|x}",
    "{%s|x}}",
    "{%1$s %s|a|b}",
    "{%s|{%s|{%s|{%s|{%s|{%s|{%s|{%s|{%s|deep}}}}}}}}}",
    "{|x}",
    "a|b",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *data = NULL;
      g_autoptr (VsmState) s = NULL;
      g_autofree char *escaped = g_strescape (bad[i], NULL);
      g_autoptr (GString) key = g_string_new (NULL);

      g_assert_null (vsm_reason_parse (bad[i]));
      /* in the key file: ';' and '\\' escaped */
      g_string_append (key, escaped);
      g_string_replace (key, ";", "\\;", 0);
      data = g_strdup_printf ("[disk]\nbdi=8:240\nreasons=kept\nreason-ids=%s\n", key->str);
      s = load (data);
      g_assert_cmpuint (s->reasons->len, ==, 1);
      g_assert_cmpstr (((VsmReason *)g_ptr_array_index (s->reasons, 0))->text, ==, "kept");
    }
}

/* arguments with the escape characters, nested messages, numbers in C */
static void
test_roundtrip (void)
{
  g_autoptr (VsmReason) r =
    vsm_reason_new ("%s, %u, %.1f, %" G_GUINT64_FORMAT ", %g%%, %-6s|", "a|b{c}\\d;e", 7u, 2.25,
                    G_GUINT64_CONSTANT (1) << 40, 0.5, "x");
  g_autoptr (VsmReason) back = NULL;
  g_autofree char *line = NULL;

  vsm_reason_set_arg (r, 5, vsm_reason_new ("n=%d", -3));
  g_assert_cmpstr (r->text, ==, "a|b{c}\\d;e, 7, 2.2, 1099511627776, 0.5%, n=-3  |");
  line = vsm_reason_serialize (r);
  back = vsm_reason_parse (line);
  g_assert_nonnull (back);
  g_assert_cmpstr (back->text, ==, r->text);
  g_assert_cmpstr (back->msgid, ==, r->msgid);
  g_assert_cmpuint (back->args->len, ==, 6);
  g_assert_cmpstr (((VsmReason *)g_ptr_array_index (back->args, 5))->msgid, ==, "n=%d");
}

/* positional conversions take their argument; a missing one is refused */
static void
test_format (void)
{
  const char *args[] = { "eins", "zwei" };
  g_autofree char *swapped = vsm_reason_format ("%2$s before %1$s", args, 2);
  g_autofree char *padded = vsm_reason_format ("[%-6s][%6s] 100%%", args, 2);
  g_autofree char *wide = vsm_reason_format ("[%-6s]", (const char *[]){ "äöü" }, 1);

  g_assert_cmpstr (swapped, ==, "zwei before eins");
  g_assert_cmpstr (padded, ==, "[eins  ][  zwei] 100%");
  g_assert_cmpstr (wide, ==, "[äöü   ]");
  g_assert_null (vsm_reason_format ("%3$s", args, 2));
  g_assert_null (vsm_reason_format ("%s %1$s", args, 2));
}

/* what a drive's history says, in the reader's language: status shows it
 * beside German labels (the English describe stays for logs and records) */
static void
test_history_in_german (void)
{
  g_autoptr (VsmDriveHistory) h = g_new0 (VsmDriveHistory, 1);
  VsmDriveMount m = { 0, 20 * 1000 * 1000, 0, 0, -1 };
  g_autofree char *de = NULL, *c = NULL, *none_de = NULL, *logged = NULL;

  h->identity = g_strdup ("usb:0781:5581:X");
  h->mounts = g_array_new (FALSE, TRUE, sizeof (VsmDriveMount));
  g_array_append_val (h->mounts, m);
  g_array_append_val (h->mounts, m);
  /* English first: gettext keeps what it found, not what it did not */
  in_language ("C");
  c = vsm_drive_history_to_display (h);
  in_language ("de");
  de = vsm_drive_history_to_display (h);
  logged = vsm_drive_history_describe (h);
  in_language ("C");
  g_assert_true (g_str_has_prefix (de, "letzte 2 Einhängungen: "));
  g_assert_true (g_str_has_prefix (c, "last 2 mounts: "));
  g_assert_true (g_str_has_prefix (logged, "last 2 mounts: "));
  g_array_set_size (h->mounts, 0);
  m.bandwidth = 0;
  g_array_append_val (h->mounts, m);
  in_language ("de");
  none_de = vsm_drive_history_to_display (h);
  in_language ("C");
  g_assert_cmpstr (none_de, ==, "1 Einhängung, nichts gemessen");
}

int
main (int argc, char **argv)
{
  bindtextdomain (GETTEXT_PACKAGE, LOCALE_DIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/reason/german-record-shown-in-c", test_german_record_shown_in_c);
  g_test_add_func ("/reason/c-record-shown-in-german", test_c_record_shown_in_german);
  g_test_add_func ("/reason/nested-source", test_nested_source);
  g_test_add_func ("/reason/old-record", test_old_record);
  g_test_add_func ("/reason/bad-ids", test_bad_ids);
  g_test_add_func ("/reason/roundtrip", test_roundtrip);
  g_test_add_func ("/reason/format", test_format);
  g_test_add_func ("/reason/history-in-german", test_history_in_german);
  return g_test_run ();
}
