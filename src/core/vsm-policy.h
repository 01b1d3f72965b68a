/* vsm-policy.h - the GSettings policy, validated
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-kernel.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* the kernel-flush-fix key: the detection (auto) or what an admin knows */
typedef enum
{
  VSM_FLUSH_FIX_SETTING_AUTO,
  VSM_FLUSH_FIX_SETTING_PRESENT,
  VSM_FLUSH_FIX_SETTING_ABSENT,
} VsmFlushFixSetting;

gboolean vsm_flush_mode_from_string (const char *text, VsmFlushMode *out);

#define VSM_POLICY_MIN_BANDWIDTH G_GUINT64_CONSTANT (100000)
#define VSM_POLICY_MAX_BANDWIDTH G_GUINT64_CONSTANT (10000000000)

void vsm_policy_set_origin (VsmPolicy *policy, const char *key, const char *origin);
gboolean vsm_policy_is_locked (const VsmPolicy *policy, const char *key);

VsmPolicy *vsm_policy_new_default (void);

/* Validates one key's value and stores it; a bad value is recorded in
 * problems and the previous (default) value kept. Returns FALSE then. */
gboolean vsm_policy_set (VsmPolicy *policy, const char *key, GVariant *value);

/* Checks what no single key can: min <= max. */
void vsm_policy_validate (VsmPolicy *policy);

VsmPolicy *vsm_policy_load_from_settings (GSettings *settings);

G_END_DECLS
