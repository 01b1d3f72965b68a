/* vsm-plan.c - (facts, class, policy, kernel) -> mount options + knobs (pure)
 *
 * All trade-offs live in the table below, one row per class.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-plan.h"

#include <glib/gi18n.h>
#include <string.h>

#define MB (G_GUINT64_CONSTANT (1000) * 1000)

typedef struct
{
  VsmClass klass;
  gboolean managed;
  VsmFlushMode mode; /* when the kernel has per-device caps */
  guint64 bandwidth; /* starting write bandwidth, bytes/s */
  const char *why;
} PlanRow;

static const PlanRow plan_table[] = {
  { VSM_CLASS_USB_STICK, TRUE, VSM_FLUSH_MODE_DIRTY_CAP, 20 * MB,
    N_ ("cheap sticks stall when close() races the flusher; a cap bounds the data at risk without "
        "flush") },
  { VSM_CLASS_USB_STICK_UAS, TRUE, VSM_FLUSH_MODE_DIRTY_CAP, 80 * MB,
    N_ ("a fast stick: a cap keeps progress honest and unplug losses small") },
  { VSM_CLASS_CARD_READER, TRUE, VSM_FLUSH_MODE_DIRTY_CAP, 20 * MB,
    N_ ("memory cards behave like cheap sticks") },
  { VSM_CLASS_USB_SSD, TRUE, VSM_FLUSH_MODE_DIRTY_CAP, 200 * MB,
    N_ ("an SSD writes fast; a cap of a few seconds still bounds the loss") },
  { VSM_CLASS_USB_HDD, TRUE, VSM_FLUSH_MODE_DIRTY_CAP, 80 * MB,
    N_ ("a hard disk: a cap bounds the loss, flush would add a 100 ms sleep to every close") },
  { VSM_CLASS_UNKNOWN, TRUE, VSM_FLUSH_MODE_DIRTY_CAP, 20 * MB,
    N_ ("an unidentified removable drive: planned like a cheap stick, the safest guess") },
  { VSM_CLASS_INTERNAL, FALSE, VSM_FLUSH_MODE_KERNEL_FLUSH, 0,
    N_ ("internal disks are left alone") },
};

static const PlanRow *
find_row (VsmClass klass)
{
  for (gsize i = 0; i < G_N_ELEMENTS (plan_table); i++)
    if (plan_table[i].klass == klass)
      return &plan_table[i];
  return &plan_table[G_N_ELEMENTS (plan_table) - 1];
}

static void
vsm_knob_free (VsmKnob *k)
{
  g_free (k->name);
  g_free (k->value);
  g_free (k);
}

void
vsm_plan_free (VsmPlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->fs_type);
  g_free (plan->mount_options);
  g_free (plan->udisks_defaults);
  g_free (plan->udisks_allow);
  g_free (plan->bandwidth_source);
  g_ptr_array_unref (plan->knobs);
  g_ptr_array_unref (plan->reasons);
  g_free (plan);
}

const char *
vsm_plan_get_knob (const VsmPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->knobs->len; i++)
    {
      VsmKnob *k = g_ptr_array_index (plan->knobs, i);
      if (g_str_equal (k->name, name))
        return k->value;
    }
  return NULL;
}

G_GNUC_PRINTF (2, 3)
static void
reason (VsmPlan *plan, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_ptr_array_add (plan->reasons, g_strdup_vprintf (format, args));
  va_end (args);
}

static void
add_knob (VsmPlan *plan, const char *name, guint64 value)
{
  VsmKnob *k = g_new0 (VsmKnob, 1);
  k->name = g_strdup (name);
  k->value = g_strdup_printf ("%" G_GUINT64_FORMAT, value);
  g_ptr_array_add (plan->knobs, k);
}

static gboolean
device_ignored (const VsmDevice *d, const VsmPolicy *policy, const char **which)
{
  g_autofree char *usb_id = NULL;

  if (d->usb && d->usb->vendor_id && d->usb->product_id)
    usb_id = g_strdup_printf ("%s:%s", d->usb->vendor_id, d->usb->product_id);

  for (char **e = policy->ignore_devices; e && *e; e++)
    {
      if ((usb_id && g_ascii_strcasecmp (*e, usb_id) == 0) ||
          (d->usb && g_strcmp0 (*e, d->usb->serial) == 0) ||
          (d->fs_uuid && g_ascii_strcasecmp (*e, d->fs_uuid) == 0))
        {
          *which = *e;
          return TRUE;
        }
    }
  return FALSE;
}

