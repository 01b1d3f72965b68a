/* test-apply.c - the apply transaction on a tree of our own (vsm-paths):
 * write-ahead, rollback, interrupted applies, the vm.* knobs and their
 * owners, the state lock. No root, no umockdev.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* memfd_create */
#include "config.h"

#include "vsm-apply.h"
#include "vsm.h"
#include "vsm-intent.h"
#include "vsm-kernel.h"
#include "vsm-manager.h"
#include "vsm-paths.h"
#include "vsm-plan.h"
#include "vsm-policy.h"
#include "vsm-util.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

typedef struct
{
  char *root;
} Tree;

static void
put (const Tree *t, const char *rel, const char *value)
{
  g_autofree char *path = g_build_filename (t->root, rel, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, value, -1, NULL));
}

static char *
get (const Tree *t, const char *rel)
{
  g_autofree char *path = g_build_filename (t->root, rel, NULL);
  return vsm_read_attr (path, NULL);
}

#define assert_file(t, rel, value)                                                                 \
  G_STMT_START                                                                                     \
  {                                                                                                \
    g_autofree char *_v = get (t, rel);                                                            \
    g_assert_cmpstr (_v, ==, value);                                                               \
  }                                                                                                \
  G_STMT_END

/* a disk loopN at 7:N with 6.12's knobs (with_caps) or 6.1's */
static void
add_disk (const Tree *t, guint n, gboolean with_caps)
{
  g_autofree char *bdi = g_strdup_printf ("sys/class/bdi/7:%u", n);
  g_autofree char *dev = g_strdup_printf ("sys/block/loop%u/dev", n);
  g_autofree char *num = g_strdup_printf ("7:%u", n);
  static const char *const knobs_61[][2] = { { "max_ratio", "100" }, { "min_ratio", "0" } };
  static const char *const knobs_612[][2] = {
    { "strict_limit", "0" },   { "max_bytes", "0" }, { "max_ratio_fine", "1000000" },
    { "min_ratio_fine", "0" }, { "min_bytes", "0" },
  };

  put (t, dev, num);
  for (gsize i = 0; i < G_N_ELEMENTS (knobs_61); i++)
    {
      g_autofree char *rel = g_build_filename (bdi, knobs_61[i][0], NULL);
      put (t, rel, knobs_61[i][1]);
    }
  for (gsize i = 0; with_caps && i < G_N_ELEMENTS (knobs_612); i++)
    {
      g_autofree char *rel = g_build_filename (bdi, knobs_612[i][0], NULL);
      put (t, rel, knobs_612[i][1]);
    }
}

static void
tree_setup (Tree *t, gconstpointer data)
{
  g_autofree char *sys = NULL, *proc = NULL, *debug = NULL, *state = NULL;

  t->root = g_dir_make_tmp ("vsm-apply-XXXXXX", NULL);
  sys = g_build_filename (t->root, "sys", NULL);
  proc = g_build_filename (t->root, "proc", NULL);
  debug = g_build_filename (t->root, "debug", NULL);
  state = g_build_filename (t->root, "run", NULL);
  vsm_paths_set_root (VSM_ROOT_SYSFS, sys);
  vsm_paths_set_root (VSM_ROOT_PROCFS, proc);
  vsm_paths_set_root (VSM_ROOT_DEBUGFS, debug);
  vsm_paths_set_root (VSM_ROOT_STATE, state);
  put (t, "proc/sys/vm/dirty_bytes", "0");
  put (t, "proc/sys/vm/dirty_ratio", "20");
  put (t, "proc/sys/vm/dirty_background_bytes", "0");
  put (t, "proc/sys/vm/dirty_background_ratio", "10");
  add_disk (t, 0, TRUE);
  add_disk (t, 1, TRUE);
  add_disk (t, 2, FALSE);
  add_disk (t, 3, FALSE);
  vsm_fault_reset ();
}

static void
tree_teardown (Tree *t, gconstpointer data)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", t->root);
  g_assert_cmpint (system (cmd), ==, 0);
  for (guint r = 0; r < VSM_ROOT_LAST; r++)
    vsm_paths_set_root (r, NULL);
  g_unsetenv ("VFAT_SMART_FAIL_WRITE");
  g_free (t->root);
}

