/* vsm-plan.c - (facts, class, policy, kernel) -> mount options + knobs (pure)
 *
 * What each class gets is in plan_table, one row per class; how a cap is
 * put in place on a kernel is in cap_mechanisms. The policy, the kernel and
 * a person's options then decide in the steps of vsm_plan_compute ().
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-plan.h"
#include "vsm-learn.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <string.h>

#define MB (G_GUINT64_CONSTANT (1000) * 1000)

typedef struct
{
  VsmClass klass;
  gboolean managed;
  guint64 bandwidth; /* starting write bandwidth, bytes/s */
  gboolean pace;     /* vfat-smartd may pace one big file under the cap */
  const char *why;
  const char *no_pace_why; /* why a capped class is not paced (pace FALSE) */
} PlanRow;

static const PlanRow plan_table[] = {
  { VSM_CLASS_USB_STICK, TRUE, 20 * MB, TRUE,
    N_ ("cheap sticks stall when close() races the flusher; a cap bounds the data at risk without "
        "flush") },
  { VSM_CLASS_USB_STICK_UAS, TRUE, 80 * MB, TRUE,
    N_ ("a fast stick: a cap keeps progress honest and unplug losses small") },
  { VSM_CLASS_CARD_READER, TRUE, 20 * MB, TRUE, N_ ("memory cards behave like cheap sticks") },
  { VSM_CLASS_USB_SSD, TRUE, 200 * MB, FALSE,
    N_ ("an SSD writes fast; a cap of a few seconds still bounds the loss"),
    N_ ("a metadata write costs an SSD next to nothing and pacing only slows the copy") },
  { VSM_CLASS_USB_HDD, TRUE, 80 * MB, FALSE,
    N_ ("a hard disk: a cap bounds the loss, flush would add a 100 ms sleep to every close"),
    N_ ("on a hard disk pacing made more seeks than the kernel's own writeback under the cap "
        "and kept the drive busy longer") },
  { VSM_CLASS_UNKNOWN, TRUE, 20 * MB, TRUE,
    N_ ("an unidentified removable drive: planned like a cheap stick, the safest guess") },
  { VSM_CLASS_INTERNAL, FALSE, 0, FALSE, N_ ("internal disks are left alone") },
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
  g_free (plan->left_alone_reason);
  vsm_reason_unref (plan->left_alone);
  g_free (plan->bandwidth_source);
  vsm_reason_unref (plan->bandwidth_why);
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

/* format: an N_ () message; recorded untranslated with its arguments
 * (vsm-reason.h), returned to set an argument that is a message itself */
G_GNUC_PRINTF (2, 3)
static VsmReason *
reason (VsmPlan *plan, const char *format, ...)
{
  va_list args;
  VsmReason *r;

  va_start (args, format);
  r = vsm_reason_newv (format, args);
  va_end (args);
  g_ptr_array_add (plan->reasons, r);
  return r;
}

/* what a caller says (VsmOverrides): a serialized reason, an N_ ()
 * message, or text shown as it is */
static VsmReason *
given_reason (const char *text)
{
  VsmReason *r = vsm_reason_parse (text);

  if (r != NULL && r->msgid != NULL)
    return r;
  vsm_reason_unref (r);
  return vsm_reason_new_message (text);
}

static void
add_knob (VsmPlan *plan, const char *name, guint64 value)
{
  VsmKnob *k = g_new0 (VsmKnob, 1);
  k->name = g_strdup (name);
  k->value = g_strdup_printf ("%" G_GUINT64_FORMAT, value);
  g_ptr_array_add (plan->knobs, k);
}

gboolean
vsm_plan_device_ignored (const VsmDevice *d, const VsmPolicy *policy, const char **which)
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
  /* only the defaults: udisks' own allow lists (flush for vfat, sync for
   * every filesystem) stay in force, whatever the udisks version */
  plan->udisks_defaults = g_strconcat ("uid=$UID,gid=$GID,", plan->mount_options, NULL);
}

/* How a dirty cap is put in place. The knobs' own facts (where they live,
 * how they read back and are restored) are in vsm-knobs.c. */
typedef struct
{
  const char *name;
  gboolean (*available) (const VsmKernel *k, const VsmPolicy *p);
  const char *knobs[2];
  guint64 (*value) (guint i, guint64 cap);
  const char *why;
  gboolean per_device; /* FALSE: the system's vm.* knobs */
} CapMechanism;

