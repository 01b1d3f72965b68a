/* vsm-util.c - small helpers shared by the vfat-smart core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-util.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>
#include <syslog.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

G_DEFINE_QUARK (vsm - error - quark, vsm_error)

int
vsm_error_to_exit_status (const GError *error)
{
  if (error == NULL)
    return 0;
  if (error->domain != VSM_ERROR)
    return 1;

  switch ((VsmError)error->code)
    {
    case VSM_ERROR_INVALID_ARGUMENT:
      return 2;
    case VSM_ERROR_NOT_FOUND:
      return 3;
    case VSM_ERROR_NOT_SUPPORTED:
      return 4;
    case VSM_ERROR_PERMISSION:
      return 5;
    case VSM_ERROR_APPLY:
      return 6;
    case VSM_ERROR_STATE:
      return 7;
    case VSM_ERROR_NOT_MANAGED:
      return 8;
    case VSM_ERROR_FAILED:
    default:
      return 1;
    }
}

char *
vsm_read_attr (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, error))
    return NULL;

  if (memchr (contents, '\0', len) != NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED, "%s: unexpected binary data", path);
      return NULL;
    }

  return g_strstrip (g_steal_pointer (&contents));
}

gboolean
vsm_parse_u64 (const char *text, guint64 *out)
{
  guint64 v;

  if (text == NULL || *text == '\0' || *text == '-' || *text == '+')
    return FALSE;
  if (!g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v, NULL))
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
vsm_parse_i64 (const char *text, gint64 *out)
{
  gint64 v;

  if (text == NULL || *text == '\0')
    return FALSE;
  if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &v, NULL))
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
vsm_read_u64 (const char *path, guint64 *out, GError **error)
{
  g_autofree char *text = vsm_read_attr (path, error);

  if (text == NULL)
    return FALSE;
  if (!vsm_parse_u64 (text, out))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED, "%s: not an unsigned number: '%.32s'", path,
                   text);
      return FALSE;
    }
  return TRUE;
}

static int fault_counter;

void
vsm_fault_reset (void)
{
  fault_counter = 0;
}

static gboolean
fault_injected (void)
{
  const char *spec = g_getenv ("VFAT_SMART_FAIL_WRITE");
  guint64 n;

  if (spec == NULL || !vsm_parse_u64 (spec, &n))
    return FALSE;
  fault_counter++;
  return (guint64)fault_counter == n;
}

gboolean
vsm_write_attr (const char *path, const char *value, GError **error)
{
  int fd;
  ssize_t r;
  size_t len = strlen (value);

  if (fault_injected ())
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, "%s: %s (injected by VFAT_SMART_FAIL_WRITE)",
                   path, g_strerror (EIO));
      return FALSE;
    }

  /* O_TRUNC as the shell does: harmless on sysfs and procfs */
  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR,
                   errsv == EACCES || errsv == EPERM ? VSM_ERROR_PERMISSION : VSM_ERROR_APPLY,
                   "cannot open %s for writing: %s", path, g_strerror (errsv));
      return FALSE;
    }

  do
    r = write (fd, value, len);
  while (r < 0 && errno == EINTR);

  if (r < 0 || (size_t)r != len)
    {
      int errsv = r < 0 ? errno : EIO;
      close (fd);
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, "cannot write '%s' to %s: %s", value, path,
                   g_strerror (errsv));
      return FALSE;
    }

  if (close (fd) < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, "cannot write '%s' to %s: %s", value, path,
                   g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

char *
vsm_format_bytes (guint64 bytes)
{
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

char *
vsm_format_rate (double bytes_per_second)
{
  if (bytes_per_second <= 0)
    return g_strdup ("-");
  if (bytes_per_second < 1e6)
    return g_strdup_printf ("%.0f kB/s", bytes_per_second / 1e3);
  return g_strdup_printf ("%.1f MB/s", bytes_per_second / 1e6);
}

void
vsm_init_program (const char *name)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname (name);
  openlog (name, LOG_PID, LOG_DAEMON);
}

void
vsm_print_notes (const char *program, GPtrArray *notes)
{
  for (guint i = 0; notes && i < notes->len; i++)
    printf ("%s: %s\n", program, (char *)g_ptr_array_index (notes, i));
}