static void
build_mount_options (VsmPlan *plan)
{
  gboolean vfat = g_strcmp0 (plan->fs_type, "vfat") == 0;
  const char *base = vfat ? VSM_VFAT_BASE_OPTIONS : VSM_EXFAT_BASE_OPTIONS;
  const char *extra = NULL;

  if (plan->fs_type == NULL)
    return;

  if (plan->flush_mode == VSM_FLUSH_MODE_KERNEL_FLUSH)
    extra = "flush";
  else if (plan->flush_mode == VSM_FLUSH_MODE_SYNC)
    extra = "sync";

  plan->mount_options = extra ? g_strconcat (base, ",", extra, NULL) : g_strdup (base);
  plan->udisks_defaults = g_strconcat ("uid=$UID,gid=$GID,", plan->mount_options, NULL);
  /* udisks' built-in allow sets, plus flush and sync so that a user can
   * still ask for either explicitly. */
  if (vfat)
    plan->udisks_allow = g_strdup ("uid=$UID,gid=$GID,flush,sync,utf8,shortname,umask,dmask,fmask,"
                                   "codepage,iocharset,usefree,showexec");
  else
    plan->udisks_allow =
      g_strdup ("uid=$UID,gid=$GID,sync,dmask,errors,fmask,iocharset,namecase,umask");
}

static guint64
clamp_cap (VsmPlan *plan, const VsmPolicy *policy)
{
  double raw = (double)plan->bandwidth * policy->max_dirty_seconds;
  guint64 cap = raw >= (double)G_MAXUINT64 ? G_MAXUINT64 : (guint64)raw;
  g_autofree char *bw = NULL, *lo = NULL, *hi = NULL, *res = NULL;

  cap = CLAMP (cap, policy->cap_min_bytes, policy->cap_max_bytes);
  /* a whole number of MiB (the policy's minimum is 1 MiB) */
  cap -= cap % (1024 * 1024);

  bw = g_strdup_printf ("%.1f MB/s", (double)plan->bandwidth / 1e6);
  lo = g_format_size_full (policy->cap_min_bytes, G_FORMAT_SIZE_IEC_UNITS);
  hi = g_format_size_full (policy->cap_max_bytes, G_FORMAT_SIZE_IEC_UNITS);
  res = g_format_size_full (cap, G_FORMAT_SIZE_IEC_UNITS);
  reason (plan, _ ("dirty cap %s = %s (%s) x %g s, clamped to %s..%s"), res, bw,
          plan->bandwidth_source, policy->max_dirty_seconds, lo, hi);
  return cap;
}

