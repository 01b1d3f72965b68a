/* vfat-smart-watch.c - `vfat-smart watch`: a live line per drive from
 * vfat-smartd's feed
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-display.h"
#include "vsm.h"

#include <unistd.h>

#define BAR_WIDTH 20
#define RELIST_SECONDS 2

typedef struct
{
  VsmDbusManager *manager;
  GHashTable *devices; /* object path -> VsmDbusDevice */
  GHashTable *peaks;   /* object path -> guint64* most at risk seen */
  GHashTable *printed; /* object path -> char* line last printed (not a tty) */
  char *only_bdi;      /* NULL: every drive */
  gboolean tty;
  guint lines_drawn;
  char *note; /* shown when there is nothing else */
} Watch;

static char *
progress_bar (guint64 at_risk, guint64 peak)
{
  double done = peak > 0 ? 1.0 - (double)at_risk / (double)peak : 1.0;
  guint n = (guint)(done * BAR_WIDTH + 0.5);
  GString *bar = g_string_new ("[");

  for (guint i = 0; i < BAR_WIDTH; i++)
    g_string_append_c (bar, i < n ? '#' : '-');
  g_string_append_c (bar, ']');
  return g_string_free (bar, FALSE);
}

/* Without the kernel's per-drive estimate (debugfs bdi stats) the daemon's
 * figure is a bound from the whole system's, held within the cap: say so,
 * and show the live figures there are: the page cache's dirty and
 * writeback bytes of the whole system, and the writes in flight to this
 * drive. Safe only when all of them are nothing. */
static char *
format_system_line (VsmDbusDevice *d)
{
  VsmDirtyInfo di = { 0 };
  const char *const *mounts = vsm_dbus_device_get_mount_points (d);
  gboolean mounted = mounts && mounts[0];
  guint64 writes = vsm_disk_writes_in_flight (vsm_dbus_device_get_bdi (d));
  g_autofree char *dirty = NULL, *writeback = NULL, *n = NULL;
  g_autofree char *line = NULL;
  gboolean clean;

  vsm_dirty_info_read (vsm_dbus_device_get_bdi (d), &di);
  clean = di.valid && di.dirty_bytes + di.writeback_bytes == 0 && writes == 0;
  dirty = vsm_format_bytes (di.dirty_bytes);
  writeback = vsm_format_bytes (di.writeback_bytes);
  n = g_strdup_printf ("%" G_GUINT64_FORMAT, writes);
  line = g_strdup_printf (
    _ ("%s  %s  %s dirty + %s in writeback %s, %s writes in flight to the drive  %s"),
    vsm_dbus_device_get_device (d), vsm_dbus_device_get_class (d), dirty, writeback,
    di.per_device ? _ ("on this drive")
                  : _ ("system-wide (no per-drive figure: debugfs is not mounted)"),
    n,
    clean     ? (mounted ? _ ("safe once ejected") : _ ("safe to unplug"))
    : mounted ? _ ("safe once ejected")
              : _ ("keep it plugged in"));
  return vsm_sanitize_for_display (line);
}

static char *
format_line (VsmDbusDevice *d, guint64 peak)
{
  guint64 at_risk = vsm_dbus_device_get_at_risk_bytes (d);
  g_autofree char *risk = vsm_format_bytes (at_risk);
  g_autofree char *cap = vsm_format_bytes (vsm_dbus_device_get_cap_bytes (d));
  g_autofree char *bw = vsm_format_rate ((double)vsm_dbus_device_get_write_bandwidth (d));
  g_autofree char *bar = progress_bar (at_risk, MAX (peak, at_risk));
  const char *const *mounts = vsm_dbus_device_get_mount_points (d);
  gboolean mounted = mounts && mounts[0];
  g_autofree char *line = NULL;

  if (g_strcmp0 (vsm_dbus_device_get_at_risk_scope (d), "device") != 0)
    return format_system_line (d);
  if (at_risk == 0)
    line = g_strdup_printf (_ ("%s  %s  nothing at risk (cap %s)  %s  %s %s"),
                            vsm_dbus_device_get_device (d), vsm_dbus_device_get_class (d), cap, bw,
                            bar, mounted ? _ ("safe once ejected") : _ ("safe to unplug"));
  else
    line = g_strdup_printf (
      _ ("%s  %s  %s%s at risk (cap %s)  %s  %.1f s to safe  %s"), vsm_dbus_device_get_device (d),
      vsm_dbus_device_get_class (d),
      g_strcmp0 (vsm_dbus_device_get_at_risk_scope (d), "device") == 0 ? "" : _ ("at most "), risk,
      cap, bw, vsm_dbus_device_get_seconds_to_safe (d), bar);
  return vsm_sanitize_for_display (line);
}

static guint64
update_peak (Watch *w, const char *path, VsmDbusDevice *d)
{
  guint64 *peak = g_hash_table_lookup (w->peaks, path);
  guint64 at_risk = vsm_dbus_device_get_at_risk_bytes (d);

  if (peak == NULL)
    {
      peak = g_new0 (guint64, 1);
      g_hash_table_insert (w->peaks, g_strdup (path), peak);
    }
  /* a new burst after the drive was clean starts a new bar */
  if (*peak > 0 && at_risk == 0)
    *peak = 0;
  *peak = MAX (*peak, at_risk);
  return *peak;
}

static GPtrArray *
current_lines (Watch *w, GPtrArray *paths)
{
  GPtrArray *lines = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      VsmDbusDevice *d = g_hash_table_lookup (w->devices, path);
      guint64 peak = update_peak (w, path, d);
      g_ptr_array_add (lines, format_line (d, peak));
    }
  if (lines->len == 0)
    g_ptr_array_add (lines, g_strdup (w->note ? w->note : _ ("No drive is managed right now.")));
  return lines;
}

