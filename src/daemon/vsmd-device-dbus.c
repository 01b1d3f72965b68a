/* vsmd-device-dbus.c - a managed disk's D-Bus methods: polkit first, then the work
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-device-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* ---- methods: polkit first, then the work ---- */

/* Whether a change to this drive can reach the vm.* knobs (they act on
 * every disk): its record holds them, or the kernel has no per-device cap
 * and the admin allowed the global fallback. */
static gboolean
reaches_global (VsmdDevice *d)
{
  g_autoptr (VsmPolicy) p = NULL;

  if (d->uses_global)
    return TRUE;
  if (vsm_knob_exists (d->bdi, "max_bytes"))
    return FALSE;
  p = vsm_policy_load ();
  return p->allow_global_knobs;
}

static gboolean still_target (gpointer data, const VsmdAuthTarget *was, GError **error);

/* tune-own-device only for the caller's own removable drive and nothing
 * global; everything else is manage. Decided on this mount: a change of
 * the mount before polkit answered fails the call (still_target). */
static void
auth_target (VsmdDevice *d, VsmdAuthTarget *t)
{
  t->owner_uid = vsm_dbus_device_get_mounted_by (d->skeleton);
  t->removable = vsm_dbus_device_get_removable (d->skeleton) && !reaches_global (d);
  t->mount =
    d->mounted
      ? vsm_user_options_mount_key (t->owner_uid, vsm_dbus_device_get_mount_points (d->skeleton))
      : NULL;
  t->recheck = still_target;
}

static gboolean
still_target (gpointer data, const VsmdAuthTarget *was, GError **error)
{
  VsmdDevice *d = VSMD_DEVICE (data);
  g_auto (VsmdAuthTarget) now = { 0 };

  if (d->retired)
    {
      g_set_error (error, VSM_DBUS_ERROR, VSM_DBUS_ERROR_TARGET_CHANGED,
                   "%s went away while the authorization was asked", d->bdi);
      return FALSE;
    }
  auth_target (d, &now);
  if (!vsmd_auth_target_equal (was, &now))
    {
      g_set_error (error, VSM_DBUS_ERROR, VSM_DBUS_ERROR_TARGET_CHANGED,
                   "%s was unmounted or mounted again while the authorization was asked "
                   "(nothing changed; call again)",
                   d->bdi);
      return FALSE;
    }
  return TRUE;
}

static void
do_apply (GDBusMethodInvocation *inv, gpointer data)
{
  vsmd_device_start_job (VSMD_DEVICE (data), VSMD_JOB_REAPPLY, "asked over D-Bus", inv);
}

static void
do_restore (GDBusMethodInvocation *inv, gpointer data)
{
  vsmd_device_start_job (VSMD_DEVICE (data), VSMD_JOB_RESTORE, NULL, inv);
}

static gboolean
on_apply (VsmDbusDevice *s, GDBusMethodInvocation *inv, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };

  if (vsmd_device_refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  auth_target (d, &t);
  vsmd_bouncer_check (d->bouncer, inv, &t, do_apply, g_object_ref (d), g_object_unref);
  return TRUE;
}

static void
do_apply_with (GDBusMethodInvocation *inv, gpointer data)
{
  VsmdDevice *d = VSMD_DEVICE (data);
  gboolean set_class = d->class_waiting;

  /* what this call asked, once authorized */
  if (set_class && !d->applying)
    {
      d->class_asked = TRUE;
      d->class_wanted = d->class_waiting_value;
    }
  d->class_waiting = FALSE;
  vsmd_device_start_job (d, VSMD_JOB_REAPPLY,
                         set_class ? "a class chosen over D-Bus" : "asked over D-Bus", inv);
}

/* the options of ApplyWith, checked before polkit is asked */
static gboolean
read_apply_options (GVariant *options, gboolean *set_class, VsmClass *klass, GError **error)
{
  GVariantIter it;
  const char *key;
  GVariant *value;

  *set_class = FALSE;
  g_variant_iter_init (&it, options);
  while (g_variant_iter_next (&it, "{&sv}", &key, &value))
    {
      g_autoptr (GVariant) v = value;

      if (!g_str_equal (key, "class"))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                       "unknown option: ApplyWith takes only 'class'");
          return FALSE;
        }
      if (!g_variant_is_of_type (v, G_VARIANT_TYPE_STRING) ||
          !vsm_class_from_string (g_variant_get_string (v, NULL), klass))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                       "class: not a class name (usb-stick, usb-stick-uas, usb-ssd, usb-hdd, "
                       "card-reader, unknown, internal)");
          return FALSE;
        }
      *set_class = TRUE;
    }
  return TRUE;
}