static gboolean
per_device_available (const VsmKernel *k, const VsmPolicy *p)
{
  return k->has_strict_limit && k->has_max_bytes;
}

/* max_bytes first: strict_limit with the old 100% ratio would throttle
 * nothing, the reverse order could throttle hard */
static guint64
per_device_value (guint i, guint64 cap)
{
  return i == 0 ? cap : 1;
}

static gboolean
global_available (const VsmKernel *k, const VsmPolicy *p)
{
  return p->allow_global_knobs;
}

static guint64
global_value (guint i, guint64 cap)
{
  return i == 0 ? cap : MAX (cap / 2, 4096);
}

guint64
vsm_plan_global_value (const char *knob, guint64 cap)
{
  return global_value (g_str_equal (knob, "vm.dirty_bytes") ? 0 : 1, cap);
}

static const CapMechanism cap_mechanisms[] = {
  { "per-device",
    per_device_available,
    { "max_bytes", "strict_limit" },
    per_device_value,
    N_ ("no flush: close() returns at once and the cap (strict_limit, max_bytes) bounds what is "
        "at risk"),
    TRUE },
  { "global",
    global_available,
    { "vm.dirty_bytes", "vm.dirty_background_bytes" },
    global_value,
    N_ ("no per-device cap on this kernel; allow-global-knobs lets vfat-smart set vm.dirty_bytes "
        "and vm.dirty_background_bytes, which act on every disk"),
    FALSE },
};

/* where the daemon paces, a per-device cap holds a share of the seconds
 * for many files; not the system-wide vm.* knobs: they cap every drive's
 * writers */
static gboolean
narrow_for_many_files (const PlanRow *row, const CapMechanism *m)
{
  return row->pace && m->per_device;
}

/* The seconds of writing the cap holds (vsm-learn.h): a quarter of
 * max-dirty-seconds before the drive's bandwidth is measured, and where it
 * narrows for many files also after it, except while the daemon paces one
 * big file */

static double
cap_seconds (const VsmPlan *plan, const VsmPolicy *policy, const PlanRow *row,
             const CapMechanism *m, const VsmOverrides *o)
{
  gboolean one_big_file = o && o->one_big_file && o->bandwidth > 0;
  double seconds =
    vsm_learn_cap_seconds (policy->max_dirty_seconds, narrow_for_many_files (row, m), one_big_file);

  if (plan->first_cap)
    seconds = MIN (seconds, policy->max_dirty_seconds * VSM_LEARN_FIRST_SHARE);
  return seconds;
}

static guint64
clamp_cap (VsmPlan *plan, const VsmPolicy *policy, const PlanRow *row, const CapMechanism *m)
{
  /* the one formula, the daemon's learner's too */
  const VsmLearnLimits limits = { .max_dirty_seconds = plan->cap_seconds,
                                  .cap_min_bytes = policy->cap_min_bytes,
                                  .cap_max_bytes = policy->cap_max_bytes };
  guint64 cap = vsm_learn_cap_for (&limits, plan->bandwidth);
  double all = policy->max_dirty_seconds;
  g_autofree char *bw = NULL, *lo = NULL, *hi = NULL, *res = NULL;
  VsmReason *r;

  bw = g_strdup_printf ("%.1f MB/s", (double)plan->bandwidth / 1e6);
  lo = vsm_format_size (policy->cap_min_bytes, G_FORMAT_SIZE_IEC_UNITS);
  hi = vsm_format_size (policy->cap_max_bytes, G_FORMAT_SIZE_IEC_UNITS);
  res = vsm_format_size (cap, G_FORMAT_SIZE_IEC_UNITS);
  if (narrow_for_many_files (row, m) && plan->cap_seconds < all)
    r = reason (plan,
                N_ ("dirty cap %s = %s (%s) x %g s while files are written, what a pull loses of "
                    "many files (x %g s while the daemon paces one big file of a measured "
                    "drive), clamped to %s..%s"),
                res, bw, plan->bandwidth_source, plan->cap_seconds, all, lo, hi);
  else if (narrow_for_many_files (row, m))
    r = reason (plan,
                N_ ("dirty cap %s = %s (%s) x %g s while the daemon paces one big file, clamped "
                    "to %s..%s"),
                res, bw, plan->bandwidth_source, plan->cap_seconds, lo, hi);
  else if (plan->first_cap)
    r = reason (plan,
                N_ ("dirty cap %s = %s (%s) x %g s until the drive's bandwidth is measured "
                    "(then x %g s), clamped to %s..%s"),
                res, bw, plan->bandwidth_source, plan->cap_seconds, all, lo, hi);
  else
    r = reason (plan, N_ ("dirty cap %s = %s (%s) x %g s, clamped to %s..%s"), res, bw,
                plan->bandwidth_source, plan->cap_seconds, lo, hi);
  if (plan->bandwidth_why != NULL)
    vsm_reason_set_arg (r, 2, vsm_reason_ref (plan->bandwidth_why));
  return cap;
}

