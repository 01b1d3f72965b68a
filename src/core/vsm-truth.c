/* vsm-truth.c - the flush mode that actually applies to a disk
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-truth.h"

#include "vsm-mount.h"

#include <glib/gi18n.h>
#include <libmount.h>

void
vsm_flush_truth_free (VsmFlushTruth *t)
{
  if (t == NULL)
    return;
  g_free (t->mode);
  g_free (t->planned);
  g_free (t->reason);
  g_free (t->safety);
  g_free (t);
}

static gboolean
has_option (const char *options, const char *name)
{
  char *value = NULL;
  size_t size = 0;

  return options != NULL && mnt_optstr_get_option (options, name, &value, &size) == 0;
}

/* only vfat (and msdos) has the flush option */
static gboolean
fs_has_flush (const char *fstype)
{
  return g_strcmp0 (fstype, "vfat") == 0 || g_strcmp0 (fstype, "msdos") == 0;
}

static void
set (VsmFlushTruth *t, const char *mode, char *reason, const char *safety)
{
  g_free (t->mode);
  t->mode = g_strdup (mode);
  if (g_strcmp0 (mode, t->planned) == 0 && reason == NULL)
    return;
  t->reason = reason;
  t->safety = g_strdup (safety);
}

/* exFAT (or anything without a flush option): the cap or nothing */
static void
no_flush_option (VsmFlushTruth *t, const char *fs, gboolean mounted)
{
  gboolean exfat = !fs_has_flush (fs);

  if (t->cap_in_place)
    {
      if (g_strcmp0 (t->planned, "dirty-cap") == 0)
        return;
      set (t, "dirty-cap",
           g_strdup (exfat ? _ ("exFAT has no flush option: the per-device cap is what bounds "
                                "the data at risk")
                           : _ ("the mount has no flush (the client that mounted it left it "
                                "out): the per-device cap is what bounds the data at risk")),
           exfat ? _ ("no flush (exFAT has none); the per-device cap bounds the data at risk")
                 : _ ("no flush; the per-device cap bounds the data at risk"));
      return;
    }
  if (g_strcmp0 (t->planned, "off") == 0 || (!mounted && !exfat))
    return;
  if (exfat)
    set (t, "off",
         g_strdup (_ ("exFAT has no flush option and no per-device cap is in place: only the "
                      "global dirty limit bounds the data at risk (as with udisks' default for "
                      "exFAT); eject before unplugging")),
         _ ("as udisks' default for exFAT: no flush and no cap, eject before unplugging"));
  else
    set (t, "off",
         g_strdup (_ ("the mount has no flush (the client that mounted it left it out) and no "
                      "per-device cap is in place: eject before unplugging")),
         _ ("LESS SAFE than udisks' default: no flush and no cap, eject before unplugging"));
}

VsmFlushTruth *
vsm_flush_truth_compute (const char *planned, const char *fs_type, const char *mount_fstype,
                         const char *mount_options, gboolean cap_in_place)
{
  VsmFlushTruth *t = g_new0 (VsmFlushTruth, 1);
  const char *fs = mount_fstype ? mount_fstype : fs_type;

  t->planned = g_strdup (planned ? planned : "kernel-flush");
  t->mode = g_strdup (t->planned);
  t->cap_in_place = cap_in_place;

  if (mount_fstype != NULL && has_option (mount_options, "sync"))
    {
      if (g_strcmp0 (t->planned, "sync") != 0)
        set (t, "sync",
             g_strdup_printf (_ ("the mount has sync (asked by the client that mounted it): "
                                 "every write goes out at once; the planned %s does not apply"),
                              t->planned),
             _ ("safer than udisks' default (sync), and slower"));
      return t;
    }
  if (mount_fstype != NULL && fs_has_flush (mount_fstype) && has_option (mount_options, "flush"))
    {
      if (g_strcmp0 (t->planned, "kernel-flush") != 0)
        set (t, "kernel-flush",
             g_strdup_printf (
               _ ("the mount has flush (asked by the client that mounted it): each close of a "
                  "written file writes it out and waits 100 ms; the planned %s does not apply%s"),
               t->planned,
               cap_in_place ? _ ("; the per-device cap stays in place and still bounds the data "
                                 "at risk during a big copy")
                            : ""),
             cap_in_place ? _ ("as safe as udisks' default (flush), and the per-device cap "
                               "bounds the data at risk while a big file is written")
                          : _ ("as safe as udisks' default (flush)"));
      return t;
    }
  if (fs == NULL || (mount_fstype == NULL && fs_has_flush (fs)))
    return t; /* not mounted: what the record planned is what a mount gets */
  if (fs_has_flush (fs) && g_strcmp0 (t->planned, "kernel-flush") != 0)
    return t; /* mounted without flush, as planned */
  no_flush_option (t, fs, mount_fstype != NULL);
  return t;
}

static const VsmKnobRecord *
knob_record (const VsmState *s, const char *name)
{
  for (guint i = 0; s->knobs && i < s->knobs->len; i++)
    {
      const VsmKnobRecord *r = g_ptr_array_index (s->knobs, i);
      if (g_strcmp0 (r->name, name) == 0)
        return r;
    }
  return NULL;
}

gboolean
vsm_state_has_device_cap (const VsmState *s)
{
  const VsmKnobRecord *strict = knob_record (s, "strict_limit");

  return knob_record (s, "max_bytes") != NULL ||
         (strict != NULL && g_strcmp0 (strict->applied, "1") == 0);
}

gboolean
vsm_state_strict_limit_on (const VsmState *s)
{
  const VsmKnobRecord *strict = knob_record (s, "strict_limit");

  return strict != NULL && g_strcmp0 (strict->applied, "1") == 0;
}

gboolean
vsm_state_strict_limit_dropped (const VsmState *s)
{
  const VsmKnobRecord *strict = knob_record (s, "strict_limit");

  return g_strcmp0 (s->flush_mode, "dirty-cap") == 0 && strict != NULL &&
         g_strcmp0 (strict->applied, "0") == 0;
}

static gboolean
is_fat (const char *fstype)
{
  return fs_has_flush (fstype) || g_strcmp0 (fstype, "exfat") == 0;
}

VsmFlushTruth *
vsm_flush_truth_for_state (const VsmState *s, GPtrArray *mounts)
{
  g_autoptr (GPtrArray) own = NULL;
  const VsmMountInfo *m = NULL;
  VsmFlushTruth *t;

  if (mounts == NULL)
    mounts = own = vsm_mounts_for_disk (s->disk_syspath);
  /* the FAT mount (a flush one first: it is the one that costs) */
  for (guint i = 0; i < mounts->len; i++)
    {
      const VsmMountInfo *mi = g_ptr_array_index (mounts, i);
      if (!is_fat (mi->fstype))
        continue;
      if (m == NULL || (fs_has_flush (mi->fstype) && has_option (mi->options, "flush")))
        m = mi;
    }
  if (m == NULL && mounts->len > 0)
    m = g_ptr_array_index (mounts, 0);
  t = vsm_flush_truth_compute (s->flush_mode, s->fs_type, m ? m->fstype : NULL,
                               m ? m->options : NULL, vsm_state_has_device_cap (s));
  t->strict_limit_dropped = vsm_state_strict_limit_dropped (s);
  return t;
}