static void
draw (Watch *w)
{
  g_autoptr (GList) keys = g_list_sort (g_hash_table_get_keys (w->devices), (GCompareFunc)strcmp);
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  g_autoptr (GPtrArray) lines = NULL;

  for (GList *l = keys; l; l = l->next)
    g_ptr_array_add (paths, l->data);
  lines = current_lines (w, paths);
  if (w->tty)
    {
      if (w->lines_drawn > 0)
        g_print ("\033[%uA", w->lines_drawn);
      for (guint i = 0; i < lines->len; i++)
        g_print ("\r\033[K%s\n", (char *)g_ptr_array_index (lines, i));
      for (guint i = lines->len; i < w->lines_drawn; i++)
        g_print ("\r\033[K\n");
      w->lines_drawn = MAX (w->lines_drawn, lines->len);
      return;
    }
  for (guint i = 0; i < lines->len; i++)
    {
      const char *key = i < paths->len ? g_ptr_array_index (paths, i) : "";
      const char *line = g_ptr_array_index (lines, i);
      if (g_strcmp0 (g_hash_table_lookup (w->printed, key), line) == 0)
        continue;
      g_print ("%s\n", line);
      g_hash_table_insert (w->printed, g_strdup (key), g_strdup (line));
    }
}

static void
on_changed (GDBusProxy *proxy, GVariant *changed, GStrv invalidated, Watch *w)
{
  draw (w);
}

static void
add_device (Watch *w, const char *path)
{
  g_autoptr (GError) error = NULL;
  VsmDbusDevice *d = cli_daemon_device (path, &error);

  if (d == NULL)
    return;
  if (w->only_bdi && g_strcmp0 (vsm_dbus_device_get_bdi (d), w->only_bdi) != 0)
    {
      g_object_unref (d);
      return;
    }
  vsm_dbus_device_connect_changed (d, G_CALLBACK (on_changed), w);
  g_hash_table_insert (w->devices, g_strdup (path), d);
}

/* which drives there are now (drives come and go; the daemon may exit
 * when idle and come back with the next managed drive) */
static void
relist (Watch *w)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) paths = NULL;
  g_autoptr (GList) known = NULL;

  g_clear_pointer (&w->note, g_free);
  if (!vsm_dbus_manager_call_list_devices_sync (w->manager, &paths, NULL, &error))
    {
      w->note = g_strdup (_ ("vfat-smartd is not running; it starts with the next managed drive."));
      g_hash_table_remove_all (w->devices);
      return;
    }
  known = g_hash_table_get_keys (w->devices);
  for (GList *l = known; l; l = l->next)
    if (!g_strv_contains ((const char *const *)paths, l->data))
      g_hash_table_remove (w->devices, l->data);
  for (char **p = paths; *p; p++)
    if (!g_hash_table_contains (w->devices, *p))
      add_device (w, *p);
}

static gboolean
on_relist (gpointer data)
{
  Watch *w = data;
  relist (w);
  draw (w);
  return G_SOURCE_CONTINUE;
}

static int
run_watch (Watch *w, gboolean once)
{
  g_autoptr (GMainLoop) loop = NULL;

  relist (w);
  draw (w);
  if (once)
    return 0;
  loop = g_main_loop_new (NULL, FALSE);
  g_timeout_add_seconds (RELIST_SECONDS, on_relist, w);
  g_main_loop_run (loop);
  return 0;
}

int
cli_watch (int argc, char **argv)
{
  gboolean once = FALSE;
  GOptionEntry entries[] = { { "once", '1', 0, G_OPTION_ARG_NONE, &once,
                               N_ ("Print the lines once and exit"), NULL },
                             { NULL } };
  g_autoptr (GError) error = NULL;
  Watch w = { 0 };
  int rc;

  if (!cli_parse ("watch", N_ ("[DEVICE]"),
                  _ ("A live line per managed drive from vfat-smartd: data at risk, the cap,\n"
                     "the measured bandwidth, seconds until it is written, and a bar toward\n"
                     "\"safe to unplug\". Without the kernel's per-drive figure (debugfs not\n"
                     "mounted) it shows the whole system's dirty and writeback data and the\n"
                     "writes in flight to the drive, and says so. Starts vfat-smartd when it\n"
                     "does not run. Ctrl-C ends."),
                  entries, &argc, &argv))
    return 2;
  if (argc > 2)
    return cli_usage_error ("watch", _ ("expected at most one DEVICE"));
  if (argc == 2 && (w.only_bdi = vsm_bdi_of (argv[1], &error)) == NULL)
    return cli_fail (error);
  w.manager = cli_daemon_manager (TRUE, &error);
  if (w.manager == NULL)
    {
      g_autoptr (GError) core = cli_daemon_error (error);
      g_free (w.only_bdi);
      return cli_fail (core);
    }
  /* from now on, never start it again just to look */
  g_object_unref (w.manager);
  w.manager = cli_daemon_manager (FALSE, &error);
  if (w.manager == NULL)
    return cli_fail (error);
  w.devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  w.peaks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  w.printed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  w.tty = isatty (STDOUT_FILENO) && !once;
  rc = run_watch (&w, once);
  g_hash_table_unref (w.devices);
  g_hash_table_unref (w.peaks);
  g_hash_table_unref (w.printed);
  g_object_unref (w.manager);
  g_free (w.only_bdi);
  g_free (w.note);
  return rc;
}