gboolean
vsm_plan_knob_is_written (const char *name)
{
  for (gsize i = 0; name != NULL && i < G_N_ELEMENTS (cap_mechanisms); i++)
    for (gsize k = 0; k < G_N_ELEMENTS (cap_mechanisms[i].knobs); k++)
      if (g_strcmp0 (cap_mechanisms[i].knobs[k], name) == 0)
        return TRUE;
  return FALSE;
}

static const CapMechanism *
find_cap_mechanism (const VsmKernel *k, const VsmPolicy *p)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cap_mechanisms); i++)
    if (cap_mechanisms[i].available (k, p))
      return &cap_mechanisms[i];
  return NULL;
}

static VsmPlan *
plan_new (const VsmDevice *d, const VsmClassification *c)
{
  VsmPlan *plan = g_new0 (VsmPlan, 1);

  plan->klass = c->klass;
  plan->knobs = g_ptr_array_new_with_free_func ((GDestroyNotify)vsm_knob_free);
  plan->reasons = vsm_reasons_new ();
  if (vsm_fs_type_is_fat (d->fs_type))
    plan->fs_type = g_strdup (d->fs_type);
  else if (d->fs_type != NULL)
    reason (plan, N_ ("%s is not FAT: mount options are not vfat-smart's business"), d->fs_type);
  /* what udisks would do on its own: flush on vfat, nothing on exfat */
  plan->flush_mode =
    g_strcmp0 (plan->fs_type, "exfat") == 0 ? VSM_FLUSH_MODE_OFF : VSM_FLUSH_MODE_KERNEL_FLUSH;
  return plan;
}

/* Step 1: is the drive vfat-smart's at all? */
static gboolean
decide_managed (VsmPlan *plan, const VsmDevice *d, const PlanRow *row, const VsmPolicy *policy)
{
  const char *ignored = NULL;
  VsmReason *r;

  if (!policy->enabled)
    plan->left_alone = vsm_reason_new_message (
      N_ ("disabled by policy (enabled=false): udisks' defaults, no knobs"));
  else if (vsm_plan_device_ignored (d, policy, &ignored))
    plan->left_alone =
      vsm_reason_new (N_ ("listed in ignore-devices (%s): udisks' defaults, no knobs"), ignored);
  else if (!row->managed)
    plan->left_alone = vsm_reason_new_message (row->why);
  if (plan->left_alone != NULL)
    {
      plan->left_alone_reason = g_strdup (plan->left_alone->text);
      g_ptr_array_add (plan->reasons, vsm_reason_ref (plan->left_alone));
      return FALSE;
    }
  plan->managed = TRUE;
  r = reason (plan, N_ ("%s: %s"), vsm_class_to_string (plan->klass), row->why);
  vsm_reason_set_arg (r, 1, vsm_reason_new_message (row->why));
  return TRUE;
}

