/* vsm-stats.c - block I/O counters and dirty data, and their deltas
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-stats.h"

#include "vsm-paths.h"
#include "vsm-util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

gboolean
vsm_disk_stat_parse (const char *text, VsmDiskStat *out)
{
  g_auto (GStrv) tokens = NULL;
  guint n = 0;

  memset (out, 0, sizeof *out);
  if (text == NULL)
    return FALSE;
  tokens = g_strsplit_set (text, " \t\n", -1);
  for (char **t = tokens; *t != NULL; t++)
    {
      if (**t == '\0')
        continue;
      if (n >= VSM_DISK_STAT_FIELDS || !vsm_parse_u64 (*t, &out->field[n]))
        return FALSE;
      n++;
    }
  if (n < 11)
    return FALSE;
  out->n_fields = n;
  return TRUE;
}

gboolean
vsm_disk_stat_read (const char *disk_name, VsmDiskStat *out, char **raw, GError **error)
{
  g_autofree char *path = vsm_path (VSM_ROOT_SYSFS, "block", disk_name, "stat", NULL);
  g_autofree char *text = vsm_read_attr (path, error);

  if (text == NULL)
    return FALSE;
  if (!vsm_disk_stat_parse (text, out))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED, "%s: unexpected format", path);
      return FALSE;
    }
  if (raw)
    *raw = g_steal_pointer (&text);
  return TRUE;
}

enum
{
  STAT_WRITE_IOS = 4,
  STAT_WRITE_SECTORS = 6,
  STAT_WRITE_TICKS = 7,
  STAT_IO_TICKS = 9,
  STAT_FLUSH_IOS = 15,
};

void
vsm_disk_stat_delta (const VsmDiskStat *a, const VsmDiskStat *b, VsmIoDelta *out)
{
  memset (out, 0, sizeof *out);
  if (a->n_fields < 11 || b->n_fields < 11)
    return;
  for (guint i = 0; i < MIN (a->n_fields, b->n_fields); i++)
    if (i != 8 && b->field[i] < a->field[i]) /* 8: in flight, not a counter */
      return;

  out->valid = TRUE;
  out->write_ios = b->field[STAT_WRITE_IOS] - a->field[STAT_WRITE_IOS];
  out->write_bytes = (b->field[STAT_WRITE_SECTORS] - a->field[STAT_WRITE_SECTORS]) * 512;
  out->busy_ms = b->field[STAT_IO_TICKS] - a->field[STAT_IO_TICKS];
  if (a->n_fields >= 17 && b->n_fields >= 17)
    {
      out->has_flush = TRUE;
      out->flush_ios = b->field[STAT_FLUSH_IOS] - a->field[STAT_FLUSH_IOS];
    }
  if (out->write_ios > 0)
    out->avg_write_request_bytes = (double)out->write_bytes / (double)out->write_ios;
  if (out->busy_ms > 0)
    out->write_throughput = (double)out->write_bytes * 1000.0 / (double)out->busy_ms;
}

/* "Key:   1234 kB" / "BdiWriteBandwidth: 1234 kBps" / "b_dirty: 3" */
static gboolean
parse_kv_line (const char *line, char **key, guint64 *value, guint64 *unit)
{
  const char *colon = strchr (line, ':');
  g_auto (GStrv) parts = NULL;
  guint64 v;

  if (colon == NULL)
    return FALSE;
  parts = g_strsplit_set (colon + 1, " \t", -1);
  *unit = 1;
  for (char **p = parts; *p; p++)
    {
      if (**p == '\0')
        continue;
      if (!vsm_parse_u64 (*p, &v))
        return FALSE;
      *value = v;
      for (char **q = p + 1; *q; q++)
        if (**q != '\0')
          {
            if (g_str_equal (*q, "kB") || g_str_equal (*q, "kBps"))
              *unit = 1024;
            break;
          }
      *key = g_strstrip (g_strndup (line, colon - line));
      return TRUE;
    }
  return FALSE;
}

typedef void (*KvFunc) (const char *key, guint64 bytes, VsmDirtyInfo *out, guint *seen);

static guint
parse_kv_text (const char *text, KvFunc func, VsmDirtyInfo *out)
{
  g_auto (GStrv) lines = NULL;
  guint seen = 0;

  if (text == NULL)
    return 0;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_autofree char *key = NULL;
      guint64 v = 0, unit = 1;
      if (!parse_kv_line (*l, &key, &v, &unit))
        continue;
      if (unit > 1 && v > G_MAXUINT64 / unit)
        continue;
      func (key, v * unit, out, &seen);
    }
  return seen;
}

static void
bdi_kv (const char *key, guint64 bytes, VsmDirtyInfo *out, guint *seen)
{
  if (g_str_equal (key, "BdiReclaimable"))
    out->dirty_bytes = bytes, *seen |= 1;
  else if (g_str_equal (key, "BdiWriteback"))
    out->writeback_bytes = bytes, *seen |= 2;
  else if (g_str_equal (key, "BdiDirtyThresh"))
    out->bdi_thresh_bytes = bytes;
  else if (g_str_equal (key, "DirtyThresh"))
    out->dirty_thresh_bytes = bytes;
  else if (g_str_equal (key, "BackgroundThresh"))
    out->bg_thresh_bytes = bytes;
  else if (g_str_equal (key, "BdiWriteBandwidth"))
    out->bandwidth = bytes;
  else if (g_str_equal (key, "BdiDirtied"))
    out->dirtied_bytes = bytes;
  else if (g_str_equal (key, "b_dirty") || g_str_equal (key, "b_io") ||
           g_str_equal (key, "b_more_io"))
    {
      out->dirty_inodes =
        bytes > G_MAXUINT64 - out->dirty_inodes ? G_MAXUINT64 : out->dirty_inodes + bytes;
      out->has_inodes = TRUE;
    }
}

