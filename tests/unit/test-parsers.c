/* test-parsers.c - every parser on real, truncated, empty and garbage input
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-display.h"
#include "vsm-history.h"
#include "vsm-json.h"
#include "vsm-knobs.h"
#include "vsm-mount-helper.h"
#include "vsm-mount.h"
#include "vsm-paths.h"
#include "vsm-rundir.h"
#include "vsm-policy.h"
#include "vsm-state.h"
#include "vsm-stats.h"
#include "vsm-util.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* /sys/block/sdb/stat after a 256 MiB copy, Linux 6.12 (17 fields) */
static const char stat_612[] =
  "     189        0     9746      120     2115    61293   524616   183745        0    65240   "
  "183866        0        0        0        0       13       12\n";
static const char stat_61_before[] =
  "     189        0     9746      120       15        0      120       40        0       30      "
  "160        0        0        0        0        2        1\n";
static const char stat_11[] = "1 2 3 4 5 6 7 8 9 10 11";

static void
test_disk_stat (void)
{
  VsmDiskStat a, b;
  VsmIoDelta d;

  g_assert_true (vsm_disk_stat_parse (stat_612, &b));
  g_assert_cmpuint (b.n_fields, ==, 17);
  g_assert_cmpuint (b.field[4], ==, 2115);
  g_assert_cmpuint (b.field[15], ==, 13);
  g_assert_true (vsm_disk_stat_parse (stat_61_before, &a));

  vsm_disk_stat_delta (&a, &b, &d);
  g_assert_true (d.valid);
  g_assert_true (d.has_flush);
  g_assert_cmpuint (d.write_ios, ==, 2100);
  g_assert_cmpuint (d.write_bytes, ==, (524616 - 120) * 512);
  g_assert_cmpuint (d.flush_ios, ==, 11);
  g_assert_cmpuint (d.busy_ms, ==, 65210);
  g_assert_cmpfloat_with_epsilon (d.avg_write_request_bytes, (524496.0 * 512) / 2100, 0.01);

  /* counters going backwards: another device got the same name */
  vsm_disk_stat_delta (&b, &a, &d);
  g_assert_false (d.valid);

  /* 11 fields (old kernels): parsed, no flush count */
  g_assert_true (vsm_disk_stat_parse (stat_11, &a));
  g_assert_cmpuint (a.n_fields, ==, 11);
  vsm_disk_stat_delta (&a, &a, &d);
  g_assert_true (d.valid);
  g_assert_false (d.has_flush);

  g_assert_false (vsm_disk_stat_parse ("", &a));
  g_assert_false (vsm_disk_stat_parse (NULL, &a));
  g_assert_false (vsm_disk_stat_parse ("1 2 3 4 5 6 7 8 9 10", &a));    /* truncated */
  g_assert_false (vsm_disk_stat_parse ("1 2 3 x 5 6 7 8 9 10 11", &a)); /* garbage */
  g_assert_false (vsm_disk_stat_parse ("1 2 3 -4 5 6 7 8 9 10 11", &a));
  g_assert_false (vsm_disk_stat_parse ("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18", &a));
  g_assert_false (vsm_disk_stat_parse ("99999999999999999999999 2 3 4 5 6 7 8 9 10 11", &a));
}

/* debugfs bdi/8:16/stats, Linux 6.12 */
static const char bdi_stats_612[] = "BdiWriteback:            12288 kB\n"
                                    "BdiReclaimable:          26624 kB\n"
                                    "BdiDirtyThresh:          38912 kB\n"
                                    "DirtyThresh:            409600 kB\n"
                                    "BackgroundThresh:        65536 kB\n"
                                    "BdiDirtied:             262144 kB\n"
                                    "BdiWritten:             223232 kB\n"
                                    "BdiWriteBandwidth:       15360 kBps\n"
                                    "b_dirty:                     1\n"
                                    "b_io:                        0\n"
                                    "b_more_io:                   0\n"
                                    "b_dirty_time:                0\n"
                                    "bdi_list:                    1\n"
                                    "state:                       1\n";

static void
test_bdi_stats (void)
{
  VsmDirtyInfo info;

  g_assert_true (vsm_bdi_stats_parse (bdi_stats_612, &info));
  g_assert_true (info.per_device);
  g_assert_cmpuint (info.dirty_bytes, ==, 26624 * 1024);
  g_assert_cmpuint (info.writeback_bytes, ==, 12288 * 1024);
  g_assert_cmpuint (info.bdi_thresh_bytes, ==, 38912 * 1024);
  g_assert_cmpuint (info.bandwidth, ==, 15360 * 1024);
  g_assert_cmpuint (info.dirtied_bytes, ==, 262144 * 1024);
  g_assert_true (info.has_inodes);
  g_assert_cmpuint (info.dirty_inodes, ==, 1);

  g_assert_false (vsm_bdi_stats_parse ("", &info));
  g_assert_false (vsm_bdi_stats_parse (NULL, &info));
  g_assert_false (vsm_bdi_stats_parse ("BdiWriteback:  12 kB\n", &info)); /* truncated */
  g_assert_false (vsm_bdi_stats_parse ("BdiWriteback: x kB\nBdiReclaimable: y kB\n", &info));
  g_assert_false (vsm_bdi_stats_parse ("\x01\x02garbage:::\n::\n", &info));
}

/* what the lab's 2-CPU 6.12 guest showed for minutes after a copy had
 * drained: per-CPU counter residue, no dirty inode */
static const char bdi_stats_residue[] = "BdiWriteback:                0 kB\n"
                                        "BdiReclaimable:             64 kB\n"
                                        "BdiDirtied:             65600 kB\n"
                                        "b_dirty:                     0\n"
                                        "b_io:                        0\n"
                                        "b_more_io:                   0\n"
                                        "b_dirty_time:                1\n";

