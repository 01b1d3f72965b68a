/* vsm-udev.h - what the udev helper reads from its event and exports
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

G_BEGIN_DECLS

/* One KEY=VALUE line for udev's IMPORT{program}, or NULL when the value
 * holds anything outside the small alphabet of option strings and class
 * names (so nothing from a device can forge a line or an option). */
char *vsm_udev_env_line (const char *key, const char *value);

/* The properties for a disk or partition event, in order. applied: the
 * knobs are in place; is_fs: the event is for the device holding the
 * filesystem (partition or superfloppy); udisks_conf: udisks'
 * mount_options.conf, whose defaults for the filesystem (the device's
 * section, named by the event's DEVNAME or DEVLINKS, else [defaults]) the
 * plan changes only where it must (vsm-udisks.h); NULL: udisks' built-in
 * set. */
GPtrArray *vsm_udev_properties (const VsmAssessment *a, gboolean applied, gboolean is_fs,
                                const char *const *envp, const char *udisks_conf);

G_END_DECLS