static VsmDevice *
device (guint n)
{
  VsmDevice *d = g_new0 (VsmDevice, 1);
  d->bdi = g_strdup_printf ("7:%u", n);
  d->disk_name = g_strdup_printf ("loop%u", n);
  d->disk_node = g_strdup_printf ("/dev/loop%u", n);
  d->devnode = g_strdup (d->disk_node);
  d->disk_syspath = g_strdup_printf ("/sys/devices/virtual/block/loop%u", n);
  d->fs_type = g_strdup ("vfat");
  return d;
}

/* the plan for a stick on this disk's kernel (knobs read from the tree) */
static VsmPlan *
plan_for (const VsmDevice *d, VsmFlushMode mode, gboolean allow_global)
{
  g_autoptr (VsmClassification) c = vsm_classify (d);
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmKernel) k = vsm_kernel_probe (d->bdi, VSM_FLUSH_FIX_ABSENT);

  c->klass = VSM_CLASS_USB_STICK;
  p->flush_mode = mode;
  p->allow_global_knobs = allow_global;
  return vsm_plan_compute (d, c, p, k, NULL);
}

static const VsmApplyOptions options = { "test", 200 };

static void
test_apply_restore (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) error = NULL;

  s = vsm_apply (d, plan, &options, &error);
  g_assert_no_error (error);
  g_assert_false (s->pending);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "1");
  assert_file (t, "sys/class/bdi/7:0/max_bytes", "9437184");
  g_assert_true (vsm_restore ("7:0", 0, NULL, &error));
  g_assert_no_error (error);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
  assert_file (t, "sys/class/bdi/7:0/max_ratio_fine", "1000000");
  g_assert_false (vsm_restore ("7:0", 0, NULL, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
}

/* vfat-smartd's re-apply after a restore it did not see: nothing is written
 * (the lab's daemon check caught a drift re-apply undoing `restore --all`) */
static void
test_only_if_recorded (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (VsmState) s = NULL, again = NULL, first = NULL;
  g_autoptr (GError) error = NULL;
  const VsmApplyOptions recorded = { .source = "daemon",
                                     .lock_wait_ms = 200,
                                     .only_if_recorded = TRUE };

  /* never applied: refused */
  first = vsm_apply (d, plan, &recorded, &error);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
  g_assert_null (first);
  g_clear_error (&error);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
  /* recorded: applied again */
  s = vsm_apply (d, plan, &options, &error);
  g_assert_no_error (error);
  again = vsm_apply (d, plan, &recorded, &error);
  g_assert_no_error (error);
  g_assert_nonnull (again);
  /* restored meanwhile: refused, the knobs stay as restored */
  g_assert_true (vsm_restore ("7:0", 0, NULL, &error));
  g_clear_pointer (&again, vsm_state_free);
  again = vsm_apply (d, plan, &recorded, &error);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
  g_assert_null (again);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
}

/* the originals are on disk, marked pending, before the first write */
static void
test_write_ahead (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) during = NULL;
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
  VsmApply *txn;

  txn = vsm_apply_begin (d, plan, &options, &error);
  g_assert_no_error (error);
  /* as a kill now would leave it */
  {
    g_autofree char *path = g_build_filename (t->root, "run", "7-0.state", NULL);
    g_autofree char *text = NULL;
    gsize len;
    g_assert_true (g_file_get_contents (path, &text, &len, NULL));
    during = vsm_state_from_data (text, len, &error);
    g_assert_no_error (error);
  }
  g_assert_true (during->pending);
  g_assert_cmpuint (during->knobs->len, ==, 2);
  for (guint i = 0; i < during->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (during->knobs, i);
      g_assert_cmpstr (r->original, ==, "0"); /* max_bytes and strict_limit */
    }
  g_assert_true (vsm_apply_abort (txn, report));
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
  assert_file (t, "sys/class/bdi/7:0/max_ratio_fine", "1000000");
  g_assert_null (vsm_state_load ("7:0", NULL));
}

/* an apply killed between its writes: the next run puts the originals back
 * (the kill itself is reproduced with strace in tests/host/test-loop.sh) */