static gboolean
on_apply_with (VsmDbusDevice *s, GDBusMethodInvocation *inv, GVariant *options, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };
  g_autoptr (GError) error = NULL;
  gboolean set_class;
  VsmClass klass = VSM_CLASS_UNKNOWN;

  if (vsmd_device_refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  if (!vsmd_limits_check_options (options, &error) ||
      !read_apply_options (options, &set_class, &klass, &error))
    {
      g_dbus_method_invocation_return_gerror (inv, error);
      return TRUE;
    }
  /* the latest call's: one that polkit refuses changes nothing */
  d->class_waiting = set_class;
  d->class_waiting_value = klass;
  auth_target (d, &t);
  vsmd_bouncer_check (d->bouncer, inv, &t, do_apply_with, g_object_ref (d), g_object_unref);
  return TRUE;
}

static gboolean
on_restore (VsmDbusDevice *s, GDBusMethodInvocation *inv, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };

  if (vsmd_device_refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  auth_target (d, &t);
  vsmd_bouncer_check (d->bouncer, inv, &t, do_restore, g_object_ref (d), g_object_unref);
  return TRUE;
}

/* options: the new ones (NULL: none). The next job's re-apply keeps them
 * in the state directory; none any more: their file goes now */
void
vsmd_device_reset_options (VsmdDevice *d, VsmUserOptions *options)
{
  g_autoptr (GError) error = NULL;

  if (d->options != NULL || options != NULL)
    d->options_changed = TRUE;
  g_clear_pointer (&d->options, vsm_user_options_free);
  d->options = options;
  if (options == NULL && !vsm_user_options_remove (d->bdi, &error))
    g_warning ("%s: %s", d->bdi, error->message);
  if (d->learn != NULL)
    vsmd_device_reset_limits (d, 0, vsm_learn_get_cap (d->learn));
}

static void
do_set_options (GDBusMethodInvocation *inv, guint32 uid, const char *granted, gpointer data)
{
  VsmdDevice *d = VSMD_DEVICE (data);
  const char *const *points = vsm_dbus_device_get_mount_points (d->skeleton);
  g_autofree char *key =
    vsm_user_options_mount_key (vsm_dbus_device_get_mounted_by (d->skeleton), points);
  VsmUserOptions *o;

  if (vsmd_device_refuse_when_stopping (d, inv))
    return;
  /* nothing changes while an apply runs: its result would not say so */
  if (d->applying)
    {
      g_dbus_method_invocation_return_error_literal (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                                     "an apply is running for this drive");
      return;
    }
  o = vsmd_options_update (d->bdi, d->options, inv, uid, granted);
  if (o == NULL)
    return; /* answered */
  g_free (o->mount);
  o->mount = g_steal_pointer (&key);
  vsmd_device_reset_options (d, o);
  /* one call into the engine, in the job: the options kept, then the drive
   * planned again with them, or restored when they ignore it */
  vsmd_device_start_job (d, VSMD_JOB_OPTIONS, "options set", inv);
}

static gboolean
on_set_options (VsmDbusDevice *s, GDBusMethodInvocation *inv, GVariant *options, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };
  g_autoptr (GError) error = NULL;

  if (vsmd_device_refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  /* bounded before anyone is asked: nothing oversized is logged or kept */
  if (!vsmd_limits_check_options (options, &error))
    {
      g_message ("%s: SetOptions refused: %s", d->bdi, error->message);
      g_dbus_method_invocation_return_gerror (inv, error);
      return TRUE;
    }
  auth_target (d, &t);
  vsmd_bouncer_check_as (d->bouncer, inv, &t, do_set_options, g_object_ref (d), g_object_unref);
  return TRUE;
}

void
vsmd_device_connect_methods (VsmdDevice *d)
{
  g_signal_connect (d->skeleton, "handle-apply", G_CALLBACK (on_apply), d);
  g_signal_connect (d->skeleton, "handle-apply-with", G_CALLBACK (on_apply_with), d);
  g_signal_connect (d->skeleton, "handle-restore", G_CALLBACK (on_restore), d);
  g_signal_connect (d->skeleton, "handle-set-options", G_CALLBACK (on_set_options), d);
}