gboolean
vsm_bdi_stats_parse (const char *text, VsmDirtyInfo *out)
{
  memset (out, 0, sizeof *out);
  out->per_device = TRUE;
  out->valid = parse_kv_text (text, bdi_kv, out) == 3;
  return out->valid;
}

static void
meminfo_kv (const char *key, guint64 bytes, VsmDirtyInfo *out, guint *seen)
{
  if (g_str_equal (key, "Dirty"))
    out->dirty_bytes = bytes, *seen |= 1;
  else if (g_str_equal (key, "Writeback"))
    out->writeback_bytes = bytes, *seen |= 2;
}

gboolean
vsm_meminfo_parse (const char *text, VsmDirtyInfo *out)
{
  memset (out, 0, sizeof *out);
  out->valid = parse_kv_text (text, meminfo_kv, out) == 3;
  return out->valid;
}

guint64
vsm_wb_stat_error_bytes (guint nr_cpu_ids, guint64 page_size)
{
  guint log2 = 0;

  /* include/linux/backing-dev-defs.h: WB_STAT_BATCH (8*(1+ilog2(nr_cpu_ids))) */
  for (guint n = MAX (nr_cpu_ids, 1); n > 1; n >>= 1)
    log2++;
  return (guint64)MAX (nr_cpu_ids, 1) * 8 * (1 + log2) * page_size;
}

void
vsm_dirty_info_discount_residual (VsmDirtyInfo *di, guint64 error_bytes)
{
  if (!di->valid || !di->per_device || !di->has_inodes || di->dirty_inodes > 0)
    return;
  if (di->dirty_bytes <= error_bytes)
    di->residual_bytes += di->dirty_bytes, di->dirty_bytes = 0;
}

/* the kernel's nr_cpu_ids: the highest possible CPU + 1 */
static guint
read_possible_cpus (const char *path)
{
  g_autofree char *text = vsm_read_attr (path, NULL);
  const char *last = text ? strrchr (text, '-') : NULL;
  const char *comma = text ? strrchr (text, ',') : NULL;
  guint64 n = 0;

  if (text == NULL)
    return 1;
  if (comma != NULL && (last == NULL || comma > last))
    last = comma;
  if (!g_ascii_string_to_unsigned (g_strstrip ((char *)(last ? last + 1 : text)), 10, 0, 65535, &n,
                                   NULL))
    return 1;
  return (guint)n + 1;
}

/* ... read once per sysfs root (it is fixed at boot; the daemon samples a
 * writing drive four times a second) */
static guint
possible_cpus (void)
{
  G_LOCK_DEFINE_STATIC (cpus);
  static char *read_from;
  static guint n;
  g_autofree char *path = vsm_path (VSM_ROOT_SYSFS, "devices/system/cpu/possible", NULL);
  guint out;

  G_LOCK (cpus);
  if (g_strcmp0 (path, read_from) != 0)
    {
      g_free (read_from);
      read_from = g_steal_pointer (&path);
      n = read_possible_cpus (read_from);
    }
  out = n;
  G_UNLOCK (cpus);
  return out;
}

void
vsm_dirty_info_read (const char *bdi, VsmDirtyInfo *out)
{
  g_autofree char *path = vsm_path (VSM_ROOT_DEBUGFS, "bdi", bdi, "stats", NULL);
  g_autofree char *meminfo = vsm_path (VSM_ROOT_PROCFS, "meminfo", NULL);
  g_autofree char *text = NULL;

  text = vsm_read_attr (path, NULL);
  if (text != NULL && vsm_bdi_stats_parse (text, out))
    {
      out->error_bytes =
        vsm_wb_stat_error_bytes (possible_cpus (), (guint64)sysconf (_SC_PAGESIZE));
      vsm_dirty_info_discount_residual (out, out->error_bytes);
      return;
    }
  g_clear_pointer (&text, g_free);
  text = vsm_read_attr (meminfo, NULL);
  vsm_meminfo_parse (text, out);
}

guint64
vsm_at_risk_bytes (const VsmDirtyInfo *di, guint64 cap, gboolean wrote_lately, const char **kind)
{
  guint64 at_risk = di->valid ? di->dirty_bytes + di->writeback_bytes : 0;

  if (kind != NULL)
    *kind = di->per_device ? "device" : "system";
  if (di->per_device)
    return at_risk;
  return !wrote_lately ? 0 : cap > 0 ? MIN (at_risk, cap) : at_risk;
}

/* writes the block layer has in flight to the disk ("R W" in inflight) */
guint64
vsm_disk_writes_in_flight (const char *bdi)
{
  g_autofree char *path = vsm_path (VSM_ROOT_SYSFS, "dev", "block", bdi, "inflight", NULL);
  g_autofree char *text = vsm_read_attr (path, NULL);
  guint64 reads = 0, writes = 0;

  if (text == NULL ||
      sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &reads, &writes) != 2)
    return 0;
  return writes;
}