static void
test_interrupted_apply_is_undone (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (VsmState) s = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (t->root, "run", "7-0.state", NULL);
  g_autofree char *text = NULL;
  gsize len;

  s = vsm_apply (d, plan, &options, &error);
  g_assert_no_error (error);
  /* make the record look interrupted: pending, knobs half written */
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  g_clear_pointer (&s, vsm_state_free);
  s = vsm_state_from_data (text, len, &error);
  s->pending = TRUE;
  g_assert_true (vsm_state_save (s, &error));
  put (t, "sys/class/bdi/7:0/max_ratio_fine", "7995");

  /* a second apply first undoes it, so the originals stay the kernel's */
  g_clear_pointer (&s, vsm_state_free);
  s = vsm_apply (d, plan, &options, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < s->knobs->len; i++)
    {
      VsmKnobRecord *r = g_ptr_array_index (s->knobs, i);
      if (g_str_equal (r->name, "max_bytes"))
        g_assert_cmpstr (r->restore_value, ==, "1000000");
    }
  g_assert_true (vsm_restore ("7:0", 0, NULL, &error));
  assert_file (t, "sys/class/bdi/7:0/max_ratio_fine", "1000000");
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
}

/* a failed write puts back what this transaction wrote, and the record */
static void
test_failure_keeps_previous (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) capped = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (VsmPlan) flush = plan_for (d, VSM_FLUSH_MODE_KERNEL_FLUSH, FALSE);
  g_autoptr (VsmState) s = NULL, after = NULL;
  g_autoptr (GError) error = NULL;

  s = vsm_apply (d, capped, &options, &error);
  g_assert_no_error (error);
  /* the flush plan puts strict_limit and max_bytes back: fail the second */
  g_setenv ("VFAT_SMART_FAIL_WRITE", "2", TRUE);
  vsm_fault_reset ();
  g_assert_null (vsm_apply (d, flush, &options, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_APPLY);
  g_assert_nonnull (strstr (error->message, "every knob was put back as it was"));
  g_unsetenv ("VFAT_SMART_FAIL_WRITE");
  g_clear_error (&error);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "1");
  assert_file (t, "sys/class/bdi/7:0/max_bytes", "9437184");
  after = vsm_state_load ("7:0", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (after->flush_mode, ==, "dirty-cap");
  g_assert_false (after->pending);
}

/* a drive pulled during the transaction leaves no record behind */
static void
test_pulled_during_apply (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (GError) error = NULL;
  VsmApply *txn = vsm_apply_begin (d, plan, &options, &error);
  g_autofree char *dev = g_build_filename (t->root, "sys/block/loop0/dev", NULL);

  g_assert_no_error (error);
  g_assert_cmpint (g_unlink (dev), ==, 0); /* the disk is gone */
  g_assert_null (vsm_apply_commit (txn, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND);
  g_assert_null (vsm_state_load ("7:0", NULL));
}

/* with no room for the record nothing is written at all */
static void
test_no_room_changes_nothing (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (GError) error = NULL;
  g_autofree char *blocker = g_build_filename (t->root, "run", "7-0.state", NULL);
  g_autofree char *inside = g_build_filename (blocker, "x", NULL);

  /* a directory where the record goes: the write-ahead fails */
  g_assert_cmpint (g_mkdir_with_parents (blocker, 0755), ==, 0);
  g_assert_true (g_file_set_contents (inside, "", -1, NULL));
  g_assert_null (vsm_apply (d, plan, &options, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "nothing was changed"));
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
  assert_file (t, "sys/class/bdi/7:0/max_bytes", "0");
}

/* vm.* knobs on a kernel without per-device caps (allow-global-knobs) */
static void
test_global_knobs_and_owners (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) a = device (2);
  g_autoptr (VsmDevice) b = device (3);
  g_autoptr (VsmPlan) pa = plan_for (a, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmPlan) pb = plan_for (b, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmState) sa = NULL, sb = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmGlobalState) g = NULL;

  g_assert_cmpstr (pa->cap_via, ==, "global");
  sa = vsm_apply (a, pa, &options, &error);
  g_assert_no_error (error);
  g_assert_true (sa->uses_global);
  assert_file (t, "proc/sys/vm/dirty_bytes", "9437184");
  assert_file (t, "proc/sys/vm/dirty_background_bytes", "4718592");
  sb = vsm_apply (b, pb, &options, &error);
  g_assert_no_error (error);
  g = vsm_global_state_load (&error);
  g_assert_cmpuint (g->owners->len, ==, 2);

  /* the first to go leaves them; the last puts them back (through the
   * ratios, which were in charge) */
  g_assert_true (vsm_restore ("7:2", 0, NULL, &error));
  assert_file (t, "proc/sys/vm/dirty_bytes", "9437184");
  put (t, "proc/sys/vm/dirty_ratio", "1"); /* a kernel zeroes the ratio when bytes are set */
  g_assert_true (vsm_restore ("7:3", 0, NULL, &error));
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_ratio", "20");
  assert_file (t, "proc/sys/vm/dirty_background_ratio", "10");
  g_clear_pointer (&g, vsm_global_state_free);
  g = vsm_global_state_load (&error);
  g_assert_cmpuint (g->owners->len, ==, 0);
}