VsmPlan *
vsm_plan_compute (const VsmDevice *d, const VsmClassification *c, const VsmPolicy *policy,
                  const VsmKernel *kernel, guint64 measured_bandwidth)
{
  VsmPlan *plan = g_new0 (VsmPlan, 1);
  const PlanRow *row = find_row (c->klass);
  gboolean exfat, has_cap;
  VsmFlushMode mode;
  const char *ignored = NULL;

  plan->klass = c->klass;
  plan->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_free);
  plan->reasons = g_ptr_array_new_with_free_func (g_free);

  if (g_strcmp0 (d->fs_type, "vfat") == 0 || g_strcmp0 (d->fs_type, "exfat") == 0)
    plan->fs_type = g_strdup (d->fs_type);
  else if (d->fs_type != NULL)
    reason (plan, _ ("%s is not FAT: mount options are not vfat-smart's business"), d->fs_type);
  exfat = g_strcmp0 (plan->fs_type, "exfat") == 0;

  /* What udisks would do on its own: flush on vfat, nothing on exfat. */
  plan->flush_mode = exfat ? VSM_FLUSH_MODE_OFF : VSM_FLUSH_MODE_KERNEL_FLUSH;

  if (!policy->enabled)
    {
      reason (plan, _ ("disabled by policy (enabled=false): udisks' defaults, no knobs"));
      build_mount_options (plan);
      return plan;
    }
  if (device_ignored (d, policy, &ignored))
    {
      reason (plan, _ ("listed in ignore-devices (%s): udisks' defaults, no knobs"), ignored);
      build_mount_options (plan);
      return plan;
    }
  if (!row->managed)
    {
      reason (plan, "%s", _ (row->why));
      build_mount_options (plan);
      return plan;
    }

  plan->managed = TRUE;
  reason (plan, _ ("%s: %s"), vsm_class_to_string (c->klass), _ (row->why));

  mode = row->mode;
  if (policy->class_mode[c->klass] != VSM_FLUSH_MODE_AUTO)
    {
      mode = policy->class_mode[c->klass];
      reason (plan, _ ("class-flush-modes sets %s for %s"), vsm_flush_mode_to_string (mode),
              vsm_class_to_string (c->klass));
    }
  else if (policy->flush_mode != VSM_FLUSH_MODE_AUTO)
    {
      mode = policy->flush_mode;
      reason (plan, _ ("flush-mode sets %s"), vsm_flush_mode_to_string (mode));
    }

  if (mode == VSM_FLUSH_MODE_KERNEL_FLUSH && exfat)
    {
      mode = VSM_FLUSH_MODE_DIRTY_CAP;
      reason (plan, _ ("exFAT has no flush option; using a dirty cap instead"));
    }

  has_cap = kernel->has_strict_limit && kernel->has_max_bytes;
  if (mode == VSM_FLUSH_MODE_DIRTY_CAP && !has_cap && !policy->allow_global_knobs)
    {
      mode = exfat ? VSM_FLUSH_MODE_OFF : VSM_FLUSH_MODE_KERNEL_FLUSH;
      reason (plan,
              _ ("fallback: Linux %s has no per-device dirty cap (strict_limit and max_bytes need "
                 "6.2); %s"),
              kernel->release ? kernel->release : "?",
              exfat ? _ ("exFAT has no flush either: data at risk is bounded only by the global "
                         "dirty limit, eject before unplugging")
                    : _ ("keeping flush, as udisks does"));
    }
  plan->flush_mode = mode;

  if (mode == VSM_FLUSH_MODE_DIRTY_CAP)
    {
      if (measured_bandwidth > 0)
        {
          plan->bandwidth =
            CLAMP (measured_bandwidth, VSM_POLICY_MIN_BANDWIDTH, VSM_POLICY_MAX_BANDWIDTH);
          plan->bandwidth_source = g_strdup (_ ("measured by the kernel"));
        }
      else if (policy->class_bandwidth[c->klass] > 0)
        {
          plan->bandwidth = policy->class_bandwidth[c->klass];
          plan->bandwidth_source = g_strdup (_ ("class-bandwidth policy"));
        }
      else
        {
          plan->bandwidth = row->bandwidth;
          plan->bandwidth_source =
            g_strdup_printf (_ ("starting value for %s"), vsm_class_to_string (c->klass));
        }
      plan->cap_bytes = clamp_cap (plan, policy);

      if (has_cap)
        {
          /* max_bytes first: strict_limit with the old 100% ratio would
           * throttle nothing, the reverse order could throttle hard. */
          add_knob (plan, "max_bytes", plan->cap_bytes);
          add_knob (plan, "strict_limit", 1);
          reason (plan,
                  _ ("no flush: close() returns at once and the cap (strict_limit, max_bytes) "
                     "keeps at most %g s of writing at risk"),
                  policy->max_dirty_seconds);
        }
      else
        {
          add_knob (plan, "vm.dirty_bytes", plan->cap_bytes);
          add_knob (plan, "vm.dirty_background_bytes", MAX (plan->cap_bytes / 2, 4096));
          reason (plan,
                  _ ("no per-device cap on this kernel; allow-global-knobs lets vfat-smart set "
                     "vm.dirty_bytes and vm.dirty_background_bytes, which act on every disk"));
        }
    }
  else if (mode == VSM_FLUSH_MODE_KERNEL_FLUSH)
    {
      switch (kernel->flush_fix)
        {
        case VSM_FLUSH_FIX_PRESENT:
          reason (plan, _ ("flush: the FAT flush fix is present, close() does not race the "
                           "flusher, but while the flusher owns a file close() returns with its data "
                           "still dirty (eject before unplugging); each close of a written file "
                           "still sleeps 100 ms"));
          break;
        case VSM_FLUSH_FIX_ABSENT:
          reason (plan,
                  _ ("flush: without the FAT flush fix close() races the flusher (smaller requests "
                     "on slow sticks) and each close of a written file sleeps 100 ms"));
          break;
        case VSM_FLUSH_FIX_UNKNOWN:
        default:
          reason (plan,
                  _ ("flush: whether close() races the flusher is unknown (%s); each close of a "
                     "written file sleeps 100 ms"),
                  kernel->flush_fix_reason ? kernel->flush_fix_reason : "?");
          break;
        }
    }
  else if (mode == VSM_FLUSH_MODE_SYNC)
    {
      reason (plan, _ ("sync: every write waits for the drive; safest, slowest, wears flash"));
    }
  else
    {
      reason (plan, _ ("off: no flush and no cap; up to the global dirty limit may be at risk"));
    }

  build_mount_options (plan);
  return plan;
}
