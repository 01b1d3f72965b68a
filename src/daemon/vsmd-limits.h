/* vsmd-limits.c - bounds on what a caller may send vfat-smartd
 *
 * What an authorised caller sends is still bounded: the size and count of
 * every value, no control character in any string (they would reach root's
 * log and the options file raw), and a rate per caller.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* SetOptions: at most this many keys, items per array, bytes per string
 * and bytes in all; the options file written from them stays far below
 * the 256 KiB that loading it accepts */
#define VSMD_MAX_OPTIONS 32
#define VSMD_MAX_ITEMS 64
#define VSMD_MAX_STRING_BYTES 256
#define VSMD_MAX_OPTIONS_BYTES (16 * 1024)

/* a caller (unique bus name) may make this many calls that change
 * something at once, and gets this many back per second */
#define VSMD_CALLS_BURST 20
#define VSMD_CALLS_PER_SECOND 5

/* TRUE when options (a{sv}) are within the bounds above; else
 * VSM_ERROR_INVALID_ARGUMENT saying which bound (never quoting the
 * offending text). */
gboolean vsmd_limits_check_options (GVariant *options, GError **error);

/* TRUE when the caller of inv may make another call now (it is counted);
 * else inv is answered with VSM_ERROR_BUSY and the result is FALSE. */
gboolean vsmd_limits_take_call (GDBusMethodInvocation *inv);

G_END_DECLS
