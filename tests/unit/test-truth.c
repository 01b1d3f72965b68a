/* test-truth.c - the flush mode status and vfat-smartd report follows the
 * mount as the kernel shows it, not only the plan (vsm-truth.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-mount.h"
#include "vsm-truth.h"

#include <string.h>

/* udisks' Filesystem.Mount as KDE's Solid calls it: flush added to the
 * options vfat-smart exported */
#define SOLID_VFAT                                                                                 \
  "rw,nosuid,nodev,relatime,uid=1000,gid=1000,fmask=0022,dmask=0022,codepage=437,"                 \
  "iocharset=ascii,shortname=mixed,showexec,utf8,flush,errors=remount-ro"
#define UDISKS_VFAT_CAP                                                                            \
  "rw,nosuid,nodev,relatime,uid=1000,gid=1000,fmask=0022,dmask=0022,codepage=437,"                 \
  "iocharset=ascii,shortname=mixed,showexec,utf8,errors=remount-ro"
#define UDISKS_EXFAT                                                                               \
  "rw,nosuid,nodev,relatime,uid=1000,gid=1000,fmask=0022,dmask=0022,iocharset=utf8,"               \
  "errors=remount-ro"

static void
test_flush_mount_is_kernel_flush (void)
{
  g_autoptr (VsmFlushTruth) t =
    vsm_flush_truth_compute ("dirty-cap", "vfat", "vfat", SOLID_VFAT, TRUE);

  g_assert_cmpstr (t->mode, ==, "kernel-flush");
  g_assert_cmpstr (t->planned, ==, "dirty-cap");
  g_assert_nonnull (t->reason);
  g_assert_nonnull (
    strstr (t->reason, "the mount has flush (asked by the client that mounted it)"));
  /* the cap stays, and status says so */
  g_assert_nonnull (strstr (t->reason, "cap stays in place"));
  g_assert_nonnull (t->safety);
}

static void
test_planned_mount_unchanged (void)
{
  g_autoptr (VsmFlushTruth) cap =
    vsm_flush_truth_compute ("dirty-cap", "vfat", "vfat", UDISKS_VFAT_CAP, TRUE);
  g_autoptr (VsmFlushTruth) flush =
    vsm_flush_truth_compute ("kernel-flush", "vfat", "vfat", SOLID_VFAT, FALSE);
  g_autoptr (VsmFlushTruth) unmounted =
    vsm_flush_truth_compute ("dirty-cap", "vfat", NULL, NULL, TRUE);
  g_autoptr (VsmFlushTruth) exfat_cap =
    vsm_flush_truth_compute ("dirty-cap", "exfat", "exfat", UDISKS_EXFAT, TRUE);

  g_assert_cmpstr (cap->mode, ==, "dirty-cap");
  g_assert_null (cap->reason);
  g_assert_cmpstr (flush->mode, ==, "kernel-flush");
  g_assert_null (flush->reason);
  g_assert_cmpstr (unmounted->mode, ==, "dirty-cap");
  g_assert_null (unmounted->reason);
  g_assert_cmpstr (exfat_cap->mode, ==, "dirty-cap");
  g_assert_null (exfat_cap->reason);
}

/* Linux 6.1 has no per-device cap: an exFAT record that says kernel-flush
 * (a record of the whole disk, or an old one) is never reported as such */
static void
test_exfat_never_kernel_flush (void)
{
  g_autoptr (VsmFlushTruth) mounted =
    vsm_flush_truth_compute ("kernel-flush", "exfat", "exfat", UDISKS_EXFAT, FALSE);
  g_autoptr (VsmFlushTruth) unmounted =
    vsm_flush_truth_compute ("kernel-flush", "exfat", NULL, NULL, FALSE);
  g_autoptr (VsmFlushTruth) with_cap =
    vsm_flush_truth_compute ("kernel-flush", "exfat", "exfat", UDISKS_EXFAT, TRUE);
  /* no record of the file system: the mount tells */
  g_autoptr (VsmFlushTruth) unknown =
    vsm_flush_truth_compute ("kernel-flush", NULL, "exfat", UDISKS_EXFAT, FALSE);
  /* "flush" in an exFAT mount's options is nobody's flush */
  g_autoptr (VsmFlushTruth) odd =
    vsm_flush_truth_compute ("kernel-flush", "exfat", "exfat", UDISKS_EXFAT ",flush", FALSE);

  g_assert_cmpstr (mounted->mode, ==, "off");
  g_assert_nonnull (strstr (mounted->reason, "exFAT has no flush option"));
  g_assert_cmpstr (unmounted->mode, ==, "off");
  g_assert_cmpstr (with_cap->mode, ==, "dirty-cap");
  g_assert_nonnull (with_cap->reason);
  g_assert_cmpstr (unknown->mode, ==, "off");
  g_assert_cmpstr (odd->mode, ==, "off");
}