/* Step 2: the flush mode asked for (person > class policy > policy > table) */
static VsmFlushMode
choose_mode (VsmPlan *plan, const VsmPolicy *policy, const VsmOverrides *o)
{
  VsmFlushMode mode = VSM_FLUSH_MODE_DIRTY_CAP;

  if (o && o->flush_mode != VSM_FLUSH_MODE_AUTO)
    {
      mode = o->flush_mode;
      g_ptr_array_add (plan->reasons, o->flush_mode_why
                                        ? given_reason (o->flush_mode_why)
                                        : vsm_reason_new_literal (vsm_flush_mode_to_string (mode)));
    }
  else if (policy->class_mode[plan->klass] != VSM_FLUSH_MODE_AUTO)
    {
      mode = policy->class_mode[plan->klass];
      reason (plan, N_ ("class-flush-modes sets %s for %s"), vsm_flush_mode_to_string (mode),
              vsm_class_to_string (plan->klass));
    }
  else if (policy->flush_mode != VSM_FLUSH_MODE_AUTO)
    {
      mode = policy->flush_mode;
      reason (plan, N_ ("flush-mode sets %s"), vsm_flush_mode_to_string (mode));
    }
  if (mode == VSM_FLUSH_MODE_KERNEL_FLUSH && g_strcmp0 (plan->fs_type, "exfat") == 0)
    {
      mode = VSM_FLUSH_MODE_DIRTY_CAP;
      reason (plan, N_ ("exFAT has no flush option; using a dirty cap instead"));
    }
  return mode;
}

/* Step 3: what the kernel allows of it */
static VsmFlushMode
fit_kernel (VsmPlan *plan, VsmFlushMode mode, const VsmKernel *kernel,
            const CapMechanism *mechanism)
{
  gboolean exfat = g_strcmp0 (plan->fs_type, "exfat") == 0;
  const char *then;
  VsmReason *r;

  if (mode != VSM_FLUSH_MODE_DIRTY_CAP || mechanism != NULL)
    return mode;
  then = exfat ? N_ ("exFAT has no flush either: data at risk is bounded only by the global "
                     "dirty limit, eject before unplugging")
               : N_ ("keeping flush, as udisks does");
  r = reason (plan,
              N_ ("fallback: Linux %s has no per-device dirty cap (strict_limit and max_bytes "
                  "need 6.2); %s"),
              kernel->release ? kernel->release : "?", then);
  vsm_reason_set_arg (r, 1, vsm_reason_new_message (then));
  return exfat ? VSM_FLUSH_MODE_OFF : VSM_FLUSH_MODE_KERNEL_FLUSH;
}

/* The table's starting value, bounded by what the drive's USB link carries */
static void
starting_bandwidth (VsmPlan *plan, const VsmDevice *d, const PlanRow *row)
{
  guint64 link = d->usb ? vsm_learn_link_bandwidth (d->usb->speed_mbps) : 0;

  plan->bandwidth = row->bandwidth;
  if (link > 0 && link < row->bandwidth)
    {
      plan->bandwidth = link;
      plan->bandwidth_why = vsm_reason_new (N_ ("starting value for %s, bounded by its %u Mb/s "
                                                "USB link"),
                                            vsm_class_to_string (plan->klass), d->usb->speed_mbps);
    }
  else
    plan->bandwidth_why =
      vsm_reason_new (N_ ("starting value for %s"), vsm_class_to_string (plan->klass));
}

/* The drive's bandwidth (measured > policy > table): what the cap is sized
 * from, and what seconds to safe are counted in with or without a cap */
static void
plan_bandwidth (VsmPlan *plan, const VsmDevice *d, const PlanRow *row, const VsmPolicy *policy,
                const VsmOverrides *o)
{
  if (o && o->bandwidth > 0)
    {
      plan->bandwidth = CLAMP (o->bandwidth, VSM_POLICY_MIN_BANDWIDTH, VSM_POLICY_MAX_BANDWIDTH);
      plan->bandwidth_why =
        given_reason (o->bandwidth_source ? o->bandwidth_source : N_ ("measured"));
    }
  else if (policy->class_bandwidth[plan->klass] > 0)
    {
      plan->bandwidth = policy->class_bandwidth[plan->klass];
      plan->bandwidth_why = vsm_reason_new_message (N_ ("class-bandwidth policy"));
    }
  else
    {
      starting_bandwidth (plan, d, row);
      plan->first_cap = TRUE;
    }
  plan->bandwidth_source = g_strdup (plan->bandwidth_why->text);
}

/* Step 4: the cap from the bandwidth, and its knobs */
static void
plan_cap (VsmPlan *plan, const VsmPolicy *policy, const CapMechanism *m, const PlanRow *row,
          const VsmOverrides *o)
{
  plan->cap_seconds = cap_seconds (plan, policy, row, m, o);
  plan->cap_bytes = clamp_cap (plan, policy, row, m);
  plan->cap_via = m->name;
  for (guint i = 0; i < G_N_ELEMENTS (m->knobs); i++)
    add_knob (plan, m->knobs[i], m->value (i, plan->cap_bytes));
  vsm_reason_set_arg (
    reason (plan, N_ ("%s: at most %g s of writing at risk"), m->why, plan->cap_seconds), 0,
    vsm_reason_new_message (m->why));
}