static void
test_bdi_residue (void)
{
  VsmDirtyInfo info;
  guint64 err2 = vsm_wb_stat_error_bytes (2, 4096);
  g_autofree char *text = NULL;

  /* nr_cpu_ids x 8 x (1 + ilog2 (nr_cpu_ids)) pages */
  g_assert_cmpuint (vsm_wb_stat_error_bytes (1, 4096), ==, 32768);
  g_assert_cmpuint (err2, ==, 131072);
  g_assert_cmpuint (vsm_wb_stat_error_bytes (16, 4096), ==, 2621440);
  g_assert_cmpuint (vsm_wb_stat_error_bytes (0, 4096), ==, 32768);

  g_assert_true (vsm_bdi_stats_parse (bdi_stats_residue, &info));
  vsm_dirty_info_discount_residual (&info, err2);
  g_assert_cmpuint (info.dirty_bytes, ==, 0);
  g_assert_cmpuint (info.residual_bytes, ==, 65536);

  /* a dirty inode: the figure stands, however small */
  g_assert_true (vsm_bdi_stats_parse (bdi_stats_612, &info));
  vsm_dirty_info_discount_residual (&info, G_MAXUINT64);
  g_assert_cmpuint (info.dirty_bytes, ==, 26624 * 1024);
  g_assert_cmpuint (info.residual_bytes, ==, 0);

  /* above the error: real, stands */
  text = g_strdup_printf ("BdiWriteback: 0 kB\nBdiReclaimable: 132 kB\nb_dirty: 0\n");
  g_assert_true (vsm_bdi_stats_parse (text, &info));
  vsm_dirty_info_discount_residual (&info, err2);
  g_assert_cmpuint (info.dirty_bytes, ==, 132 * 1024);
  g_clear_pointer (&text, g_free);

  /* writeback stands: pages under writeback need no dirty inode */
  text = g_strdup_printf ("BdiWriteback: 64 kB\nBdiReclaimable: 0 kB\nb_dirty: 0\n");
  g_assert_true (vsm_bdi_stats_parse (text, &info));
  vsm_dirty_info_discount_residual (&info, err2);
  g_assert_cmpuint (info.writeback_bytes, ==, 65536);
  g_clear_pointer (&text, g_free);

  /* a kernel that prints no inode lists: nothing to go by */
  g_assert_true (vsm_bdi_stats_parse ("BdiWriteback: 0 kB\nBdiReclaimable: 64 kB\n", &info));
  vsm_dirty_info_discount_residual (&info, err2);
  g_assert_cmpuint (info.dirty_bytes, ==, 65536);
}

/* a sysfs tree under root/name whose CPU list reads possible */
static char *
sysfs_with_cpus (const char *root, const char *name, const char *possible)
{
  char *sysfs = g_build_filename (root, name, NULL);
  g_autofree char *cpu = g_build_filename (sysfs, "devices", "system", "cpu", NULL);
  g_autofree char *file = g_build_filename (cpu, "possible", NULL);

  g_assert_cmpint (g_mkdir_with_parents (cpu, 0755), ==, 0);
  g_assert_true (g_file_set_contents (file, possible, -1, NULL));
  return sysfs;
}

/* vsm_dirty_info_read on a tree: debugfs' stats, sysfs' possible CPUs (read
 * once per sysfs root: fixed at boot) */
static void
test_dirty_info_read_residue (void)
{
  g_autofree char *root = g_dir_make_tmp ("vsm-residue-XXXXXX", NULL);
  g_autofree char *bdi = g_build_filename (root, "bdi", "8:0", NULL);
  g_autofree char *stats = g_build_filename (bdi, "stats", NULL);
  g_autofree char *one = sysfs_with_cpus (root, "one", "0\n");
  g_autofree char *two = sysfs_with_cpus (root, "two", "0-1\n");
  g_autofree char *sparse = sysfs_with_cpus (root, "sparse", "0,3\n");
  g_autofree char *two_file = g_build_filename (two, "devices", "system", "cpu", "possible", NULL);
  VsmDirtyInfo info;

  g_assert_cmpint (g_mkdir_with_parents (bdi, 0755), ==, 0);
  g_assert_true (g_file_set_contents (stats, bdi_stats_residue, -1, NULL));
  vsm_paths_set_root (VSM_ROOT_DEBUGFS, root);
  /* 1 CPU: 32 KiB of error, 64 KiB is real */
  vsm_paths_set_root (VSM_ROOT_SYSFS, one);
  vsm_dirty_info_read ("8:0", &info);
  g_assert_cmpuint (info.dirty_bytes, ==, 65536);
  /* 2 CPUs (the lab's guest), and sparse lists */
  vsm_paths_set_root (VSM_ROOT_SYSFS, two);
  vsm_dirty_info_read ("8:0", &info);
  g_assert_cmpuint (info.dirty_bytes, ==, 0);
  g_assert_cmpuint (info.residual_bytes, ==, 65536);
  /* read once: a later change of the file is not seen */
  g_assert_true (g_file_set_contents (two_file, "0\n", -1, NULL));
  vsm_dirty_info_read ("8:0", &info);
  g_assert_cmpuint (info.dirty_bytes, ==, 0);
  vsm_paths_set_root (VSM_ROOT_SYSFS, sparse);
  vsm_dirty_info_read ("8:0", &info);
  g_assert_cmpuint (info.dirty_bytes, ==, 0);
  vsm_paths_set_root (VSM_ROOT_DEBUGFS, NULL);
  vsm_paths_set_root (VSM_ROOT_SYSFS, NULL);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* /run/vfat-smart's layout is known in one place: every name it hands out
 * is read back as its own kind, and nothing else passes for a record */
static void
test_rundir (void)
{
  static const VsmRunFile kinds[] = {
    VSM_RUN_FILE_RECORD,   VSM_RUN_FILE_OPTIONS,       VSM_RUN_FILE_GLOBAL,
    VSM_RUN_FILE_UNMOUNTS, VSM_RUN_FILE_UDEV_ANSWERED, VSM_RUN_FILE_PROBE_CACHE,
    VSM_RUN_FILE_LOCK,
  };
  g_autofree char *bdi = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *name = vsm_rundir_name (kinds[i], "8:16");
      g_autofree char *back = NULL;
      g_assert_nonnull (name);
      g_assert_cmpint (vsm_rundir_kind_of (name, &back), ==, kinds[i]);
      if (kinds[i] == VSM_RUN_FILE_RECORD || kinds[i] == VSM_RUN_FILE_OPTIONS)
        g_assert_cmpstr (back, ==, "8:16");
      else
        g_assert_null (back);
    }
  g_assert_cmpint (vsm_rundir_kind_of ("259-3.state", &bdi), ==, VSM_RUN_FILE_RECORD);
  g_assert_cmpstr (bdi, ==, "259:3");
  g_assert_cmpint (vsm_rundir_kind_of ("8-16.state.Ab12Cd", NULL), ==, VSM_RUN_FILE_TEMPORARY);
  g_assert_cmpint (vsm_rundir_kind_of ("unmounts.log.Ab12Cd", NULL), ==, VSM_RUN_FILE_TEMPORARY);
  g_assert_cmpint (vsm_rundir_kind_of ("x-1.state", NULL), ==, VSM_RUN_FILE_OTHER);
  g_assert_cmpint (vsm_rundir_kind_of ("-1.state", NULL), ==, VSM_RUN_FILE_OTHER);
  g_assert_cmpint (vsm_rundir_kind_of ("../8-16.state", NULL), ==, VSM_RUN_FILE_OTHER);
  g_assert_cmpint (vsm_rundir_kind_of ("notes.txt", NULL), ==, VSM_RUN_FILE_OTHER);
  g_assert_null (vsm_rundir_name (VSM_RUN_FILE_RECORD, NULL));
}

