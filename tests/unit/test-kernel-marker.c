/* test-kernel-marker.c - a stale patched fat module: the source version in the marker
 * against the running kernel's (vsm_flush_fix_marker_stale in vsm-kernel.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-kernel.h"

#include <glib.h>

/* in vsm-kernel.c (not yet in vsm-kernel.h) */
gboolean vsm_flush_fix_marker_stale (const char *module_version, const char *proc_version,
                                     char **built_from, char **running);

#define PROC_6_12(v)                                                                               \
  "Linux version 6.12.117+deb12-amd64 (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-12 "  \
  "(Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP "              \
  "PREEMPT_DYNAMIC Debian " v " (2025-11-20)\n"

static void
check (const char *module_version, const char *proc_version, gboolean want, const char *want_built,
       const char *want_running)
{
  g_autofree char *built = NULL, *running = NULL;

  g_assert_cmpint (vsm_flush_fix_marker_stale (module_version, proc_version, &built, &running), ==,
                   want);
  g_assert_cmpstr (built, ==, want_built);
  g_assert_cmpstr (running, ==, want_running);
}

static void
test_marker_stale (void)
{
  /* built from the running kernel's source: not stale */
  check ("2.0-vfat-smart-flushfix-hybrid/src=6.12.117-1~deb12u1\n",
         PROC_6_12 ("6.12.117-1~deb12u1"), FALSE, "6.12.117-1~deb12u1", "6.12.117-1~deb12u1");
  /* the package was updated in place (same release name): stale */
  check ("2.0-vfat-smart-flushfix-hybrid/src=6.12.117-1~deb12u1", PROC_6_12 ("6.12.118-1~deb12u1"),
         TRUE, "6.12.117-1~deb12u1", "6.12.118-1~deb12u1");
  /* 6.1: the compiler's "Debian 12.2.0-14" earlier in the line is not the kernel's */
  check ("2.0-vfat-smart-flushfix-wait0/src=6.1.158-1",
         "Linux version 6.1.0-41-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian "
         "12.2.0-14+deb12u1) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.159-1 (2025-12-01)",
         TRUE, "6.1.158-1", "6.1.159-1");
  /* an epoch and a + are Debian version characters */
  check ("3-vfat-smart-flushfix-hybrid/src=1:7.3~rc7-1~exp1+b1",
         "Linux version 7.3.0-rc7-amd64 #1 SMP Debian 1:7.3~rc7-1~exp1+b1 (2026-11-30)", FALSE,
         "1:7.3~rc7-1~exp1+b1", "1:7.3~rc7-1~exp1+b1");
}

static void
test_marker_unknown (void)
{
  /* the marker before it named its source, or built with --force-source: cannot tell */
  check ("1.0-vfat-smart-flushfix-hybrid", PROC_6_12 ("6.12.118-1~deb12u1"), FALSE, NULL,
         "6.12.118-1~deb12u1");
  check ("2.0-vfat-smart-flushfix-hybrid", PROC_6_12 ("6.12.118-1~deb12u1"), FALSE, NULL,
         "6.12.118-1~deb12u1");
  /* not a Debian kernel (no "Debian VERSION" in /proc/version) */
  check ("2.0-vfat-smart-flushfix-hybrid/src=6.12.117-1~deb12u1",
         "Linux version 6.18.44 (builder@host) (gcc (GCC) 15.3.0) #1 SMP PREEMPT_DYNAMIC @0", FALSE,
         "6.12.117-1~deb12u1", NULL);
  /* not our module: no marker, no src= of ours */
  check ("6.12.117/src=6.12.117-1~deb12u1", PROC_6_12 ("6.12.118-1~deb12u1"), FALSE, NULL,
         "6.12.118-1~deb12u1");
  check (NULL, NULL, FALSE, NULL, NULL);
  /* garbage after the version is not a version */
  check ("2.0-vfat-smart-flushfix-hybrid/src=6.12.117-1;rm", PROC_6_12 ("6.12.118-1~deb12u1"),
         FALSE, NULL, "6.12.118-1~deb12u1");
  /* NULL out-arguments are allowed */
  g_assert_true (
    vsm_flush_fix_marker_stale ("2.0-vfat-smart-flushfix-hybrid/src=6.12.117-1~deb12u1",
                                PROC_6_12 ("6.12.118-1~deb12u1"), NULL, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel/marker-stale", test_marker_stale);
  g_test_add_func ("/kernel/marker-unknown", test_marker_unknown);
  return g_test_run ();
}