/* the vm.* knobs act on every disk: they follow the slowest drive that
 * relies on them (not the last plugged), relax when it goes, and a value
 * someone else wrote meanwhile is theirs: never overwritten, not restored */
static void
test_global_slowest_and_changed_by_other (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) a = device (2);
  g_autoptr (VsmDevice) b = device (3);
  g_autoptr (VsmPlan) pa = plan_for (a, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmPlan) pb = plan_for (b, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmState) sa = NULL, sb = NULL, sa2 = NULL;
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmGlobalState) g = NULL;
  gboolean said = FALSE;

  pb->cap_bytes = 5242880; /* a slower drive */
  sa = vsm_apply (a, pa, &options, &error);
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "9437184");
  sb = vsm_apply (b, pb, &options, &error);
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "5242880");
  assert_file (t, "proc/sys/vm/dirty_background_bytes", "2621440");
  /* the faster one applying again does not lift the bound */
  sa2 = vsm_apply (a, pa, &options, &error);
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "5242880");
  /* the slow one goes: the bound is the faster one's */
  g_assert_true (vsm_restore ("7:3", 0, report, &error));
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "9437184");
  assert_file (t, "proc/sys/vm/dirty_background_bytes", "4718592");
  /* root changes it meanwhile: a new owner leaves it, the last one too */
  put (t, "proc/sys/vm/dirty_bytes", "5000000");
  g_clear_pointer (&sb, vsm_state_free);
  sb = vsm_apply (b, pb, &options, &error);
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "5000000");
  g_assert_true (vsm_restore ("7:3", 0, NULL, &error));
  g_ptr_array_set_size (report, 0);
  g_assert_true (vsm_restore ("7:2", 0, report, &error));
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "5000000");
  assert_file (t, "proc/sys/vm/dirty_background_ratio", "10"); /* ours: put back */
  for (guint i = 0; i < report->len; i++)
    said |=
      strstr (g_ptr_array_index (report, i), "vm.dirty_bytes: changed by someone else") != NULL;
  g_assert_true (said);
  g = vsm_global_state_load (&error);
  g_assert_cmpuint (g->owners->len, ==, 0);
  g_assert_cmpuint (g->knobs->len, ==, 0);
}

/* udev at the plug and the daemon: the vm.* knobs only while a filesystem
 * of the disk is mounted. The fixture's loop disks are never mounted, so a
 * plan applied this way takes none, and a drive that held them lets go
 * (the mounted case is the lab's agent check on 6.1). */
static void
test_global_while_mounted (Tree *t, gconstpointer data)
{
  const VsmApplyOptions at_plug = { "udev", 200, TRUE };
  g_autoptr (VsmDevice) a = device (2);
  g_autoptr (VsmPlan) pa = plan_for (a, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmState) s1 = NULL, s2 = NULL, s3 = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmGlobalState) g = NULL;

  /* no such disk on this machine: nothing of it is mounted, whatever the
   * host's loop devices do meanwhile */
  g_free (a->disk_syspath);
  a->disk_syspath = g_strdup ("/sys/devices/virtual/block/vsm-test-never-mounted");
  s1 = vsm_apply (a, pa, &at_plug, &error);
  g_assert_no_error (error);
  g_assert_false (s1->uses_global);
  assert_file (t, "proc/sys/vm/dirty_bytes", "0");
  assert_file (t, "proc/sys/vm/dirty_ratio", "20");
  g = vsm_global_state_load (&error);
  g_assert_cmpuint (g->owners->len, ==, 0);
  g_clear_pointer (&g, vsm_global_state_free);
  /* an admin's apply (or the mount helper) takes them... */
  s2 = vsm_apply (a, pa, &options, &error);
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_bytes", "9437184");
  /* a kernel zeroes the ratios when the bytes are set */
  put (t, "proc/sys/vm/dirty_ratio", "0");
  put (t, "proc/sys/vm/dirty_background_ratio", "0");
  /* ...and the daemon, seeing the disk unmounted, lets go of them: the
   * ratios are written back (which zeroes the bytes in a kernel) */
  s3 = vsm_apply (a, pa, &at_plug, &error);
  g_assert_no_error (error);
  g_assert_false (s3->uses_global);
  assert_file (t, "proc/sys/vm/dirty_ratio", "20");
  assert_file (t, "proc/sys/vm/dirty_background_ratio", "10");
  g = vsm_global_state_load (&error);
  g_assert_cmpuint (g->owners->len, ==, 0);
}

