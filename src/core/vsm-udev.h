/* vsm-udev.h - what the udev helper exports
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-manager.h"

G_BEGIN_DECLS

/* One KEY=VALUE line for udev's IMPORT{program}, or NULL when the value
 * holds anything outside the small alphabet of option strings and class
 * names (so nothing from a device can forge a line or an option). */
char *vsm_udev_env_line (const char *key, const char *value);

/* The properties for a disk or partition event, in order. is_fs: the event
 * is for the device holding the filesystem (partition or superfloppy). */
GPtrArray *vsm_udev_properties (const VsmAssessment *a, gboolean applied, gboolean is_fs);

G_END_DECLS
