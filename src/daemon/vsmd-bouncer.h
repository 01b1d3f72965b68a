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

typedef struct _VsmdAuthTarget VsmdAuthTarget;

/* Called with the check's data when the answer came (polkit may have shown
 * a password dialog for a long while), before the method runs: FALSE with
 * error (VSM_DBUS_ERROR_TARGET_CHANGED) when the target is no longer the one
 * the check was made for; the caller gets that error. */
typedef gboolean (*VsmdAuthRecheck) (gpointer data, const VsmdAuthTarget *was, GError **error);

/* owner_uid: the uid that mounted the drive, (guint32)-1 for none; a caller
 * with that uid, on a removable drive, is asked for tune-own-device, any
 * other for manage. Root is always allowed. mount: what the decision was
 * made on (vsm_user_options_mount_key), NULL for none; copied. */
struct _VsmdAuthTarget
{
  guint32 owner_uid;
  gboolean removable;
  char *mount;
  VsmdAuthRecheck recheck; /* NULL: nothing can change under the check */
};

void vsmd_auth_target_clear (VsmdAuthTarget *target);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (VsmdAuthTarget, vsmd_auth_target_clear)
/* TRUE when a and b would be decided the same way on the same mount */
gboolean vsmd_auth_target_equal (const VsmdAuthTarget *a, const VsmdAuthTarget *b);

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
