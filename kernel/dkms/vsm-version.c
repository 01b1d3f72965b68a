// SPDX-License-Identifier: GPL-2.0-only
/*
 * Marker for vfat-smart's out-of-tree build of the FAT flush fix.
 *
 * Added only by the out-of-tree build (kernel/build-modules, dkms.conf),
 * never part of the upstream patch. vfat-smart reads /sys/module/fat/version
 * and treats a value containing "vfat-smart-flushfix" as "fix present".
 */
#include <linux/module.h>

#ifndef VSM_FLUSHFIX_VERSION
#error "VSM_FLUSHFIX_VERSION must be set by the Kbuild file"
#endif

MODULE_VERSION(VSM_FLUSHFIX_VERSION);
