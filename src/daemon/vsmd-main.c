/* vsmd-main.c - vfat-smartd: the system service
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-daemon.h"
#include "vsm-dbus-contract.h"
#include "vsm.h"
#include "vsm-program.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <unistd.h>

typedef struct
{
  GMainLoop *loop;
  VsmdDaemon *daemon;
  guint idle_seconds;
  int status;
  gboolean stopping; /* a signal came: a second one forces the exit */
} Service;

/* an apply or restore running in a worker ends first (vsmd_daemon_stop):
 * a knob is never left half written by our exit; a second signal does not
 * wait (the records stay: the next start takes them up) */
static gboolean
on_signal (gpointer data)
{
  Service *s = data;

  if (s->stopping)
    {
      g_message ("a second signal: exiting without waiting for the workers");
      g_main_loop_quit (s->loop);
      return G_SOURCE_CONTINUE;
    }
  s->stopping = TRUE;
  g_message ("stopping on a signal; every record stays for the next start");
  if (s->daemon != NULL)
    vsmd_daemon_stop (s->daemon);
  else
    g_main_loop_quit (s->loop);
  return G_SOURCE_CONTINUE;
}

static void
on_stopped (VsmdDaemon *daemon, Service *s)
{
  g_main_loop_quit (s->loop);
}

static void
on_idle (VsmdDaemon *daemon, Service *s)
{
  g_main_loop_quit (s->loop);
}

static void
on_bus_acquired (GDBusConnection *connection, const char *name, gpointer data)
{
  Service *s = data;
  g_autoptr (GError) error = NULL;

  s->daemon = vsmd_daemon_new (s->idle_seconds);
  g_signal_connect (s->daemon, "idle", G_CALLBACK (on_idle), s);
  g_signal_connect (s->daemon, "stopped", G_CALLBACK (on_stopped), s);
  if (!vsmd_daemon_start (s->daemon, connection, &error))
    {
      g_critical ("cannot start: %s", error->message);
      s->status = 1;
      g_main_loop_quit (s->loop);
    }
}

static void
on_name_acquired (GDBusConnection *connection, const char *name, gpointer data)
{
  g_message ("%s on the system bus, version %s", name, PACKAGE_VERSION);
}

static void
on_name_lost (GDBusConnection *connection, const char *name, gpointer data)
{
  Service *s = data;
  g_message ("lost (or could not own) %s: exiting", name);
  s->status = s->daemon ? 0 : 1;
  if (s->daemon != NULL)
    vsmd_daemon_stop (s->daemon); /* what runs in a worker ends first */
  else
    g_main_loop_quit (s->loop);
}

int
main (int argc, char **argv)
{
  Service s = { .idle_seconds = 300 };
  gboolean replace = FALSE;
  int idle = 300;
  GOptionEntry entries[] = {
    { "replace", 'r', 0, G_OPTION_ARG_NONE, &replace, N_ ("Replace a running instance"), NULL },
    { "idle-timeout", 0, 0, G_OPTION_ARG_INT, &idle,
      N_ ("Exit after SECONDS with no managed drive present (0: never; default 300)"),
      N_ ("SECONDS") },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  guint owner;

  vsm_init_program ("vfat-smartd");
  g_option_context_add_main_entries (ctx, entries, GETTEXT_PACKAGE);
  g_option_context_set_summary (ctx, _ ("The vfat-smart system service (see vfat-smartd(8))."));
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || idle < 0)
    {
      g_printerr ("vfat-smartd: %s\n", error ? error->message : _ ("bad --idle-timeout"));
      return 2;
    }
  if (vsm_paths_are_system () && geteuid () != 0)
    {
      g_printerr (_ ("vfat-smartd: needs root (it writes /sys/class/bdi)\n"));
      return 5;
    }
  s.idle_seconds = (guint)idle;
  s.loop = g_main_loop_new (NULL, FALSE);
  g_unix_signal_add (SIGTERM, on_signal, &s);
  g_unix_signal_add (SIGINT, on_signal, &s);
  owner = g_bus_own_name (G_BUS_TYPE_SYSTEM, VSM_DBUS_NAME,
                          G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT |
                            (replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE : 0),
                          on_bus_acquired, on_name_acquired, on_name_lost, &s, NULL);
  g_main_loop_run (s.loop);
  g_bus_unown_name (owner);
  g_clear_object (&s.daemon);
  g_main_loop_unref (s.loop);
  return s.status;
}
