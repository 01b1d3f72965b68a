/* test-probe.c - the flush-fix probe: trace parsing, image, cache, table
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * `test-probe live [TRACEFS]` (root) runs the real probe once and prints its answer:
 * the lab's kernel/guest-probe-check.sh uses that.
 */
#include "config.h"

#include "vsm-paths.h"
#include "vsm-probe.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define SINGLE(pid, ino, tw)                                                                       \
  "          probe-" #pid "  [001] .....   101.000001: writeback_single_inode_start: bdi 7:0: "    \
  "ino=" #ino " state=I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_DIRTY_PAGES|I_SYNC dirtied_when=4294 "       \
  "age=0 index=0 to_write=" tw " wrote=0 cgroup_ino=1\n"
#define WRITE(pid, ino, sm)                                                                        \
  "          probe-" #pid "  [001] .....   101.000002: writeback_write_inode_start: bdi 7:0: "     \
  "ino=" #ino " sync_mode=" #sm " cgroup_ino=1\n"
#define LMAX "9223372036854775807"

static void
parse (const char *trace, guint64 ino, int pid, VsmFlushFix want_fix, VsmFlushFixVariant want_var,
       gboolean want_ok)
{
  VsmFlushFix fix;
  VsmFlushFixVariant var;
  g_autofree char *ev = NULL;
  gboolean ok = vsm_probe_parse_trace (trace, ino, pid, &fix, &var, &ev);

  g_assert_cmpint (ok, ==, want_ok);
  g_assert_cmpint (fix, ==, want_fix);
  g_assert_cmpint (var, ==, want_var);
  g_assert_nonnull (ev);
}

static void
test_parse_fixed (void)
{
  /* write_inode_now (inode, 0): one pass, the inode written with WB_SYNC_NONE */
  parse ("# tracer: nop\n" SINGLE (4242, 17, LMAX) WRITE (4242, 17, 0), 17, 4242,
         VSM_FLUSH_FIX_PRESENT, VSM_FLUSH_FIX_VARIANT_NOWAIT, TRUE);
  /* write_inode_now (inode, 1) */
  parse (SINGLE (4242, 17, LMAX) WRITE (4242, 17, 1), 17, 4242, VSM_FLUSH_FIX_PRESENT,
         VSM_FLUSH_FIX_VARIANT_WAIT, TRUE);
  /* fixed, but the inode had no dirty metadata: variant unknown */
  parse (SINGLE (4242, 17, LMAX), 17, 4242, VSM_FLUSH_FIX_PRESENT, VSM_FLUSH_FIX_VARIANT_UNKNOWN,
         TRUE);
}

static void
test_parse_old (void)
{
  /* sync_inode_metadata (inode, 0): to_write=0, then filemap_fdatawrite() untraced */
  parse (SINGLE (4242, 17, "0") WRITE (4242, 17, 0), 17, 4242, VSM_FLUSH_FIX_ABSENT,
         VSM_FLUSH_FIX_VARIANT_UNKNOWN, TRUE);
}

static void
test_parse_filters (void)
{
  /* another task's LONG_MAX (a sync(2) elsewhere) does not count */
  parse (SINGLE (999, 17, LMAX) SINGLE (4242, 17, "0"), 17, 4242, VSM_FLUSH_FIX_ABSENT,
         VSM_FLUSH_FIX_VARIANT_UNKNOWN, TRUE);
  /* another inode does not count */
  parse (SINGLE (4242, 18, LMAX), 17, 4242, VSM_FLUSH_FIX_UNKNOWN, VSM_FLUSH_FIX_VARIANT_UNKNOWN,
         FALSE);
  /* a comm with dashes */
  parse ("  vfat-smart-probe-4242  [000] ..... 1.0: writeback_single_inode_start: bdi 7:0: ino=17 "
         "state=I_SYNC dirtied_when=1 age=0 index=0 to_write=" LMAX " wrote=0 cgroup_ino=1\n",
         17, 4242, VSM_FLUSH_FIX_PRESENT, VSM_FLUSH_FIX_VARIANT_UNKNOWN, TRUE);
  /* nothing at all */
  parse ("", 17, 4242, VSM_FLUSH_FIX_UNKNOWN, VSM_FLUSH_FIX_VARIANT_UNKNOWN, FALSE);
  parse (NULL, 17, 4242, VSM_FLUSH_FIX_UNKNOWN, VSM_FLUSH_FIX_VARIANT_UNKNOWN, FALSE);
  /* neither old nor fixed: told, but unknown */
  parse (SINGLE (4242, 17, "1024"), 17, 4242, VSM_FLUSH_FIX_UNKNOWN, VSM_FLUSH_FIX_VARIANT_UNKNOWN,
         TRUE);
}

static void
test_image (void)
{
  g_autoptr (GBytes) img = vsm_probe_fat12_image ();
  const guint8 *b = g_bytes_get_data (img, NULL);

  g_assert_cmpuint (g_bytes_get_size (img), ==, 1474560);
  g_assert_cmpuint (b[510], ==, 0x55);
  g_assert_cmpuint (b[511], ==, 0xAA);
  g_assert_cmpmem (b + 54, 8, "FAT12   ", 8);
  g_assert_cmpuint (b[512], ==, 0xF0);      /* FAT 1 */
  g_assert_cmpuint (b[512 * 10], ==, 0xF0); /* FAT 2 */
  g_assert_cmpuint (b[512 * 19], ==, 0);    /* empty root directory */
}

