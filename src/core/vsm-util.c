/* vsm-util.c - small helpers shared by the vfat-smart core
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-util.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <unistd.h>

GQuark
vsm_error_quark (void)
{
  return g_quark_from_static_string ("vsm-error-quark");
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
      g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED, _ ("%s: unexpected binary data"), path);
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
      g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED, _ ("%s: not an unsigned number: '%.32s'"),
                   path, text);
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

static gboolean
set_file_error (GError **error, int errsv, const char *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv), _ ("cannot write %s: %s"),
               path, g_strerror (errsv));
  return FALSE;
}

gboolean
vsm_write_file_atomic (const char *path, const char *data, gsize len, mode_t mode, gboolean durable,
                       GError **error)
{
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  gsize done = 0;
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  int errsv;

  if (fd < 0)
    return set_file_error (error, errno, tmp);
  if (fchmod (fd, mode) != 0)
    goto fail;
  while (done < len)
    {
      ssize_t n = write (fd, data + done, len - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = ENOSPC;
          goto fail;
        }
      done += (gsize)n;
    }
  if (fsync (fd) != 0)
    goto fail;
  if (close (fd) != 0)
    {
      fd = -1;
      goto fail;
    }
  fd = -1;
  if (rename (tmp, path) != 0)
    goto fail;
  if (durable)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0)
        {
          (void)fsync (dfd);
          close (dfd);
        }
    }
  return TRUE;

fail:
  errsv = errno;
  if (fd >= 0)
    close (fd);
  (void)unlink (tmp);
  return set_file_error (error, errsv, tmp);
}

gboolean
vsm_write_attr (const char *path, const char *value, GError **error)
{
  int fd;
  ssize_t r;
  size_t len = strlen (value);

  if (fault_injected ())
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY,
                   _ ("%s: %s (injected by VFAT_SMART_FAIL_WRITE)"), path, g_strerror (EIO));
      return FALSE;
    }

  /* O_TRUNC as the shell does: harmless on sysfs and procfs */
  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR,
                   errsv == EACCES || errsv == EPERM ? VSM_ERROR_PERMISSION : VSM_ERROR_APPLY,
                   _ ("cannot open %s for writing: %s"), path, g_strerror (errsv));
      return FALSE;
    }

  do
    r = write (fd, value, len);
  while (r < 0 && errno == EINTR);

  if (r < 0 || (size_t)r != len)
    {
      int errsv = r < 0 ? errno : EIO;
      close (fd);
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, _ ("cannot write '%s' to %s: %s"), value,
                   path, g_strerror (errsv));
      return FALSE;
    }

  if (close (fd) < 0)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_APPLY, _ ("cannot write '%s' to %s: %s"), value,
                   path, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

char *
vsm_format_size (guint64 bytes, GFormatSizeFlags flags)
{
  g_autofree char *text = g_format_size_full (bytes, flags);
  g_autoptr (GString) s = g_string_new (text);

  /* GLib puts a no-break space before the unit: where the output is not
   * UTF-8 (a C locale, a journal of a service without LANG) GLib's own
   * conversion shows it as "?" */
  if (!g_get_charset (NULL))
    g_string_replace (s, "\u00a0", " ", 0);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
vsm_format_bytes (guint64 bytes)
{
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  return vsm_format_size (bytes, G_FORMAT_SIZE_IEC_UNITS);
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

const char *
vsm_enum_to_nick (GType type, int value, const char *fallback)
{
  g_autoptr (GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *v = g_enum_get_value (klass, value);

  return v ? v->value_nick : fallback;
}

gboolean
vsm_enum_from_nick (GType type, const char *nick, int *out)
{
  g_autoptr (GEnumClass) klass = NULL;
  GEnumValue *v;

  if (nick == NULL)
    return FALSE;
  klass = g_type_class_ref (type);
  v = g_enum_get_value_by_nick (klass, nick);
  if (v == NULL)
    return FALSE;
  *out = v->value;
  return TRUE;
}

void
vsm_note (GPtrArray *notes, const char *format, ...)
{
  va_list args;

  if (notes == NULL)
    return;
  va_start (args, format);
  g_ptr_array_add (notes, g_strdup_vprintf (format, args));
  va_end (args);
}
