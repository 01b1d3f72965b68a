/* vsm-policy.h - the GSettings policy, validated
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-classify.h"
#include "vsm-kernel.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  VSM_FLUSH_MODE_AUTO,
  VSM_FLUSH_MODE_KERNEL_FLUSH,
  VSM_FLUSH_MODE_DIRTY_CAP,
  VSM_FLUSH_MODE_SYNC,
  VSM_FLUSH_MODE_OFF,
  VSM_FLUSH_MODE_LAST, /*< skip >*/
} VsmFlushMode;

/* the kernel-flush-fix key: the detection (auto) or what an admin knows */
typedef enum
{
  VSM_FLUSH_FIX_SETTING_AUTO,
  VSM_FLUSH_FIX_SETTING_PRESENT,
  VSM_FLUSH_FIX_SETTING_ABSENT,
} VsmFlushFixSetting;

const char *vsm_flush_mode_to_string (VsmFlushMode mode);
gboolean vsm_flush_mode_from_string (const char *text, VsmFlushMode *out);

#define VSM_POLICY_MIN_BANDWIDTH G_GUINT64_CONSTANT (100000)
#define VSM_POLICY_MAX_BANDWIDTH G_GUINT64_CONSTANT (10000000000)

typedef struct
{
  gboolean enabled;
  VsmFlushMode flush_mode;
  double max_dirty_seconds;
  guint64 cap_min_bytes;
  guint64 cap_max_bytes;
  VsmFlushMode class_mode[VSM_CLASS_LAST]; /* AUTO: not set */
  guint64 class_bandwidth[VSM_CLASS_LAST]; /* 0: not set */
  VsmFlushFix kernel_flush_fix;            /* UNKNOWN: auto */
  gboolean allow_global_knobs;
  GStrv ignore_devices;
  gboolean allow_user_tuning;
  double user_max_dirty_seconds;
  gboolean notify_safe;
  GPtrArray *problems; /* what was wrong, in words */
  char *source;
  /* key -> where its value came from ("admin", "locked", "user"); a key
   * not in it has the built-in default */
  GHashTable *origins;
  GHashTable *values; /* key -> GVariant, as last set */
} VsmPolicy;

/* the keys a user may set for the drives that user mounts (through
 * vfat-smart agent and SetOptions); every other key is the admin's */
extern const char *const vsm_policy_user_keys[];
gboolean vsm_policy_is_user_key (const char *key);

/* "built-in", "admin", "locked" or "user" */
const char *vsm_policy_get_origin (const VsmPolicy *policy, const char *key);
void vsm_policy_set_origin (VsmPolicy *policy, const char *key, const char *origin);
gboolean vsm_policy_is_locked (const VsmPolicy *policy, const char *key);
/* the key's value in the policy, as GVariant text (NULL: unknown key) */
char *vsm_policy_print_value (const VsmPolicy *policy, const char *key);
/* every key of the schema, in its order */
const char *vsm_policy_key_name (gsize i);
gsize vsm_policy_n_keys (void);

void vsm_policy_free (VsmPolicy *policy);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmPolicy, vsm_policy_free)

VsmPolicy *vsm_policy_new_default (void);

/* Validates one key's value and stores it; a bad value is recorded in
 * problems and the previous (default) value kept. Returns FALSE then. */
gboolean vsm_policy_set (VsmPolicy *policy, const char *key, GVariant *value);

/* Checks what no single key can: min <= max. */
void vsm_policy_validate (VsmPolicy *policy);

/* Reads every key from GSettings (the installed org.vfatsmart schema);
 * without the schema the defaults are used and that is recorded. With
 * $VFAT_SMART_SETTINGS_DIR set (tests, or a system without dconf) the
 * settings are that directory's keyfile "settings", its "defaults" and
 * its "locks" (GLib's keyfile backend). Each key's origin is recorded:
 * locked (not writable), admin (not the schema's default). */
VsmPolicy *vsm_policy_load (void);
VsmPolicy *vsm_policy_load_from_settings (GSettings *settings);

G_END_DECLS
