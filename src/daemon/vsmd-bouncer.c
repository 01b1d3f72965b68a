/* vsmd-bouncer.c - polkit checks, asynchronously
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-bouncer.h"
#include "vsm-dbus-contract.h"

#include <polkit/polkit.h>

struct _VsmdBouncer
{
  GObject parent;
  PolkitAuthority *authority; /* NULL until polkit answered, or when it is not there */
  gboolean authority_failed;
};

G_DEFINE_FINAL_TYPE (VsmdBouncer, vsmd_bouncer, G_TYPE_OBJECT)

static void
vsmd_bouncer_finalize (GObject *object)
{
  VsmdBouncer *b = VSMD_BOUNCER (object);
  g_clear_object (&b->authority);
  G_OBJECT_CLASS (vsmd_bouncer_parent_class)->finalize (object);
}

static void
vsmd_bouncer_class_init (VsmdBouncerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = vsmd_bouncer_finalize;
}

static void
vsmd_bouncer_init (VsmdBouncer *b)
{
}

VsmdBouncer *
vsmd_bouncer_new (void)
{
  return g_object_new (VSMD_TYPE_BOUNCER, NULL);
}

void
vsmd_auth_target_clear (VsmdAuthTarget *t)
{
  g_clear_pointer (&t->mount, g_free);
}

gboolean
vsmd_auth_target_equal (const VsmdAuthTarget *a, const VsmdAuthTarget *b)
{
  return a->owner_uid == b->owner_uid && !a->removable == !b->removable &&
         g_strcmp0 (a->mount, b->mount) == 0;
}

typedef struct
{
  VsmdBouncer *bouncer;
  GDBusMethodInvocation *invocation;
  VsmdAuthTarget target;
  const char *action;
  VsmdAuthorized callback;
  VsmdAuthorizedAs callback_as;
  guint32 uid;
  gpointer data;
  GDestroyNotify destroy;
} Check;

static void
check_free (Check *c)
{
  if (c->destroy)
    c->destroy (c->data);
  vsmd_auth_target_clear (&c->target);
  g_object_unref (c->bouncer);
  g_object_unref (c->invocation);
  g_free (c);
}

static void
check_deny (Check *c, const char *why)
{
  g_dbus_method_invocation_return_error (
    c->invocation, VSM_DBUS_ERROR, VSM_DBUS_ERROR_NOT_AUTHORIZED, "%s needs %s: %s",
    g_dbus_method_invocation_get_method_name (c->invocation), c->action, why);
  check_free (c);
}

/* the answer may come long after the question (an authentication
 * dialog): the target must still be the one it was asked for */
static void
check_allow (Check *c)
{
  g_autoptr (GError) error = NULL;

  if (c->target.recheck && !c->target.recheck (c->data, &c->target, &error))
    {
      g_dbus_method_invocation_take_error (c->invocation, g_steal_pointer (&error));
      check_free (c);
      return;
    }
  if (c->callback_as)
    c->callback_as (c->invocation, c->uid, c->uid == 0 ? VSMD_GRANTED_ROOT : c->action, c->data);
  else
    c->callback (c->invocation, c->data);
  check_free (c);
}

static void
on_polkit_result (GObject *source, GAsyncResult *res, gpointer data)
{
  Check *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (PolkitAuthorizationResult) r =
    polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source), res, &error);

  if (r == NULL)
    check_deny (c, error->message);
  else if (!polkit_authorization_result_get_is_authorized (r))
    check_deny (c, polkit_authorization_result_get_is_challenge (r) ? "authentication is required"
                                                                    : "not authorized");
  else
    check_allow (c);
}

static void
ask_polkit (Check *c)
{
  g_autoptr (PolkitSubject) subject =
    polkit_system_bus_name_new (g_dbus_method_invocation_get_sender (c->invocation));

  GDBusMessage *msg = g_dbus_method_invocation_get_message (c->invocation);
  /* a password dialog only for a caller that said it can wait for one */
  PolkitCheckAuthorizationFlags flags =
    g_dbus_message_get_flags (msg) & G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
      ? POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION
      : POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;

  polkit_authority_check_authorization (c->bouncer->authority, subject, c->action, NULL, flags,
                                        NULL, on_polkit_result, c);
}

static void
on_authority (GObject *source, GAsyncResult *res, gpointer data)
{
  Check *c = data;
  g_autoptr (GError) error = NULL;
  PolkitAuthority *authority = polkit_authority_get_finish (res, &error);

  if (authority == NULL)
    {
      check_deny (c, error->message);
      return;
    }
  if (c->bouncer->authority == NULL)
    c->bouncer->authority = authority;
  else
    g_object_unref (authority);
  ask_polkit (c);
}

static void
on_caller_uid (GObject *source, GAsyncResult *res, gpointer data)
{
  Check *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply =
    g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  guint32 uid;

  if (reply == NULL)
    {
      check_deny (c, error->message);
      return;
    }
  g_variant_get (reply, "(u)", &uid);
  c->uid = uid;
  if (uid == 0)
    {
      check_allow (c);
      return;
    }
  c->action =
    c->target.removable && c->target.owner_uid == uid ? VSMD_ACTION_TUNE_OWN : VSMD_ACTION_MANAGE;
  if (c->bouncer->authority != NULL)
    ask_polkit (c);
  else
    polkit_authority_get_async (NULL, on_authority, c);
}

static void start_check (Check *c);

static Check *
check_new (VsmdBouncer *bouncer, GDBusMethodInvocation *invocation, const VsmdAuthTarget *target,
           gpointer data, GDestroyNotify destroy)
{
  Check *c = g_new0 (Check, 1);

  c->bouncer = g_object_ref (bouncer);
  c->invocation = g_object_ref (invocation);
  c->target = *target;
  c->target.mount = g_strdup (target->mount);
  c->action = VSMD_ACTION_MANAGE;
  c->data = data;
  c->destroy = destroy;
  return c;
}

void
vsmd_bouncer_check_as (VsmdBouncer *bouncer, GDBusMethodInvocation *invocation,
                       const VsmdAuthTarget *target, VsmdAuthorizedAs callback, gpointer data,
                       GDestroyNotify destroy)
{
  Check *c = check_new (bouncer, invocation, target, data, destroy);

  c->callback_as = callback;
  start_check (c);
}

void
vsmd_bouncer_check (VsmdBouncer *bouncer, GDBusMethodInvocation *invocation,
                    const VsmdAuthTarget *target, VsmdAuthorized callback, gpointer data,
                    GDestroyNotify destroy)
{
  Check *c = check_new (bouncer, invocation, target, data, destroy);

  c->callback = callback;
  start_check (c);
}

static void
start_check (Check *c)
{
  GDBusMethodInvocation *invocation = c->invocation;

  g_dbus_connection_call (
    g_dbus_method_invocation_get_connection (invocation), "org.freedesktop.DBus",
    "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixUser",
    g_variant_new ("(s)", g_dbus_method_invocation_get_sender (invocation)), G_VARIANT_TYPE ("(u)"),
    G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_caller_uid, c);
}
