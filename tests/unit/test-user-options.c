/* test-user-options.c - per-drive options over the admin's policy: the
 * layering and origins, locks, allow-user-tuning, clamps, and the kept
 * file's parser on real, truncated and hostile input
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-paths.h"
#include "vsm-user-options.h"
#include "vsm-util.h"

#include <glib/gstdio.h>
#include <string.h>

static GVariant *
opts (const char *text)
{
  g_autoptr (GError) error = NULL;
  GVariant *v = g_variant_parse (G_VARIANT_TYPE_VARDICT, text, NULL, NULL, &error);
  g_assert_no_error (error);
  return v;
}

/* an admin's policy: max-dirty-seconds locked at 4, user bound 3 */
static VsmPolicy *
admin_policy (gboolean allow)
{
  VsmPolicy *p = vsm_policy_new_default ();
  g_assert_true (vsm_policy_set (p, "max-dirty-seconds", g_variant_new_double (4.0)));
  vsm_policy_set_origin (p, "max-dirty-seconds", "locked");
  g_assert_true (vsm_policy_set (p, "user-max-dirty-seconds", g_variant_new_double (3.0)));
  vsm_policy_set_origin (p, "user-max-dirty-seconds", "admin");
  p->allow_user_tuning = allow;
  return p;
}

static void
test_user_layering (void)
{
  g_autoptr (VsmPolicy) admin = vsm_policy_new_default ();
  g_autoptr (VsmPolicy) eff = vsm_policy_new_default ();
  g_autoptr (VsmUserOptions) o = vsm_user_options_new ();
  g_autoptr (GVariant) v = opts ("{'max-dirty-seconds': <100.0>}");
  g_autoptr (GVariant) w =
    opts ("{'flush-mode': <'sync'>, 'class-flush-modes': <{'usb-hdd': 'off'}>, "
          "'ignore-devices': <['ABCD-1234']>}");
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;

  g_assert_true (vsm_policy_set (admin, "user-max-dirty-seconds", g_variant_new_double (5.0)));
  g_assert_true (vsm_policy_set (eff, "user-max-dirty-seconds", g_variant_new_double (5.0)));
  g_strfreev (eff->ignore_devices);
  eff->ignore_devices = g_strsplit ("0781:5581", ",", -1);
  /* out of the schema's range: refused, nothing kept */
  g_assert_false (vsm_user_options_update (o, v, admin, TRUE, 1000, notes, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT);
  g_assert_true (vsm_user_options_is_empty (o));
  g_clear_pointer (&v, g_variant_unref);
  g_clear_error (&error);
  /* within it, above the admin's bound: lowered, with a note */
  v = opts ("{'max-dirty-seconds': <30.0>}");
  g_assert_true (vsm_user_options_update (o, v, admin, TRUE, 1000, notes, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (notes->len, ==, 1);
  g_assert_true (vsm_user_options_update (o, w, admin, TRUE, 1000, notes, &error));
  g_assert_cmpstr (o->source, ==, "user");
  vsm_user_options_apply (o, eff);
  g_assert_cmpfloat (eff->max_dirty_seconds, ==, 5.0);
  g_assert_cmpint (eff->flush_mode, ==, VSM_FLUSH_MODE_SYNC);
  g_assert_cmpint (eff->class_mode[VSM_CLASS_USB_HDD], ==, VSM_FLUSH_MODE_OFF);
  g_assert_cmpstr (vsm_policy_get_origin (eff, "flush-mode"), ==, "user");
  g_assert_cmpstr (vsm_policy_get_origin (eff, "dirty-cap-max-bytes"), ==, "built-in");
  /* a user's ignore-devices adds to the admin's */
  g_assert_cmpuint (g_strv_length (eff->ignore_devices), ==, 2);
  g_assert_cmpstr (eff->ignore_devices[0], ==, "0781:5581");
  g_assert_cmpstr (eff->ignore_devices[1], ==, "ABCD-1234");
}

static void
test_locks_and_forbidden (void)
{
  g_autoptr (VsmPolicy) admin = admin_policy (TRUE);
  g_autoptr (VsmPolicy) forbid = admin_policy (FALSE);
  g_autoptr (VsmUserOptions) o = vsm_user_options_new ();
  g_autoptr (GVariant) locked = opts ("{'max-dirty-seconds': <1.0>}");
  g_autoptr (GVariant) mode = opts ("{'flush-mode': <'off'>}");
  g_autoptr (GVariant) global = opts ("{'allow-global-knobs': <true>}");
  g_autoptr (GError) error = NULL;

  g_assert_false (vsm_user_options_update (o, locked, admin, TRUE, 1000, NULL, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_PERMISSION);
  g_clear_error (&error);
  /* an admin (root, org.vfatsmart.manage) is not bound by the locks */
  g_assert_true (vsm_user_options_update (o, locked, admin, FALSE, 0, NULL, &error));
  g_assert_cmpstr (o->source, ==, "admin");
  g_assert_false (vsm_user_options_update (o, mode, forbid, TRUE, 1000, NULL, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_PERMISSION);
  g_assert_nonnull (strstr (error->message, "allow-user-tuning"));
  g_clear_error (&error);
  /* machine-wide keys are no one's through SetOptions */
  g_assert_false (vsm_user_options_update (o, global, admin, FALSE, 0, NULL, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT);
}

/* a user's options set before the admin locked a key or forbade tuning
 * count for nothing then */
static void
test_apply_rechecks (void)
{
  g_autoptr (VsmPolicy) open = vsm_policy_new_default ();
  g_autoptr (VsmPolicy) locked = admin_policy (TRUE);
  g_autoptr (VsmPolicy) forbid = vsm_policy_new_default ();
  g_autoptr (VsmUserOptions) o = vsm_user_options_new ();
  g_autoptr (GVariant) v = opts ("{'max-dirty-seconds': <1.0>, 'flush-mode': <'sync'>}");

  g_assert_true (vsm_user_options_update (o, v, open, TRUE, 1000, NULL, NULL));
  vsm_user_options_apply (o, locked);
  g_assert_cmpfloat (locked->max_dirty_seconds, ==, 4.0);
  g_assert_cmpstr (vsm_policy_get_origin (locked, "max-dirty-seconds"), ==, "locked");
  g_assert_cmpint (locked->flush_mode, ==, VSM_FLUSH_MODE_SYNC);
  forbid->allow_user_tuning = FALSE;
  vsm_user_options_apply (o, forbid);
  g_assert_cmpfloat (forbid->max_dirty_seconds, ==, 2.0);
  g_assert_cmpint (forbid->flush_mode, ==, VSM_FLUSH_MODE_AUTO);
}

static void
test_file_round_trip_and_hostile (void)
{
  static const char *const bad[] = {
    "",
    "[options]\nsource=user\nuid=1000\n",                 /* no mount */
    "[options]\nsource=root\nuid=0\nmount=uid=0\n",       /* unknown source */
    "[options]\nsource=user\nuid=-1\nmount=uid=0\n",      /* bad uid */
    "[options]\nsource=user\nuid=99999999999\nmount=x\n", /* uid too big */
    "[options]\nsource=user\nuid=1\nmount=x\n[values]\nmax-dirty-seconds=1000.0\n",
    "[options]\nsource=user\nuid=1\nmount=x\n[values]\nallow-global-knobs=true\n",
    "[options]\nsource=user\nuid=1\nmount=x\n[values]\nflush-mode='fast'\n",
    "[options]\nsource=user\nuid=1\nmount=x\n[values]\nflush-mode=<<<\n",
    "[options\nsource=user",
  };
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmUserOptions) o = vsm_user_options_new ();
  g_autoptr (VsmUserOptions) back = NULL;
  g_autoptr (GVariant) v = opts ("{'max-dirty-seconds': <1.5>, 'ignore-devices': <['a', 'b']>}");
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (vsm_user_options_update (o, v, p, TRUE, 1000, NULL, NULL));
  o->mount = vsm_user_options_mount_key (1000, (const char *const[]){ "/media/u/STICK", NULL });
  g_assert_cmpstr (o->mount, ==, "uid=1000;/media/u/STICK");
  /* whatever order udisks lists a drive's mount points in */
  {
    g_autofree char *ab =
      vsm_user_options_mount_key (1000, (const char *const[]){ "/b", "/a", NULL });
    g_autofree char *ba =
      vsm_user_options_mount_key (1000, (const char *const[]){ "/a", "/b", NULL });
    g_assert_cmpstr (ab, ==, "uid=1000;/a;/b");
    g_assert_cmpstr (ba, ==, ab);
  }
  data = vsm_user_options_to_data (o, &len);
  back = vsm_user_options_from_data (data, len, NULL);
  g_assert_nonnull (back);
  g_assert_cmpstr (back->mount, ==, o->mount);
  g_assert_cmpuint (back->uid, ==, 1000);
  g_assert_cmpstr (back->source, ==, "user");
  g_assert_cmpuint (g_hash_table_size (back->values), ==, 2);
  g_assert_true (g_variant_equal (g_hash_table_lookup (back->values, "max-dirty-seconds"),
                                  g_hash_table_lookup (o->values, "max-dirty-seconds")));
  /* truncated anywhere: a good prefix or an error, never a crash */
  for (gsize i = 0; i < len; i++)
    {
      g_autoptr (VsmUserOptions) t = vsm_user_options_from_data (data, i, NULL);
      g_assert_true (t == NULL || t->mount != NULL);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (VsmUserOptions) b = vsm_user_options_from_data (bad[i], strlen (bad[i]), &error);
      g_assert_null (b);
      g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
    }
}

static void
test_file_in_state_dir (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-options-XXXXXX", NULL);
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmUserOptions) o = vsm_user_options_new ();
  g_autoptr (VsmUserOptions) back = NULL;
  g_autoptr (GVariant) v = opts ("{'flush-mode': <'dirty-cap'>}");
  g_autoptr (GError) error = NULL;
  g_autofree char *file = g_build_filename (dir, "8-32.options", NULL);

  vsm_paths_set_root (VSM_ROOT_STATE, dir);
  back = vsm_user_options_load ("8:32", &error);
  g_assert_null (back);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
  g_clear_error (&error);
  g_assert_true (vsm_user_options_update (o, v, p, FALSE, 0, NULL, NULL));
  o->mount = g_strdup ("uid=0");
  g_assert_true (vsm_user_options_save ("8:32", o, &error));
  g_assert_true (g_file_test (file, G_FILE_TEST_IS_REGULAR));
  back = vsm_user_options_load ("8:32", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->source, ==, "admin");
  g_assert_false (vsm_user_options_save ("../x", o, NULL));
  g_assert_true (vsm_user_options_remove ("8:32", &error));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  g_assert_true (vsm_user_options_remove ("8:32", &error)); /* gone already: fine */
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/user-options/layering", test_user_layering);
  g_test_add_func ("/user-options/locks-and-forbidden", test_locks_and_forbidden);
  g_test_add_func ("/user-options/apply-rechecks", test_apply_rechecks);
  g_test_add_func ("/user-options/file", test_file_round_trip_and_hostile);
  g_test_add_func ("/user-options/state-dir", test_file_in_state_dir);
  return g_test_run ();
}
