/* vsm-intent.h - what was asked of an apply, and by whom
 *
 * An apply records its intent beside the knobs: who asked (the udev
 * helper, the mount helper, the CLI, vfat-smartd, a user through the
 * agent), what a person decided over the plan (a class, a flush mode:
 * --class, x-vfat-smart.class=, -o sync, -o flush), the per-drive options
 * a user or an admin sent (SetOptions), and where the admin's policy came
 * from. A re-apply plans again from the recorded intent with a new
 * measurement, so no later event forgets a choice a person made.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-plan.h"
#include "vsm-user-options.h"

G_BEGIN_DECLS

VsmIntent *vsm_intent_new (const char *source);
VsmIntent *vsm_intent_copy (const VsmIntent *intent);

/* a copy of options (NULL or empty: none) */
void vsm_intent_set_user_options (VsmIntent *intent, const VsmUserOptions *options);

/* what a person decided, as the plan takes it: class and flush mode only
 * (measurements are not intent). why gets the reason the plan prints for a
 * chosen flush mode; *o is zeroed first. */
void vsm_intent_to_overrides (const VsmIntent *intent, VsmOverrides *o, char **why);
/* the choices in overrides (class, flush mode), without source */
VsmIntent *vsm_intent_from_overrides (const char *source, const VsmOverrides *o);

/* "class usb-hdd (mount), sync, user options" for a person; "" when
 * nothing was chosen */
char *vsm_intent_describe (const VsmIntent *intent);

/* a group of a state key file; load returns NULL without error when the
 * group is absent (a record from before intents were kept) */
void vsm_intent_save (const VsmIntent *intent, GKeyFile *kf, const char *group);
VsmIntent *vsm_intent_load (GKeyFile *kf, const char *group, GError **error);

G_END_DECLS