static void
test_client_options (void)
{
  g_autoptr (VsmFlushTruth) sync =
    vsm_flush_truth_compute ("dirty-cap", "vfat", "vfat", "rw,sync,relatime,uid=0", TRUE);
  g_autoptr (VsmFlushTruth) noflush_cap =
    vsm_flush_truth_compute ("kernel-flush", "vfat", "vfat", UDISKS_VFAT_CAP, TRUE);
  g_autoptr (VsmFlushTruth) noflush =
    vsm_flush_truth_compute ("kernel-flush", "vfat", "vfat", UDISKS_VFAT_CAP, FALSE);
  /* "flush" only as part of another option's value is not flush */
  g_autoptr (VsmFlushTruth) lookalike =
    vsm_flush_truth_compute ("dirty-cap", "vfat", "vfat", "rw,iocharset=flush", TRUE);

  g_assert_cmpstr (sync->mode, ==, "sync");
  g_assert_nonnull (sync->reason);
  g_assert_cmpstr (noflush_cap->mode, ==, "dirty-cap");
  g_assert_cmpstr (noflush->mode, ==, "off");
  g_assert_nonnull (strstr (noflush->safety, "LESS SAFE"));
  g_assert_cmpstr (lookalike->mode, ==, "dirty-cap");
}

static VsmKnobRecord *
record (const char *name, const char *original, const char *applied)
{
  VsmKnobRecord *r = g_new0 (VsmKnobRecord, 1);

  r->name = g_strdup (name);
  r->original = g_strdup (original);
  r->applied = g_strdup (applied);
  return r;
}

/* from a record and its mounts, as status and vfat-smartd call it */
static void
test_for_state (void)
{
  g_autoptr (VsmState) s = vsm_state_new ("8:16");
  g_autoptr (GPtrArray) mounts =
    g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_mount_info_free);
  VsmMountInfo *m = g_new0 (VsmMountInfo, 1);
  g_autoptr (VsmFlushTruth) t = NULL;
  g_autoptr (VsmFlushTruth) dropped = NULL;

  s->flush_mode = g_strdup ("dirty-cap");
  s->fs_type = g_strdup ("vfat");
  g_ptr_array_add (s->knobs, record ("strict_limit", "0", "1"));
  g_ptr_array_add (s->knobs, record ("max_bytes", "0", "41943040"));
  m->source = g_strdup ("/dev/sdb1");
  m->target = g_strdup ("/media/u/STICK");
  m->fstype = g_strdup ("vfat");
  m->options = g_strdup (SOLID_VFAT);
  g_ptr_array_add (mounts, m);

  g_assert_true (vsm_state_has_device_cap (s));
  g_assert_false (vsm_state_strict_limit_dropped (s));
  t = vsm_flush_truth_for_state (s, mounts);
  g_assert_cmpstr (t->mode, ==, "kernel-flush");
  g_assert_true (t->cap_in_place);
  g_assert_false (t->strict_limit_dropped);

  /* vfat-smartd's stall fallback: strict_limit back to 0, max_bytes kept */
  g_free (((VsmKnobRecord *)g_ptr_array_index (s->knobs, 0))->applied);
  ((VsmKnobRecord *)g_ptr_array_index (s->knobs, 0))->applied = g_strdup ("0");
  dropped = vsm_flush_truth_for_state (s, mounts);
  g_assert_true (dropped->strict_limit_dropped);
  g_assert_true (dropped->cap_in_place);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/truth/flush-mount-is-kernel-flush", test_flush_mount_is_kernel_flush);
  g_test_add_func ("/truth/planned-mount-unchanged", test_planned_mount_unchanged);
  g_test_add_func ("/truth/exfat-never-kernel-flush", test_exfat_never_kernel_flush);
  g_test_add_func ("/truth/client-options", test_client_options);
  g_test_add_func ("/truth/for-state", test_for_state);
  return g_test_run ();
}
