/* vsmd-bouncer.h - who may change what: polkit, asynchronously
 *
 * Every check runs off the main loop's critical path: the caller's uid is
 * asked of the bus, then polkit, both asynchronously; the method runs in
 * the callback (bolt's bolt-bouncer.c is the shape, without its worker
 * threads).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define VSMD_ACTION_TUNE_OWN "org.vfatsmart.tune-own-device"
#define VSMD_ACTION_MANAGE "org.vfatsmart.manage"

#define VSMD_TYPE_BOUNCER (vsmd_bouncer_get_type ())
G_DECLARE_FINAL_TYPE (VsmdBouncer, vsmd_bouncer, VSMD, BOUNCER, GObject)

/* Called once the check is done; authorized FALSE means the invocation was
 * already answered with an error. */
typedef void (*VsmdAuthorized) (GDBusMethodInvocation *invocation, gpointer data);

/* owner_uid: the uid that mounted the drive, (guint32)-1 for none; a caller
 * with that uid, on a removable drive, is asked for tune-own-device, any
 * other for manage. Root is always allowed. */
typedef struct
{
  guint32 owner_uid;
  gboolean removable;
} VsmdAuthTarget;

VsmdBouncer *vsmd_bouncer_new (void);
/* Takes a ref on invocation; data is freed with destroy in any case. */
void vsmd_bouncer_check (VsmdBouncer *bouncer, GDBusMethodInvocation *invocation,
                         const VsmdAuthTarget *target, VsmdAuthorized callback, gpointer data,
                         GDestroyNotify destroy);

/* The same, telling the callback who called and what was granted:
 * VSMD_GRANTED_ROOT, VSMD_ACTION_TUNE_OWN or VSMD_ACTION_MANAGE. */
#define VSMD_GRANTED_ROOT "root"
typedef void (*VsmdAuthorizedAs) (GDBusMethodInvocation *invocation, guint32 caller_uid,
                                  const char *granted, gpointer data);
void vsmd_bouncer_check_as (VsmdBouncer *bouncer, GDBusMethodInvocation *invocation,
                            const VsmdAuthTarget *target, VsmdAuthorizedAs callback, gpointer data,
                            GDestroyNotify destroy);

G_END_DECLS