/* one figure of data at risk: the drive's own with debugfs; without, the
 * system's as an upper bound within the drive's cap, and nothing once the
 * drive has not written lately */
static void
test_at_risk (void)
{
  VsmDirtyInfo di = {
    .valid = TRUE, .per_device = TRUE, .dirty_bytes = 30 << 20, .writeback_bytes = 10 << 20
  };
  const char *kind = NULL;

  g_assert_cmpuint (vsm_at_risk_bytes (&di, 16 << 20, FALSE, &kind), ==, 40 << 20);
  g_assert_cmpstr (kind, ==, "device");
  di.per_device = FALSE;
  g_assert_cmpuint (vsm_at_risk_bytes (&di, 16 << 20, TRUE, &kind), ==, 16 << 20);
  g_assert_cmpstr (kind, ==, "system");
  g_assert_cmpuint (vsm_at_risk_bytes (&di, 0, TRUE, NULL), ==, 40 << 20);
  g_assert_cmpuint (vsm_at_risk_bytes (&di, 16 << 20, FALSE, NULL), ==, 0);
  di.valid = FALSE;
  g_assert_cmpuint (vsm_at_risk_bytes (&di, 0, TRUE, NULL), ==, 0);
}

static void
test_meminfo (void)
{
  VsmDirtyInfo info;
  g_autofree char *real = NULL;

  g_assert_true (vsm_meminfo_parse ("MemTotal:       24542684 kB\nDirty:              2048 kB\n"
                                    "Writeback:            16 kB\nWritebackTmp:          0 kB\n",
                                    &info));
  g_assert_false (info.per_device);
  g_assert_cmpuint (info.dirty_bytes, ==, 2048 * 1024);
  g_assert_cmpuint (info.writeback_bytes, ==, 16 * 1024);
  g_assert_false (vsm_meminfo_parse ("MemTotal: 1 kB\n", &info));
  g_assert_false (vsm_meminfo_parse ("", &info));

  /* this machine's own */
  g_assert_true (g_file_get_contents ("/proc/meminfo", &real, NULL, NULL));
  g_assert_true (vsm_meminfo_parse (real, &info));
}

static VsmState *
sample_state (void)
{
  VsmState *s = vsm_state_new ("8:16");
  VsmKnobRecord *r = g_new0 (VsmKnobRecord, 1);

  s->disk_node = g_strdup ("/dev/sdb");
  s->disk_name = g_strdup ("sdb");
  s->class_name = g_strdup ("usb-stick");
  s->flush_mode = g_strdup ("dirty-cap");
  s->cap_bytes = 39845888;
  s->applied_at = 1700000000000000;
  g_ptr_array_add (s->reasons, vsm_reason_new_literal ("a; reason with\nnewline and ; semicolons"));
  r->name = g_strdup ("max_bytes");
  r->path = g_strdup ("/sys/class/bdi/8:16/max_bytes");
  r->original = g_strdup ("4804816896");
  r->applied = g_strdup ("39845888");
  r->readback = g_strdup ("39841541");
  r->restore_path = g_strdup ("/sys/class/bdi/8:16/max_ratio_fine");
  r->restore_value = g_strdup ("1000000");
  g_ptr_array_add (s->knobs, r);
  return s;
}

static void
test_state_roundtrip (void)
{
  g_autoptr (VsmState) s = sample_state ();
  g_autoptr (VsmState) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len;
  VsmKnobRecord *r;

  data = vsm_state_to_data (s, &len);
  back = vsm_state_from_data (data, len, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->bdi, ==, "8:16");
  g_assert_cmpuint (back->cap_bytes, ==, 39845888);
  g_assert_cmpint (back->applied_at, ==, 1700000000000000);
  g_assert_cmpstr (((VsmReason *)g_ptr_array_index (back->reasons, 0))->text, ==,
                   "a; reason with\nnewline and ; semicolons");
  g_assert_cmpuint (back->knobs->len, ==, 1);
  r = g_ptr_array_index (back->knobs, 0);
  g_assert_cmpstr (r->restore_path, ==, "/sys/class/bdi/8:16/max_ratio_fine");
  g_assert_cmpstr (r->restore_value, ==, "1000000");
  /* whether to pace: kept as the plan said; a record from before the key
   * was written by a version that paced every capped drive */
  g_assert_false (back->pace_writeback);
  s->pace_writeback = TRUE;
  g_clear_pointer (&data, g_free);
  g_clear_pointer (&back, vsm_state_free);
  data = vsm_state_to_data (s, &len);
  back = vsm_state_from_data (data, len, &error);
  g_assert_no_error (error);
  g_assert_true (back->pace_writeback);
  g_clear_pointer (&back, vsm_state_free);
  back = vsm_state_from_data ("[disk]\nbdi=8:16\n", strlen ("[disk]\nbdi=8:16\n"), &error);
  g_assert_no_error (error);
  g_assert_true (back->pace_writeback);
}

static void
test_state_garbage (void)
{
  static const char *const bad[] = {
    "",
    "garbage\x01\x02",
    "[disk]\n",                /* no bdi */
    "[disk]\nbdi=../../etc\n", /* bad bdi */
    "[disk]\nbdi=8:16x\n",
    "[disk]\nbdi=8:16\nknobs=max_bytes;\n", /* knob without group */
    "[disk]\nbdi=8:16\nknobs=x;\n[knob "
    "x]\npath=/etc/shadow\nrestore-path=/etc/shadow\nrestore-value=0\n",
    "[disk]\nbdi=8:16\nknobs=x;\n[knob x]\npath=/sys/class/bdi/8:16/../../../etc/x\n"
    "restore-path=/sys/class/bdi/8:16/x\nrestore-value=0\n",
    "[disk]\nbdi=8:16\nknobs=x;\n[knob x]\npath=/sys/class/bdi/8:16/x\n"
    "restore-path=/sys/class/bdi/8:16/x\n", /* no restore value */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (VsmState) s = vsm_state_from_data (bad[i], strlen (bad[i]), &error);
      g_assert_null (s);
      g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
    }
}