/* an owner of the vm.* knobs without a record (a crash, a full /run) is
 * dropped by restore --all, which then puts the knobs back */
static void
test_phantom_owner (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) a = device (2);
  g_autoptr (VsmPlan) pa = plan_for (a, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmState) sa = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);

  sa = vsm_apply (a, pa, &options, &error);
  g_assert_no_error (error);
  put (t, "proc/sys/vm/dirty_ratio", "0");
  g_assert_true (vsm_state_remove ("7:2", &error));
  g_assert_true (vsm_restore_all (report, &error));
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_ratio", "20");
}

/* what the daemon does at start: only the owners without a record go; a
 * disk that still has its record keeps the vm.* knobs as they are */
static void
test_release_phantom_owners (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) a = device (2);
  g_autoptr (VsmDevice) b = device (3);
  g_autoptr (VsmPlan) pa = plan_for (a, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmPlan) pb = plan_for (b, VSM_FLUSH_MODE_AUTO, TRUE);
  g_autoptr (VsmState) sa = NULL;
  g_autoptr (VsmState) sb = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);

  sa = vsm_apply (a, pa, &options, &error);
  g_assert_no_error (error);
  sb = vsm_apply (b, pb, &options, &error);
  g_assert_no_error (error);
  put (t, "proc/sys/vm/dirty_ratio", "0");
  g_assert_true (vsm_state_remove ("7:2", &error));
  g_assert_true (vsm_release_phantom_owners (report, &error));
  g_assert_no_error (error);
  /* 7:3 still owns them: nothing written */
  assert_file (t, "proc/sys/vm/dirty_ratio", "0");
  g_assert_true (vsm_state_remove ("7:3", &error));
  g_assert_true (vsm_release_phantom_owners (report, &error));
  g_assert_no_error (error);
  assert_file (t, "proc/sys/vm/dirty_ratio", "20");
  g_assert_cmpstr (g_ptr_array_index (report, 0), ==, "vm.* knobs: 7:2 had no record");
}

