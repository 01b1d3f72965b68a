/* vsmd-udisks.c - following udisks' mounts
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-udisks.h"
#include "vsm.h"

#include <string.h>
#include <sys/sysmacros.h>
#include <udisks/udisks.h>

struct _VsmdUdisks
{
  GObject parent;
  UDisksClient *client;
  GCancellable *cancellable;
};

enum
{
  SIGNAL_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (VsmdUdisks, vsmd_udisks, G_TYPE_OBJECT)

static void
vsmd_udisks_dispose (GObject *object)
{
  VsmdUdisks *u = VSMD_UDISKS (object);

  g_cancellable_cancel (u->cancellable);
  g_clear_object (&u->cancellable);
  if (u->client)
    g_signal_handlers_disconnect_by_data (udisks_client_get_object_manager (u->client), u);
  g_clear_object (&u->client);
  G_OBJECT_CLASS (vsmd_udisks_parent_class)->dispose (object);
}

static void
vsmd_udisks_class_init (VsmdUdisksClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = vsmd_udisks_dispose;
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
vsmd_udisks_init (VsmdUdisks *u)
{
  u->cancellable = g_cancellable_new ();
}

static void
emit_changed (VsmdUdisks *u)
{
  g_signal_emit (u, signals[SIGNAL_CHANGED], 0);
}

static void
on_properties_changed (GDBusObjectManagerClient *m, GDBusObjectProxy *o, GDBusProxy *p,
                       GVariant *changed, GStrv invalidated, VsmdUdisks *u)
{
  g_autoptr (GVariant) points = g_variant_lookup_value (changed, "MountPoints", NULL);

  if (points != NULL ||
      g_str_equal (g_dbus_proxy_get_interface_name (p), "org.freedesktop.UDisks2.Filesystem"))
    emit_changed (u);
}

static void
on_client (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autoptr (GError) error = NULL;
  UDisksClient *client = udisks_client_new_finish (res, &error);
  VsmdUdisks *u;
  GDBusObjectManager *m;

  if (client == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("udisks: %s; following mounts through libmount only", error->message);
      return;
    }
  u = VSMD_UDISKS (data);
  u->client = client;
  m = udisks_client_get_object_manager (client);
  g_signal_connect_swapped (m, "object-added", G_CALLBACK (emit_changed), u);
  g_signal_connect_swapped (m, "object-removed", G_CALLBACK (emit_changed), u);
  g_signal_connect (m, "interface-proxy-properties-changed", G_CALLBACK (on_properties_changed), u);
  emit_changed (u);
}

VsmdUdisks *
vsmd_udisks_new (void)
{
  VsmdUdisks *u = g_object_new (VSMD_TYPE_UDISKS, NULL);
  udisks_client_new (u->cancellable, on_client, u);
  return u;
}

GStrv
vsmd_udisks_mount_points (VsmdUdisks *u, const char *disk_syspath)
{
  g_autoptr (GStrvBuilder) out = NULL;
  g_autofree char *owner = NULL;
  GDBusObjectManager *m;
  GList *objects;

  if (u->client == NULL)
    return NULL;
  m = udisks_client_get_object_manager (u->client);
  /* a copy (transfer full) */
  owner = g_dbus_object_manager_client_get_name_owner (G_DBUS_OBJECT_MANAGER_CLIENT (m));
  if (owner == NULL)
    return NULL;
  out = g_strv_builder_new ();
  objects = g_dbus_object_manager_get_objects (m);
  for (GList *l = objects; l; l = l->next)
    {
      UDisksBlock *block = udisks_object_peek_block (UDISKS_OBJECT (l->data));
      UDisksFilesystem *fs = udisks_object_peek_filesystem (UDISKS_OBJECT (l->data));
      const char *const *points = fs ? udisks_filesystem_get_mount_points (fs) : NULL;

      if (block && points &&
          vsm_devno_is_on_disk ((dev_t)udisks_block_get_device_number (block), disk_syspath))
        g_strv_builder_addv (out, (const char **)points);
    }
  g_list_free_full (objects, g_object_unref);
  return g_strv_builder_end (out);
}