/* Step 5: under the cap, whether the daemon paces one big file
 * (vsm-pace.h): it saves the metadata jumps of every writeback round, which
 * cost a flash stick milliseconds each; not on an SSD (a metadata write
 * costs next to nothing, the back-to-back syncfs costs the copy time: bench
 * x-pace-ssd) nor on a hard disk (more seeks and drive time than the
 * kernel's own writeback under the cap: bench h-uas-hdd, x-pace-hdd) */
static void
plan_pacing (VsmPlan *plan, const PlanRow *row)
{
  plan->pace_writeback = row->pace;
  if (row->pace)
    reason (plan, N_ ("pacing: while one big file fills the cap, the daemon writes the mount "
                      "back in one go, so FAT's metadata goes once per cap and not once per "
                      "writeback round"));
  else
    {
      /* every managed row that is not paced says why (/plan/pacing covers each) */
      g_assert (row->no_pace_why != NULL);
      vsm_reason_set_arg (reason (plan, N_ ("pacing: off for %s: %s"),
                                  vsm_class_to_string (plan->klass), row->no_pace_why),
                          1, vsm_reason_new_message (row->no_pace_why));
    }
}

static void
explain_flush (VsmPlan *plan, const VsmKernel *kernel)
{
  switch (kernel->flush_fix)
    {
    case VSM_FLUSH_FIX_PRESENT:
      if (kernel->flush_fix_variant == VSM_FLUSH_FIX_VARIANT_WAIT)
        reason (plan, N_ ("flush: the FAT flush fix (waiting form) is present, close() does not "
                          "race the flusher and returns once the file is written; each close of "
                          "a written file still sleeps 100 ms"));
      else
        reason (plan, N_ ("flush: the FAT flush fix is present, close() does not race the "
                          "flusher, but while the flusher owns a file close() returns with its "
                          "data still dirty (eject before unplugging); each close of a written "
                          "file still sleeps 100 ms"));
      break;
    case VSM_FLUSH_FIX_ABSENT:
      reason (plan, N_ ("flush: without the FAT flush fix close() races the flusher (smaller "
                        "requests on slow sticks) and each close of a written file sleeps 100 ms"));
      break;
    case VSM_FLUSH_FIX_UNKNOWN:
    default:
      reason (plan,
              N_ ("flush: whether close() races the flusher is unknown (%s); each close of a "
                  "written file sleeps 100 ms"),
              kernel->flush_fix_reason ? kernel->flush_fix_reason : "?");
      break;
    }
}

VsmPlan *
vsm_plan_compute (const VsmDevice *d, const VsmClassification *c, const VsmPolicy *policy,
                  const VsmKernel *kernel, const VsmOverrides *o)
{
  VsmPlan *plan;
  const PlanRow *row;
  const CapMechanism *mechanism;

  g_return_val_if_fail (d != NULL && c != NULL && policy != NULL && kernel != NULL, NULL);
  plan = plan_new (d, c);
  row = find_row (c->klass);
  mechanism = find_cap_mechanism (kernel, policy);

  if (decide_managed (plan, d, row, policy))
    {
      plan->flush_mode = fit_kernel (plan, choose_mode (plan, policy, o), kernel, mechanism);
      plan_bandwidth (plan, d, row, policy, o);
      if (plan->flush_mode == VSM_FLUSH_MODE_DIRTY_CAP)
        {
          plan_cap (plan, policy, mechanism, row, o);
          plan_pacing (plan, row);
        }
      else if (plan->flush_mode == VSM_FLUSH_MODE_KERNEL_FLUSH)
        explain_flush (plan, kernel);
      else if (plan->flush_mode == VSM_FLUSH_MODE_SYNC)
        reason (plan, N_ ("sync: every write waits for the drive; safest, slowest, wears flash"));
      else
        reason (plan, N_ ("off: no flush and no cap; up to the global dirty limit may be at risk"));
    }
  build_mount_options (plan);
  return plan;
}