static void
test_state_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-state-XXXXXX", NULL);
  g_autofree char *link = NULL, *victim = NULL;
  g_autoptr (VsmState) s = sample_state ();
  g_autoptr (VsmState) loaded = NULL;
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GError) error = NULL;

  vsm_paths_set_root (VSM_ROOT_STATE, dir);
  g_assert_true (vsm_state_save (s, &error));
  g_assert_no_error (error);
  loaded = vsm_state_load ("8:16", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (loaded->disk_node, ==, "/dev/sdb");
  all = vsm_state_list (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (all->len, ==, 1);

  /* not managed */
  g_assert_null (vsm_state_load ("8:32", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
  g_clear_error (&error);

  /* a symlink planted as a state file is not followed */
  victim = g_build_filename (dir, "victim", NULL);
  g_assert_true (g_file_set_contents (victim, "[disk]\nbdi=8:32\n", -1, NULL));
  link = g_build_filename (dir, "8-32.state", NULL);
  g_assert_cmpint (symlink (victim, link), ==, 0);
  g_assert_null (vsm_state_load ("8:32", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_clear_error (&error);

  g_assert_true (vsm_state_remove ("8:16", &error));
  g_assert_true (vsm_state_remove ("8:16", &error)); /* idempotent */
  g_assert_null (vsm_state_load ("8:16", &error));
  g_clear_error (&error);
  g_unlink (link);
  g_unlink (victim);
  g_rmdir (dir);
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
}

/* hostile files in the state directory: reported, never obeyed, never a hang */
static void
test_state_hostile_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-state-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "8-48.state", NULL);
  g_autofree char *open_file = g_build_filename (dir, "8-64.state", NULL);
  g_autofree char *junk = g_build_filename (dir, "8-80.state", NULL);
  g_autoptr (VsmState) s = sample_state ();
  g_autoptr (GPtrArray) corrupt = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len;

  vsm_paths_set_root (VSM_ROOT_STATE, dir);
  g_assert_true (vsm_state_save (s, &error));
  /* a FIFO: opening it must not block */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_null (vsm_state_load ("8:48", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_clear_error (&error);
  /* a good record that anyone may write is not obeyed */
  g_free (s->bdi);
  s->bdi = g_strdup ("8:64");
  data = vsm_state_to_data (s, &len);
  g_assert_true (g_file_set_contents (open_file, data, (gssize)len, NULL));
  g_assert_cmpint (chmod (open_file, 0666), ==, 0);
  g_assert_null (vsm_state_load ("8:64", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (junk, "\x01garbage", -1, NULL));

  all = vsm_state_list (corrupt, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (all->len, ==, 1);
  g_assert_cmpuint (corrupt->len, ==, 3);
  for (guint i = 0; i < corrupt->len; i++)
    g_assert_true (g_str_has_prefix (g_ptr_array_index (corrupt, i), "8-"));

  g_assert_true (vsm_state_remove_file ("8-48.state", NULL));
  g_assert_false (vsm_state_remove_file ("../8-48.state", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT);
  g_unlink (open_file);
  g_unlink (junk);
  vsm_state_remove ("8:16", NULL);
  g_rmdir (dir);
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
}

/* a record may only name this disk's own knobs, restore through their own
 * places, and hold numbers */
static void
test_state_knob_paths (void)
{
  static const struct
  {
    const char *name, *path, *restore_path, *restore_value;
    gboolean ok;
  } cases[] = {
    { "max_bytes", "/sys/class/bdi/7:0/max_bytes", "/sys/class/bdi/7:0/max_ratio_fine", "1000000",
      TRUE },
    { "max_bytes", "/sys/class/bdi/7:0/max_bytes", "/sys/class/bdi/7:0/max_ratio", "100", TRUE },
    { "strict_limit", "/sys/class/bdi/7:0/strict_limit", "/sys/class/bdi/7:0/strict_limit", "0",
      TRUE },
    /* another disk's knob */
    { "read_ahead_kb", "/sys/class/bdi/7:1/read_ahead_kb", "/sys/class/bdi/7:1/read_ahead_kb",
      "128", FALSE },
    { "max_bytes", "/sys/class/bdi/7:0/max_bytes", "/sys/class/bdi/7:1/max_ratio_fine", "1",
      FALSE },
    { "strict_limit", "/sys/class/bdi/7:0/subsystem/7:1/strict_limit",
      "/sys/class/bdi/7:0/strict_limit", "0", FALSE },
    /* a global knob in a disk's record, a file that is no knob */
    { "strict_limit", "/sys/class/bdi/7:0/strict_limit", "/proc/sys/vm/dirty_expire_centisecs",
      "3000", FALSE },
    { "uevent", "/sys/class/bdi/7:0/uevent", "/sys/class/bdi/7:0/uevent", "add", FALSE },
    /* not a number */
    { "strict_limit", "/sys/class/bdi/7:0/strict_limit", "/sys/class/bdi/7:0/strict_limit", "1; rm",
      FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "[disk]\nbdi=7:0\nknobs=%s;\n[knob %s]\npath=%s\noriginal=1\nrestore-path=%s\n"
        "restore-value=%s\n",
        cases[i].name, cases[i].name, cases[i].path, cases[i].restore_path, cases[i].restore_value);
      g_autoptr (GError) error = NULL;
      g_autoptr (VsmState) s = vsm_state_from_data (text, strlen (text), &error);

      g_test_message ("case %" G_GSIZE_FORMAT ": %s", i, cases[i].path);
      g_assert_cmpint (s != NULL, ==, cases[i].ok);
      if (!cases[i].ok)
        g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
    }
}

/* A record is obeyed only for the knobs vfat-smart writes (a cap's): one
 * naming another knob it knows of (min_bytes, the writeback timers) would
 * have restore write it. */
static void
test_state_knob_names (void)
{
  static const struct
  {
    const char *name, *restore_name, *restore_value;
    gboolean ok;
  } disk[] = {
    { "max_bytes", "max_ratio_fine", "1000000", TRUE },
    { "strict_limit", "strict_limit", "0", TRUE },
    { "min_bytes", "min_ratio_fine", "0", FALSE },
    { "min_bytes", "min_bytes", "0", FALSE },
    { "max_ratio", "max_ratio", "100", FALSE },
  };
  static const struct
  {
    const char *name, *restore_name;
    gboolean ok;
  } global[] = {
    { "vm.dirty_bytes", "vm.dirty_ratio", TRUE },
    { "vm.dirty_background_bytes", "vm.dirty_background_ratio", TRUE },
    { "vm.dirty_writeback_centisecs", "vm.dirty_writeback_centisecs", FALSE },
    { "vm.dirty_expire_centisecs", "vm.dirty_expire_centisecs", FALSE },
    { "vm.dirty_ratio", "vm.dirty_ratio", FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (disk); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "[disk]\nbdi=7:0\nknobs=%s;\n[knob %s]\npath=/sys/class/bdi/7:0/%s\noriginal=1\n"
        "restore-path=/sys/class/bdi/7:0/%s\nrestore-value=%s\n",
        disk[i].name, disk[i].name, disk[i].name, disk[i].restore_name, disk[i].restore_value);
      g_autoptr (GError) error = NULL;
      g_autoptr (VsmState) st = vsm_state_from_data (text, strlen (text), &error);

      g_test_message ("disk knob %s", disk[i].name);
      g_assert_cmpint (st != NULL, ==, disk[i].ok);
      if (!disk[i].ok)
        g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (global); i++)
    {
      g_autofree char *text = g_strdup_printf (
        "[global]\nowners=7:0;\nknobs=%s;\n[knob %s]\npath=/proc/sys/vm/%s\noriginal=1\n"
        "restore-path=/proc/sys/vm/%s\nrestore-value=1\n",
        global[i].name, global[i].name, global[i].name + 3, global[i].restore_name + 3);
      g_autoptr (GError) error = NULL;
      g_autoptr (VsmGlobalState) g = vsm_global_state_from_data (text, strlen (text), &error);

      g_test_message ("global knob %s", global[i].name);
      g_assert_cmpint (g != NULL, ==, global[i].ok);
      if (!global[i].ok)
        g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
    }
}

static void
test_history (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-history-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "unmounts.log", NULL);
  VsmUnmountRecord r = {
    "8:16", "/media/Stick \xe2\x80\x94 \xff\"x\"\n", 1700000000000000, 1.5, 4096, TRUE
  };
  g_autofree char *line = vsm_unmount_record_to_line (&r);
  g_autoptr (VsmUnmountRecord) back = NULL;
  g_autoptr (GPtrArray) list = NULL;
  g_autoptr (GError) error = NULL;

  /* valid JSON on one line, whatever bytes the target has */
  g_assert_true (g_utf8_validate (line, -1, NULL));
  g_assert_null (strchr (line, '\n'));
  back = vsm_unmount_record_from_line (line, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (back->bdi, ==, "8:16");
  g_assert_true (g_str_has_prefix (back->target, "/media/Stick \xe2\x80\x94 "));
  g_assert_cmpuint (back->dirty_bytes, ==, 4096);
  g_assert_true (back->per_device);
  /* garbage and hostile lines are refused */
  g_assert_null (vsm_unmount_record_from_line ("{\"bdi\": \"../x\"}", NULL));
  g_assert_null (vsm_unmount_record_from_line ("[1,2]", NULL));
  g_assert_null (vsm_unmount_record_from_line ("{\"bdi\": \"8:16\"", NULL));

  vsm_paths_set_root (VSM_ROOT_STATE, dir);
  g_assert_true (vsm_history_append_unmount (&r, NULL));
  r.bdi = "8:32";
  g_assert_true (vsm_history_append_unmount (&r, NULL));
  g_assert_true (g_file_set_contents (log, "junk\n", -1, NULL) || TRUE);
  list = vsm_history_unmounts ("8:16", 5);
  g_assert_cmpuint (list->len, ==, 0); /* the log was replaced by junk */
  g_clear_pointer (&list, g_ptr_array_unref);
  r.bdi = "8:16";
  g_assert_true (vsm_history_append_unmount (&r, NULL));
  list = vsm_history_unmounts ("8:16", 5);
  g_assert_cmpuint (list->len, ==, 1);
  g_unlink (log);
  g_rmdir (dir);
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
}

/* The unmount log hard-linked to another file, writable by others, or
 * another user's: nothing is appended (to the other file above all). */
static void
test_history_hostile_log (void)
{
  g_autofree char *dir = g_dir_make_tmp ("vsm-history-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "unmounts.log", NULL);
  g_autofree char *other = g_build_filename (dir, "other", NULL);
  g_autofree char *text = NULL;
  VsmUnmountRecord r = { "8:16", "/media/x", 1700000000000000, 1.5, 4096, TRUE };
  g_autoptr (GError) error = NULL;

  vsm_paths_set_root (VSM_ROOT_STATE, dir);
  g_assert_true (g_file_set_contents (other, "precious\n", -1, NULL));
  g_assert_cmpint (chmod (other, 0644), ==, 0);
  g_assert_cmpint (link (other, log), ==, 0);
  g_assert_false (vsm_history_append_unmount (&r, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (other, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "precious\n");
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (g_unlink (log), ==, 0);

  /* writable by others */
  g_assert_true (g_file_set_contents (log, "", -1, NULL));
  g_assert_cmpint (chmod (log, 0666), ==, 0);
  g_assert_false (vsm_history_append_unmount (&r, &error));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "");
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (g_unlink (log), ==, 0);

  /* a symlink to the other file */
  g_assert_cmpint (symlink (other, log), ==, 0);
  g_assert_false (vsm_history_append_unmount (&r, &error));
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (other, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "precious\n");
  g_assert_cmpint (g_unlink (log), ==, 0);

  /* and an ordinary one is appended to, 0644 */
  g_assert_true (vsm_history_append_unmount (&r, &error));
  g_assert_no_error (error);
  g_unlink (log);
  g_unlink (other);
  g_rmdir (dir);
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
}

static void
test_options_merge (void)
{
  static const struct
  {
    const char *base, *wins, *expect;
  } cases[] = {
    { "shortname=mixed,utf8=1,showexec", NULL, "shortname=mixed,utf8=1,showexec" },
    { "shortname=mixed,utf8=1,showexec", "", "shortname=mixed,utf8=1,showexec" },
    { "shortname=mixed,utf8=1,showexec", "uid=1000", "shortname=mixed,utf8=1,showexec,uid=1000" },
    { "shortname=mixed,utf8=1,showexec", "shortname=lower", "utf8=1,showexec,shortname=lower" },
    { "shortname=mixed,showexec", "flush", "shortname=mixed,showexec,flush" },
    { "shortname=mixed,showexec,flush", "noflush", "shortname=mixed,showexec" },
    { "showexec,sync", "async", "showexec,async" },
    { "showexec,async", "sync", "showexec,sync" },
    { "showexec", "x-gvfs-show,uid=1,gid=2", "showexec,x-gvfs-show,uid=1,gid=2" },
    { "", "ro", "ro" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *r = vsm_options_merge (cases[i].base, cases[i].wins);
      g_assert_true (vsm_options_are_valid (cases[i].wins));
      g_assert_cmpstr (r, ==, cases[i].expect);
    }
  g_assert_false (vsm_options_are_valid ("x=\"a,uid=1000"));
  g_assert_true (vsm_options_are_valid ("x=\"a,b\",uid=1000"));
}

/* vsm_policy_set () borrows its value: sink the floating reference the
 * g_variant_new_* () constructors return, and drop it afterwards */
static gboolean
policy_set (VsmPolicy *p, const char *key, GVariant *value)
{
  g_autoptr (GVariant) v = value ? g_variant_ref_sink (value) : NULL;
  return vsm_policy_set (p, key, v);
}

static void
test_policy_validation (void)
{
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (GVariant) modes = NULL, bw = NULL;

  g_assert_true (policy_set (p, "flush-mode", g_variant_new_string ("dirty-cap")));
  g_assert_cmpint (p->flush_mode, ==, VSM_FLUSH_MODE_DIRTY_CAP);
  g_assert_false (policy_set (p, "flush-mode", g_variant_new_string ("turbo")));
  g_assert_cmpint (p->flush_mode, ==, VSM_FLUSH_MODE_DIRTY_CAP);
  g_assert_false (policy_set (p, "flush-mode", g_variant_new_int32 (3)));
  g_assert_false (policy_set (p, "max-dirty-seconds", g_variant_new_double (0.0)));
  g_assert_false (policy_set (p, "max-dirty-seconds", g_variant_new_double (1.0 / 0.0)));
  g_assert_cmpfloat (p->max_dirty_seconds, ==, 2.0);
  g_assert_true (policy_set (p, "max-dirty-seconds", g_variant_new_double (1.5)));
  g_assert_false (policy_set (p, "dirty-cap-max-bytes", g_variant_new_uint64 (1)));
  g_assert_false (policy_set (p, "enabled", NULL));
  g_assert_false (policy_set (p, "no-such-key", g_variant_new_boolean (TRUE)));

  modes =
    g_variant_ref_sink (g_variant_new_parsed ("{'usb-hdd': 'kernel-flush', 'internal': 'off', "
                                              "'floppy': 'off', 'usb-ssd': 'warp'}"));
  g_assert_false (vsm_policy_set (p, "class-flush-modes", modes));
  g_assert_cmpint (p->class_mode[VSM_CLASS_USB_HDD], ==, VSM_FLUSH_MODE_KERNEL_FLUSH);
  g_assert_cmpint (p->class_mode[VSM_CLASS_INTERNAL], ==, VSM_FLUSH_MODE_AUTO);
  g_assert_cmpint (p->class_mode[VSM_CLASS_USB_SSD], ==, VSM_FLUSH_MODE_AUTO);

  bw =
    g_variant_ref_sink (g_variant_new_parsed ("{'usb-stick': @t 12000000, 'card-reader': @t 5}"));
  g_assert_false (vsm_policy_set (p, "class-bandwidth", bw));
  g_assert_cmpuint (p->class_bandwidth[VSM_CLASS_USB_STICK], ==, 12000000);
  g_assert_cmpuint (p->class_bandwidth[VSM_CLASS_CARD_READER], ==, 0);

  p->cap_min_bytes = 512 * 1024 * 1024;
  vsm_policy_validate (p);
  g_assert_cmpuint (p->cap_min_bytes, ==, p->cap_max_bytes);
  g_assert_cmpuint (p->problems->len, >=, 9);
}

/* GSettings with the project's compiled schema and the memory backend */
static void
test_policy_gsettings (void)
{
  g_autoptr (GSettingsSchemaSource) src = NULL;
  g_autoptr (GSettingsSchema) schema = NULL;
  g_autoptr (GSettings) settings = NULL;
  g_autoptr (GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr (VsmPolicy) p = NULL;
  g_autoptr (GError) error = NULL;

  src = g_settings_schema_source_new_from_directory (SCHEMA_DIR, NULL, TRUE, &error);
  g_assert_no_error (error);
  schema = g_settings_schema_source_lookup (src, VSM_SCHEMA_ID, FALSE);
  g_assert_nonnull (schema);
  settings = g_settings_new_full (schema, backend, NULL);

  p = vsm_policy_load_from_settings (settings);
  g_assert_cmpuint (p->problems->len, ==, 0);
  /* the built-in defaults are the schema's (generated from it) */
  {
    g_autoptr (VsmPolicy) builtin = vsm_policy_new_default ();
    g_assert_cmpuint (builtin->problems->len, ==, 0);
    g_assert_cmpint (builtin->enabled, ==, p->enabled);
    g_assert_cmpint (builtin->flush_mode, ==, p->flush_mode);
    g_assert_cmpfloat (builtin->max_dirty_seconds, ==, p->max_dirty_seconds);
    g_assert_cmpuint (builtin->cap_min_bytes, ==, p->cap_min_bytes);
    g_assert_cmpuint (builtin->cap_max_bytes, ==, p->cap_max_bytes);
    g_assert_cmpint (builtin->kernel_flush_fix, ==, p->kernel_flush_fix);
    g_assert_cmpint (builtin->allow_global_knobs, ==, p->allow_global_knobs);
  }
  g_assert_true (p->enabled);
  g_assert_cmpint (p->flush_mode, ==, VSM_FLUSH_MODE_AUTO);
  g_assert_cmpuint (p->cap_max_bytes, ==, 256 * 1024 * 1024);
  g_clear_pointer (&p, vsm_policy_free);

  g_assert_true (g_settings_set_string (settings, "flush-mode", "sync"));
  g_assert_true (g_settings_set_value (settings, "class-flush-modes",
                                       g_variant_new_parsed ("{'nonsense': 'off'}")));
  p = vsm_policy_load_from_settings (settings);
  g_assert_cmpint (p->flush_mode, ==, VSM_FLUSH_MODE_SYNC);
  g_assert_cmpuint (p->problems->len, ==, 1);
}

static void
test_sanitize (void)
{
  g_autofree char *a = vsm_sanitize_for_display ("LABEL\n\x1b[31mred");
  g_autofree char *b = vsm_sanitize_for_display ("Müll");
  g_autofree char *c = vsm_sanitize_for_display ("\xff\xfe");
  /* invalid UTF-8 and escapes together: both must go */
  g_autofree char *d = vsm_sanitize_for_display ("\x1b[2J\x1b[31mX\xff\xc2\x9b");
  g_autofree char *huge_in = g_strnfill (100 * 1024, 'A');
  g_autofree char *huge = vsm_sanitize_for_display (huge_in);

  g_assert_cmpstr (a, ==, "LABEL??[31mred");
  g_assert_cmpstr (b, ==, "Müll");
  g_assert_true (g_utf8_validate (c, -1, NULL));
  g_assert_true (g_utf8_validate (d, -1, NULL));
  for (const char *p = d; *p; p = g_utf8_next_char (p))
    g_assert_false (g_unichar_iscntrl (g_utf8_get_char (p)));
  g_assert_true (g_str_has_prefix (d, "?[2J?[31mX"));
  g_assert_cmpuint (g_utf8_strlen (huge, -1), ==, VSM_DISPLAY_MAX_CHARS + 1);
  g_assert_null (vsm_sanitize_for_display (NULL));
}

/* JSON output is valid UTF-8 whatever the drive said */
static void
test_json_strings (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autofree char *valid = vsm_make_valid_utf8 ("\x1b[2J\x1b[31mX\xff");
  g_autofree char *text = NULL;
  JsonNode *root;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, valid);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = vsm_json_to_string (root);
  json_node_unref (root);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
}

/* a C1 control (CSI U+009B, OSC U+009D) or DEL in a label reaches the
 * terminal of whoever reads the JSON only as its escape */
static void
test_json_c1_controls (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  JsonNode *root;
  const char *label = "A\xc2\x9b"
                      "2J\xc2\x9d"
                      "0;X\x7f\xc2\xa0Z";

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "label");
  json_builder_add_string_value (b, label);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = vsm_json_to_string (root);
  json_node_unref (root);
  g_assert_null (strstr (text, "\xc2\x9b"));
  g_assert_null (strstr (text, "\xc2\x9d"));
  g_assert_null (strchr (text, 0x7f));
  g_assert_nonnull (strstr (text, "\\u009b2J\\u009d0;X\\u007f\xc2\xa0Z"));
  /* and it reads back as what the drive said */
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  g_assert_cmpstr (
    json_object_get_string_member (json_node_get_object (json_parser_get_root (parser)), "label"),
    ==, label);
}

static void
test_numbers (void)
{
  guint64 v;
  gint64 s;

  g_assert_true (vsm_parse_u64 ("0", &v));
  g_assert_true (vsm_parse_u64 ("18446744073709551615", &v));
  g_assert_false (vsm_parse_u64 ("18446744073709551616", &v));
  g_assert_false (vsm_parse_u64 ("-1", &v));
  g_assert_false (vsm_parse_u64 ("+1", &v));
  g_assert_false (vsm_parse_u64 ("1 ", &v));
  g_assert_false (vsm_parse_u64 ("", &v));
  g_assert_false (vsm_parse_u64 (NULL, &v));
  g_assert_true (vsm_parse_i64 ("-5", &s));
  g_assert_cmpstr (g_quark_to_string (VSM_ERROR), ==, "vsm-error-quark");
  g_assert_cmpint (s, ==, -5);

  g_assert_true (vsm_knob_value_matches ("max_bytes", "39845888", "39841541"));
  g_assert_false (vsm_knob_value_matches ("max_bytes", "39845888", "16776880"));
  g_assert_false (vsm_knob_value_matches ("max_bytes", "39845888", "junk"));
  g_assert_true (vsm_knob_value_matches ("strict_limit", "1", "1"));
  g_assert_false (vsm_knob_value_matches ("strict_limit", "1", "0"));
  g_assert_false (vsm_knob_value_matches ("strict_limit", "1", NULL));

  {
    g_autofree char *p1 = vsm_knob_path ("8:16", "strict_limit");
    g_autofree char *p2 = vsm_knob_path ("8:16", "vm.dirty_bytes");
    g_autofree char *p3 = vsm_knob_path ("8:16", "../../x");
    g_assert_cmpstr (p1, ==, "/sys/class/bdi/8:16/strict_limit");
    g_assert_cmpstr (p2, ==, "/proc/sys/vm/dirty_bytes");
    g_assert_null (p3);
  }
}

static void
test_mount_args (void)
{
  static const struct
  {
    const char *argv;
    gboolean ok;
    const char *spec, *target, *options, *ns;
    gboolean fake, nomtab, sloppy, ro, rw, verbose;
  } cases[] = {
    { "/dev/sdb1 /mnt", TRUE, "/dev/sdb1", "/mnt", NULL, NULL },
    { "/dev/sdb1 /mnt -o uid=1000,flush", TRUE, "/dev/sdb1", "/mnt", "uid=1000,flush", NULL },
    { "-o ro LABEL=STICK /media/s -v", TRUE, "LABEL=STICK", "/media/s", "ro", NULL,
      .verbose = TRUE },
    { "/dev/sdb1 -fnsv /mnt -t vfat-smart", TRUE, "/dev/sdb1", "/mnt", NULL, NULL, TRUE, TRUE, TRUE,
      FALSE, FALSE, TRUE },
    { "/dev/sdb1 /mnt -ouid=1 -o gid=2", TRUE, "/dev/sdb1", "/mnt", "uid=1,gid=2", NULL },
    { "/dev/sdb1 /mnt -r -w", TRUE, "/dev/sdb1", "/mnt", NULL, NULL, .rw = TRUE },
    { "/dev/sdb1 /mnt -w -r", TRUE, "/dev/sdb1", "/mnt", NULL, NULL, .ro = TRUE },
    { "/dev/sdb1 /mnt -N /proc/1/ns/mnt", TRUE, "/dev/sdb1", "/mnt", NULL, "/proc/1/ns/mnt" },
    { "/dev/sdb1 /mnt -- -o x", FALSE }, /* a third path */
    { "/dev/sdb1", FALSE },              /* no target */
    { "", FALSE },
    { "/dev/sdb1 /mnt -o", FALSE }, /* -o without value */
    { "/dev/sdb1 /mnt -x", FALSE }, /* unknown flag */
    { "/dev/sdb1 /mnt /extra", FALSE },
    { "/dev/sdb1 /mnt -vouid=1", FALSE }, /* a flag with a value inside a cluster */
    { "/dev/sdb1 /mnt -nr", TRUE, "/dev/sdb1", "/mnt", NULL, NULL, .nomtab = TRUE, .ro = TRUE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = g_strconcat ("mount.vfat-smart ", cases[i].argv, NULL);
      g_auto (GStrv) argv = NULL;
      g_autofree char *options = NULL, *message = NULL;
      VsmMountRequest req;
      gboolean verbose;
      int argc;
      gboolean ok;

      g_assert_true (g_shell_parse_argv (line, &argc, &argv, NULL));
      ok = vsm_mount_parse_args (argc, argv, &req, &verbose, &options, &message);
      g_test_message ("case %s", cases[i].argv);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (!ok)
        {
          g_assert_nonnull (message);
          continue;
        }
      g_assert_cmpstr (req.spec, ==, cases[i].spec);
      g_assert_cmpstr (req.target, ==, cases[i].target);
      g_assert_cmpstr (req.options, ==, cases[i].options);
      g_assert_cmpstr (req.namespace, ==, cases[i].ns);
      g_assert_cmpint (req.fake, ==, cases[i].fake);
      g_assert_cmpint (req.nomtab, ==, cases[i].nomtab);
      g_assert_cmpint (req.sloppy, ==, cases[i].sloppy);
      g_assert_cmpint (req.read_only, ==, cases[i].ro);
      g_assert_cmpint (req.read_write, ==, cases[i].rw);
      g_assert_cmpint (verbose, ==, cases[i].verbose);
    }
}

static void
test_umount_args (void)
{
  static const struct
  {
    const char *argv;
    gboolean ok;
    const char *target;
    gboolean lazy, force, nomtab, verbose, ro;
    const char *ns;
  } cases[] = {
    { "/mnt", TRUE, "/mnt" },
    { "/mnt -lv", TRUE, "/mnt", TRUE, FALSE, FALSE, TRUE },
    { "-f -n /mnt -t vfat-smart", TRUE, "/mnt", FALSE, TRUE, TRUE, FALSE },
    { "", FALSE },
    { "/mnt /other", FALSE },
    { "/mnt -q", FALSE },
    { "/mnt -r -i -N /proc/1/ns/mnt", TRUE, "/mnt", .ro = TRUE, .ns = "/proc/1/ns/mnt" },
    { "/mnt -N", FALSE },
    { "/mnt -o ro", FALSE }, /* umount takes no -o */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = g_strconcat ("umount.vfat-smart ", cases[i].argv, NULL);
      g_auto (GStrv) argv = NULL;
      g_autofree char *message = NULL;
      VsmUmountRequest req;
      gboolean verbose;
      int argc;

      g_assert_true (g_shell_parse_argv (line, &argc, &argv, NULL));
      g_assert_cmpint (vsm_umount_parse_args (argc, argv, &req, &verbose, &message), ==,
                       cases[i].ok);
      if (!cases[i].ok)
        continue;
      g_assert_cmpstr (req.target, ==, cases[i].target);
      g_assert_cmpint (req.lazy, ==, cases[i].lazy);
      g_assert_cmpint (req.force, ==, cases[i].force);
      g_assert_cmpint (req.nomtab, ==, cases[i].nomtab);
      g_assert_cmpint (req.read_only, ==, cases[i].ro);
      g_assert_cmpstr (req.namespace, ==, cases[i].ns);
      g_assert_cmpint (verbose, ==, cases[i].verbose);
    }
}

/* the unit after a no-break space in UTF-8, a plain one elsewhere (a C
 * locale showed "38.0?MiB") */
static void
test_format_bytes (void)
{
  g_autofree char *utf8 = NULL, *c = NULL, *small = NULL;
  char *old = g_strdup (setlocale (LC_ALL, NULL));

  if (setlocale (LC_ALL, "C.UTF-8") != NULL)
    {
      utf8 = vsm_format_bytes (38 << 20);
      g_assert_cmpstr (utf8, ==, "38.0\u00a0MiB");
    }
  g_assert_nonnull (setlocale (LC_ALL, "C"));
  g_assert_false (g_get_charset (NULL));
  c = vsm_format_bytes (38 << 20);
  g_assert_cmpstr (c, ==, "38.0 MiB");
  small = vsm_format_bytes (512);
  g_assert_cmpstr (small, ==, "512 B");
  setlocale (LC_ALL, old);
  g_free (old);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/parse/disk-stat", test_disk_stat);
  g_test_add_func ("/format/bytes", test_format_bytes);
  g_test_add_func ("/parse/bdi-stats", test_bdi_stats);
  g_test_add_func ("/parse/meminfo", test_meminfo);
  g_test_add_func ("/parse/bdi-residue", test_bdi_residue);
  g_test_add_func ("/parse/dirty-info-read-residue", test_dirty_info_read_residue);
  g_test_add_func ("/parse/numbers-and-knobs", test_numbers);
  g_test_add_func ("/state/roundtrip", test_state_roundtrip);
  g_test_add_func ("/state/garbage", test_state_garbage);
  g_test_add_func ("/state/files", test_state_files);
  g_test_add_func ("/state/hostile-files", test_state_hostile_files);
  g_test_add_func ("/state/knob-paths", test_state_knob_paths);
  g_test_add_func ("/state/knob-names", test_state_knob_names);
  g_test_add_func ("/stats/at-risk", test_at_risk);
  g_test_add_func ("/rundir/layout", test_rundir);
  g_test_add_func ("/history/unmounts", test_history);
  g_test_add_func ("/history/unmounts-hostile-log", test_history_hostile_log);
  g_test_add_func ("/mount/options-merge", test_options_merge);
  g_test_add_func ("/mount/helper-args", test_mount_args);
  g_test_add_func ("/mount/umount-helper-args", test_umount_args);
  g_test_add_func ("/policy/validation", test_policy_validation);
  g_test_add_func ("/policy/gsettings", test_policy_gsettings);
  g_test_add_func ("/display/sanitize", test_sanitize);
  g_test_add_func ("/display/json-strings", test_json_strings);
  g_test_add_func ("/display/json-c1-controls", test_json_c1_controls);
  return g_test_run ();
}