/* a record that cannot be trusted is reported, not hidden, and can be forgotten */
static void
test_corrupt_record_is_reported (Tree *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);

  put (t, "run/7-0.state", "[disk]\nbdi=7:0\nknobs=strict_limit;\n");
  g_assert_false (vsm_restore_all (report, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_assert_nonnull (strstr (error->message, "7-0.state"));
  g_clear_error (&error);
  g_assert_true (vsm_forget ("7:0", 0, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (vsm_restore_all (report, &error));
}

/* a held lock: a bounded wait, then BUSY, and nothing changed */
static void
test_lock_is_bounded (Tree *t, gconstpointer data)
{
  g_autoptr (VsmDevice) d = device (0);
  g_autoptr (VsmPlan) plan = plan_for (d, VSM_FLUSH_MODE_AUTO, FALSE);
  g_autoptr (GError) error = NULL;
  int held = vsm_state_lock (0, &error);
  gint64 t0;

  g_assert_no_error (error);
  g_assert_cmpint (held, >=, 0);
  t0 = g_get_monotonic_time ();
  g_assert_null (vsm_apply (d, plan, &options, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_BUSY);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
  vsm_state_unlock (held);
}

/* --- intent: what a front end asked is recorded, and a re-apply plans
 * from it with the new measurement --- */

/* the mount helper's apply of disk n with what a person chose */
static VsmState *
apply_asked (guint n, const VsmOverrides *o)
{
  g_autoptr (VsmAssessment) a = vsm_assess_device (device (n), vsm_policy_new_default (), o);
  const VsmApplyOptions mount = { VSM_SOURCE_MOUNT, 200 };
  g_autoptr (GError) error = NULL;
  VsmState *s = NULL;

  g_assert_true (vsm_assessment_apply (a, &mount, NULL, NULL, &s, &error));
  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

/* vfat-smartd's re-apply with a measured bandwidth */
static VsmState *
reapply (guint n, guint64 bandwidth, gboolean set_options, const VsmUserOptions *sent)
{
  VsmReapply r = { .reason = "test",
                   .bandwidth = bandwidth,
                   .bandwidth_source = "measured",
                   .policy = vsm_policy_new_default (),
                   .set_user_options = set_options,
                   .user_options = sent };
  g_autoptr (GError) error = NULL;
  VsmState *s = NULL;

  g_assert_true (vsm_reapply_device (device (n), &r, &s, &error));
  g_assert_no_error (error);
  g_assert_nonnull (s);
  return s;
}

static void
test_intent_recorded (Tree *t, gconstpointer data)
{
  VsmOverrides o = { .set_class = TRUE, .klass = VSM_CLASS_USB_HDD };
  G_GNUC_UNUSED g_autoptr (VsmState) s = apply_asked (0, &o);
  g_autoptr (VsmState) loaded = vsm_state_load ("7:0", NULL);

  g_assert_nonnull (loaded);
  g_assert_nonnull (loaded->intent);
  g_assert_cmpstr (loaded->intent->source, ==, VSM_SOURCE_MOUNT);
  g_assert_true (loaded->intent->set_class);
  g_assert_cmpint (loaded->intent->klass, ==, VSM_CLASS_USB_HDD);
  g_assert_cmpint (loaded->intent->flush_mode, ==, VSM_FLUSH_MODE_AUTO);
  g_assert_nonnull (loaded->intent->policy_origin);
  g_assert_null (loaded->intent->user_options);
}

/* an explicit class stays over a re-apply (the loop disk alone would be
 * internal, left alone) */
static void
test_reapply_keeps_class (Tree *t, gconstpointer data)
{
  VsmOverrides o = { .set_class = TRUE, .klass = VSM_CLASS_USB_HDD };
  g_autoptr (VsmState) first = apply_asked (0, &o);
  g_autoptr (VsmState) again = reapply (0, 50 * 1000 * 1000, FALSE, NULL);

  g_assert_cmpstr (again->class_name, ==, "usb-hdd");
  g_assert_cmpstr (again->flush_mode, ==, "dirty-cap");
  g_assert_cmpuint (again->bandwidth, ==, 50 * 1000 * 1000);
  g_assert_false (again->pace_writeback); /* a hard disk is not paced */
  g_assert_cmpstr (again->intent->source, ==, VSM_SOURCE_MOUNT);
  g_assert_true (again->intent->set_class);
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "1");
  /* the mount helper applied first and owns the knobs; the daemon applied
   * last (its drift check skips its own applies) */
  g_assert_cmpstr (first->updated_by, ==, VSM_SOURCE_MOUNT);
  g_assert_cmpstr (again->source, ==, VSM_SOURCE_MOUNT);
  g_assert_cmpstr (again->updated_by, ==, VSM_SOURCE_DAEMON);
}

/* -o sync stays: no cap knobs on a sync mount, no pacing */
static void
test_reapply_keeps_sync (Tree *t, gconstpointer data)
{
  VsmOverrides o = { .set_class = TRUE,
                     .klass = VSM_CLASS_USB_STICK,
                     .flush_mode = VSM_FLUSH_MODE_SYNC };
  g_autoptr (VsmState) first = apply_asked (0, &o);
  g_autoptr (VsmState) again = NULL;

  g_assert_cmpstr (first->flush_mode, ==, "sync");
  again = reapply (0, 30 * 1000 * 1000, FALSE, NULL);
  g_assert_cmpstr (again->class_name, ==, "usb-stick");
  g_assert_cmpstr (again->flush_mode, ==, "sync");
  g_assert_cmpuint (again->cap_bytes, ==, 0);
  g_assert_cmpuint (again->knobs->len, ==, 0);
  g_assert_false (again->pace_writeback);
  g_assert_cmpstr (again->mount_options, ==, VSM_VFAT_BASE_OPTIONS ",sync");
  assert_file (t, "sys/class/bdi/7:0/strict_limit", "0");
  assert_file (t, "sys/class/bdi/7:0/max_bytes", "0");
}

/* -o flush stays: kernel-flush, no cap */
static void
test_reapply_keeps_flush (Tree *t, gconstpointer data)
{
  VsmOverrides o = { .set_class = TRUE,
                     .klass = VSM_CLASS_USB_STICK,
                     .flush_mode = VSM_FLUSH_MODE_KERNEL_FLUSH };
  G_GNUC_UNUSED g_autoptr (VsmState) first = apply_asked (0, &o);
  g_autoptr (VsmState) again = reapply (0, 30 * 1000 * 1000, FALSE, NULL);

  g_assert_cmpstr (again->flush_mode, ==, "kernel-flush");
  g_assert_cmpuint (again->cap_bytes, ==, 0);
  g_assert_cmpuint (again->knobs->len, ==, 0);
  g_assert_false (again->pace_writeback);
  g_assert_cmpstr (again->mount_options, ==, VSM_VFAT_BASE_OPTIONS ",flush");
}

/* options sent for the drive stay in the intent until they change: a
 * later re-apply (a new measurement) sizes the cap with them */
static void
test_reapply_keeps_user_options (Tree *t, gconstpointer data)
{
  VsmOverrides o = { .set_class = TRUE, .klass = VSM_CLASS_USB_STICK };
  G_GNUC_UNUSED g_autoptr (VsmState) first = apply_asked (0, &o);
  g_autoptr (VsmPolicy) admin = vsm_policy_new_default ();
  g_autoptr (VsmUserOptions) uo = vsm_user_options_new ();
  g_autoptr (GVariantBuilder) b = g_variant_builder_new (G_VARIANT_TYPE_VARDICT);
  g_autoptr (GVariant) v = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) set = NULL, again = NULL, cleared = NULL;
  const guint64 bw = 64 * 1024 * 1024;

  g_variant_builder_add (b, "{sv}", "max-dirty-seconds", g_variant_new_double (1.0));
  v = g_variant_ref_sink (g_variant_builder_end (b));
  g_assert_true (vsm_user_options_update (uo, v, admin, FALSE, 0, NULL, &error));
  g_assert_no_error (error);

  set = reapply (0, bw, TRUE, uo);
  g_assert_nonnull (set->intent->user_options);
  /* a stick while files are written: a quarter of 1 s at 64 MiB/s */
  g_assert_cmpuint (set->cap_bytes, ==, bw / 4);
  /* a new measurement: the options are the record's, not sent again */
  again = reapply (0, 2 * bw, FALSE, NULL);
  g_assert_nonnull (again->intent->user_options);
  g_assert_cmpuint (again->cap_bytes, ==, bw / 2);
  g_assert_true (again->intent->set_class);
  g_assert_cmpstr (again->class_name, ==, "usb-stick");
  /* the mount they were set for ended: gone, the policy's 2 s again */
  cleared = reapply (0, bw, TRUE, NULL);
  g_assert_null (cleared->intent->user_options);
  g_assert_cmpuint (cleared->cap_bytes, ==, bw / 2);
}

/* the daemon paces one big file: the whole of max-dirty-seconds, and
 * the plan says why; the next re-apply without it goes back to a quarter */
static void
test_reapply_one_big_file (Tree *t, gconstpointer data)
{
  VsmOverrides o = { .set_class = TRUE, .klass = VSM_CLASS_USB_STICK };
  G_GNUC_UNUSED g_autoptr (VsmState) first = apply_asked (0, &o);
  const guint64 bw = 16 * 1024 * 1024;
  VsmReapply r = { .reason = "one big file paced",
                   .bandwidth = bw,
                   .bandwidth_source = "measured",
                   .policy = vsm_policy_new_default (),
                   .one_big_file = TRUE };
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) big = NULL, many = NULL;
  gboolean said = FALSE;

  g_assert_true (vsm_reapply_device (device (0), &r, &big, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (big->cap_bytes, ==, 2 * bw);
  for (guint i = 0; i < big->reasons->len; i++)
    said = said || strstr (((VsmReason *)g_ptr_array_index (big->reasons, i))->text,
                           "x 2 s while the daemon paces one big file") != NULL;
  g_assert_true (said);
  many = reapply (0, bw, FALSE, NULL);
  g_assert_cmpuint (many->cap_bytes, ==, bw / 2);
}

/* a record from before intents: loads, and a re-apply plans from the
 * policy as it did (the loop disk is internal: left alone, restored) */
static void
test_old_record_without_intent (Tree *t, gconstpointer data)
{
  static const char old[] = "[disk]\nbdi=7:0\nname=loop0\nclass=usb-stick\n"
                            "flush-mode=dirty-cap\nsource=udev\nknobs=\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) s = vsm_state_from_data (old, strlen (old), &error);
  g_autofree char *data_out = NULL;
  VsmReapply r = { .reason = "test", .policy = vsm_policy_new_default () };
  VsmState *after = NULL;

  g_assert_no_error (error);
  g_assert_null (s->intent);
  data_out = vsm_state_to_data (s, NULL);
  g_assert_null (strstr (data_out, "[intent]"));

  g_assert_true (vsm_state_write_file ("7-0.state", old, strlen (old), &error));
  g_assert_true (vsm_reapply_device (device (0), &r, &after, &error));
  g_assert_no_error (error);
  g_assert_null (after); /* internal: left alone, as before */
}

/* a bad intent in a record is not obeyed */
static void
test_bad_intent_refused (Tree *t, gconstpointer data)
{
  static const char bad[] = "[disk]\nbdi=7:0\nknobs=\n[intent]\nsource=udev\nclass=floppy\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) s = vsm_state_from_data (bad, strlen (bad), &error);

  g_assert_null (s);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
}

/* a writer that paused holds its file open for writing: found on the disk
 * whose file system holds the file, not once it closed it, and not for a
 * reader (the tree's /proc has this process only; the file is a memfd, on
 * a file system where nothing else of this process writes, valgrind's own
 * files included) */
static void
test_open_writers (Tree *t, gconstpointer data)
{
  g_autofree char *disk = g_build_filename (t->root, "sys/devices/fake/block/sdz", NULL);
  g_autofree char *self = g_strdup_printf ("/proc/%d", (int)getpid ());
  g_autofree char *link = g_build_filename (t->root, "proc", "4242", NULL);
  g_autofree char *dev = NULL, *reopen = NULL;
  struct stat st;
  int fd, ro;

  fd = memfd_create ("vsm-open-writers", MFD_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  dev = g_strdup_printf ("%u:%u\n", major (st.st_dev), minor (st.st_dev));
  put (t, "sys/devices/fake/block/sdz/dev", dev);
  g_assert_cmpint (symlink (self, link), ==, 0);

  g_assert_true (vsm_disk_has_open_writers (disk));
  /* the same file open for reading only */
  reopen = g_strdup_printf ("/proc/self/fd/%d", fd);
  ro = open (reopen, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (ro, >=, 0);
  close (fd);
  g_assert_false (vsm_disk_has_open_writers (disk));
  close (ro);
  g_assert_false (vsm_disk_has_open_writers (disk));
  /* another disk */
  fd = memfd_create ("vsm-open-writers", MFD_CLOEXEC);
  put (t, "sys/devices/fake/block/sdz/dev", "259:99\n");
  g_assert_false (vsm_disk_has_open_writers (disk));
  close (fd);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Tree, NULL, tree_setup, fn, tree_teardown)
  ADD ("/apply/apply-restore", test_apply_restore);
  ADD ("/apply/open-writers", test_open_writers);
  ADD ("/apply/write-ahead", test_write_ahead);
  ADD ("/apply/interrupted-apply-is-undone", test_interrupted_apply_is_undone);
  ADD ("/apply/failure-keeps-previous", test_failure_keeps_previous);
  ADD ("/apply/no-room-changes-nothing", test_no_room_changes_nothing);
  ADD ("/apply/pulled-during-apply", test_pulled_during_apply);
  ADD ("/apply/global-knobs-and-owners", test_global_knobs_and_owners);
  ADD ("/apply/global-slowest-and-changed-by-other", test_global_slowest_and_changed_by_other);
  ADD ("/apply/global-while-mounted", test_global_while_mounted);
  ADD ("/apply/phantom-owner", test_phantom_owner);
  ADD ("/apply/release-phantom-owners", test_release_phantom_owners);
  ADD ("/apply/corrupt-record-is-reported", test_corrupt_record_is_reported);
  ADD ("/apply/lock-is-bounded", test_lock_is_bounded);
  ADD ("/apply/only-if-recorded", test_only_if_recorded);
  ADD ("/intent/recorded", test_intent_recorded);
  ADD ("/intent/reapply-keeps-class", test_reapply_keeps_class);
  ADD ("/intent/reapply-keeps-sync", test_reapply_keeps_sync);
  ADD ("/intent/reapply-keeps-flush", test_reapply_keeps_flush);
  ADD ("/intent/reapply-keeps-user-options", test_reapply_keeps_user_options);
  ADD ("/intent/reapply-one-big-file", test_reapply_one_big_file);
  ADD ("/intent/old-record-without-intent", test_old_record_without_intent);
  ADD ("/intent/bad-intent-refused", test_bad_intent_refused);
  return g_test_run ();
}