static void
test_cache (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-probe-XXXXXX", NULL);
  VsmProbeResult r = { VSM_FLUSH_FIX_PRESENT,
                       VSM_FLUSH_FIX_VARIANT_WAIT,
                       (char *)"6.12.117+deb12-amd64",
                       (char *)"0123456789ABCDEF0123456",
                       (char *)"seen",
                       1700000000000000,
                       FALSE };
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmProbeResult) back = NULL;
  g_autofree char *file = NULL;

  /* written under a umask that lets the group write: still read back (a
   * file of the state directory is trusted only when nobody else can
   * write it) */
  mode_t old_mask = umask (002);
  gboolean stored = vsm_probe_cache_store (dir, &r, &error);

  umask (old_mask);
  g_assert_true (stored);
  g_assert_no_error (error);
  back = vsm_probe_cache_load (dir, r.release, r.srcversion);
  g_assert_nonnull (back);
  g_assert_true (back->from_cache);
  g_assert_cmpint (back->fix, ==, VSM_FLUSH_FIX_PRESENT);
  g_assert_cmpint (back->variant, ==, VSM_FLUSH_FIX_VARIANT_WAIT);
  g_assert_cmpstr (back->evidence, ==, "seen");
  g_assert_cmpint (back->probed_at, ==, r.probed_at);
  /* another module build or kernel: no answer from the cache */
  g_assert_null (vsm_probe_cache_load (dir, r.release, "FFFFFFFFFFFFFFFFFFFFFFF"));
  g_assert_null (vsm_probe_cache_load (dir, "6.1.0-57-amd64", r.srcversion));
  g_assert_null (vsm_probe_cache_load (dir, r.release, NULL));
  file = g_build_filename (dir, "flush-fix-probe.ini", NULL);
  g_unlink (file);
  g_rmdir (dir);
}

static void
test_known (void)
{
  g_assert_cmpstr (vsm_flush_fix_variant_to_string (VSM_FLUSH_FIX_VARIANT_NOWAIT), ==, "wait0");
  g_assert_cmpstr (vsm_flush_fix_variant_to_string (VSM_FLUSH_FIX_VARIANT_WAIT), ==, "wait1");
}

static void
put_file (const char *dir, const char *name, const char *data, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, data, (gssize)len, NULL));
}

/* the cache key: srcversion, else the build-id note, else taint/size/address */
static void
test_key (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-probe-key-XXXXXX", NULL);
  /* namesz 4, descsz 4, type 3 (NT_GNU_BUILD_ID), "GNU\0", desc */
  static const char note[] = { 4,   0, 0,          0,          4,          0,         0,
                               0,   3, 0,          0,          0,          'G',       'N',
                               'U', 0, (char)0xde, (char)0xad, (char)0xbe, (char)0xef };
  g_autofree char *release = NULL, *key = NULL, *key2 = NULL;
  static const char *const made[] = { "module/fat/coresize",
                                      "module/fat/taint",
                                      "module/fat/sections/.text",
                                      "module/fat/notes/.note.gnu.build-id",
                                      "module/fat/srcversion",
                                      "module/fat/sections",
                                      "module/fat/notes",
                                      "module/fat",
                                      "module",
                                      "" };

  vsm_paths_set_root (VSM_ROOT_SYSFS, dir);
  put_file (dir, "module/fat/coresize", "90112\n", 6);
  put_file (dir, "module/fat/taint", "OE\n", 3);
  put_file (dir, "module/fat/sections/.text", "0xffffffffc07d9000\n", 19);
  vsm_probe_current_key (&release, &key);
  g_assert_cmpstr (key, ==, "taint=OE,coresize=90112,text=0xffffffffc07d9000");
  put_file (dir, "module/fat/notes/.note.gnu.build-id", note, sizeof note);
  g_clear_pointer (&release, g_free);
  vsm_probe_current_key (&release, &key2);
  g_assert_cmpstr (key2, ==, "build-id=deadbeef");
  put_file (dir, "module/fat/srcversion", "0123ABC\n", 8);
  g_clear_pointer (&release, g_free);
  g_clear_pointer (&key, g_free);
  vsm_probe_current_key (&release, &key);
  g_assert_cmpstr (key, ==, "srcversion=0123ABC");
  vsm_paths_set_root (VSM_ROOT_SYSFS, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (made); i++)
    {
      g_autofree char *path = g_build_filename (dir, made[i], NULL);
      g_assert_cmpint (g_remove (path), ==, 0);
    }
}

static int
live (const char *tracefs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmProbeResult) r = vsm_probe_flush_fix_run (tracefs, "/run/vfat-smart", &error);

  if (r == NULL)
    {
      printf ("probe: error: %s\n", error->message);
      return 1;
    }
  printf ("probe: fix=%s variant=%s srcversion=%s evidence=%s\n", vsm_flush_fix_to_string (r->fix),
          vsm_flush_fix_variant_to_string (r->variant), r->srcversion ? r->srcversion : "-",
          r->evidence);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "live") == 0)
    return live (argc >= 3 ? argv[2] : NULL);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/probe/parse/fixed", test_parse_fixed);
  g_test_add_func ("/probe/parse/old", test_parse_old);
  g_test_add_func ("/probe/parse/filters", test_parse_filters);
  g_test_add_func ("/probe/image", test_image);
  g_test_add_func ("/probe/cache", test_cache);
  g_test_add_func ("/probe/known", test_known);
  g_test_add_func ("/probe/key", test_key);
  return g_test_run ();
}
