/* vsm-knobs.c - the writeback knobs vfat-smart may touch
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-knobs.h"
#include "vsm-paths.h"
#include "vsm-plan.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <string.h>

/* Every knob vfat-smart writes, or restores through. max_bytes is restored
 * through the ratio it replaced (writing the old byte value back can be
 * EINVAL once the threshold moved); vm.dirty_bytes=0 means the ratio was in
 * charge. */
static const VsmKnobSpec knob_specs[] = {
  { "max_bytes", FALSE, TRUE, { "max_ratio_fine", "max_ratio", NULL }, NULL },
  { "min_bytes", FALSE, TRUE, { "min_ratio_fine", "min_ratio", NULL }, NULL },
  { "strict_limit", FALSE, FALSE, { NULL }, NULL },
  { "max_ratio", FALSE, FALSE, { NULL }, NULL },
  { "max_ratio_fine", FALSE, FALSE, { NULL }, NULL },
  { "min_ratio", FALSE, FALSE, { NULL }, NULL },
  { "min_ratio_fine", FALSE, FALSE, { NULL }, NULL },
  { "vm.dirty_bytes", TRUE, FALSE, { NULL }, "vm.dirty_ratio" },
  { "vm.dirty_background_bytes", TRUE, FALSE, { NULL }, "vm.dirty_background_ratio" },
  { "vm.dirty_ratio", TRUE, FALSE, { NULL }, NULL },
  { "vm.dirty_background_ratio", TRUE, FALSE, { NULL }, NULL },
  { "vm.dirty_writeback_centisecs", TRUE, FALSE, { NULL }, NULL },
  { "vm.dirty_expire_centisecs", TRUE, FALSE, { NULL }, NULL },
};

const VsmKnobSpec *
vsm_knob_spec_lookup (const char *name)
{
  for (gsize i = 0; name != NULL && i < G_N_ELEMENTS (knob_specs); i++)
    if (g_str_equal (knob_specs[i].name, name))
      return &knob_specs[i];
  return NULL;
}

gboolean
vsm_knob_is_global (const char *name)
{
  const VsmKnobSpec *spec = vsm_knob_spec_lookup (name);
  return spec != NULL && spec->global;
}

gboolean
vsm_bdi_is_valid (const char *bdi)
{
  guint maj, min;
  char tail;
  return bdi != NULL && strlen (bdi) < 24 && g_ascii_isdigit (bdi[0]) &&
         sscanf (bdi, "%u:%u%c", &maj, &min, &tail) == 2;
}

char *
vsm_knob_path (const char *bdi, const char *name)
{
  const VsmKnobSpec *spec = vsm_knob_spec_lookup (name);

  if (spec == NULL)
    return NULL;
  if (spec->global)
    return vsm_path (VSM_ROOT_PROCFS, "sys/vm", name + strlen ("vm."), NULL);
  if (!vsm_bdi_is_valid (bdi))
    return NULL;
  return vsm_path (VSM_ROOT_SYSFS, "class/bdi", bdi, name, NULL);
}

gboolean
vsm_knob_value_matches (const char *name, const char *applied, const char *readback)
{
  const VsmKnobSpec *spec = vsm_knob_spec_lookup (name);
  guint64 a, r, diff;

  if (applied == NULL || readback == NULL)
    return FALSE;
  if (spec == NULL || !spec->relative)
    return g_str_equal (applied, readback);
  if (!vsm_parse_u64 (applied, &a) || !vsm_parse_u64 (readback, &r))
    return FALSE;
  /* 5 % + 256 KiB covers rounding and ordinary drift */
  diff = a > r ? a - r : r - a;
  return diff <= a / 20 + 256 * 1024;
}

/* the knob whose value restores spec (itself, one of via, or if_zero) */
static const char *
restore_target (const VsmKnobSpec *spec, const char *bdi, const char *current)
{
  if (spec->if_zero != NULL && g_strcmp0 (current, "0") == 0)
    return spec->if_zero;
  for (guint i = 0; i < G_N_ELEMENTS (spec->via) && spec->via[i] != NULL; i++)
    {
      g_autofree char *path = vsm_knob_path (bdi, spec->via[i]);
      if (path != NULL && g_file_test (path, G_FILE_TEST_EXISTS))
        return spec->via[i];
    }
  return spec->name;
}

gboolean
vsm_knob_read_for_restore (const char *bdi, const char *name, char **value, char **restore_path,
                           char **restore_value, GError **error)
{
  const VsmKnobSpec *spec = vsm_knob_spec_lookup (name);
  g_autofree char *path = vsm_knob_path (bdi, name);
  g_autofree char *current = NULL;
  const char *target;

  if (spec == NULL || path == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("unknown knob '%s'"), name);
      return FALSE;
    }
  current = vsm_read_attr (path, error);
  if (current == NULL)
    return FALSE;
  target = restore_target (spec, bdi, current);
  *restore_path = vsm_knob_path (bdi, target);
  *restore_value =
    g_str_equal (target, name) ? g_strdup (current) : vsm_read_attr (*restore_path, error);
  if (*restore_value == NULL)
    {
      g_clear_pointer (restore_path, g_free);
      return FALSE;
    }
  if (value)
    *value = g_steal_pointer (&current);
  return TRUE;
}

gboolean
vsm_knob_record_read (VsmKnobRecord *r, const char *bdi, GError **error)
{
  g_return_val_if_fail (r != NULL && r->name != NULL, FALSE);
  if (!vsm_knob_read_for_restore (bdi, r->name, &r->original, &r->restore_path, &r->restore_value,
                                  error))
    return FALSE;
  r->path = vsm_knob_path (bdi, r->name);
  return TRUE;
}

static gboolean
is_number (const char *text)
{
  guint64 v;
  return vsm_parse_u64 (text, &v);
}

static gboolean
restore_path_allowed (const VsmKnobSpec *spec, const char *bdi, const char *path)
{
  const char *candidates[] = { spec->name, spec->via[0], spec->via[1], spec->via[2],
                               spec->if_zero };

  for (gsize i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *allowed = candidates[i] ? vsm_knob_path (bdi, candidates[i]) : NULL;
      if (allowed != NULL && g_strcmp0 (allowed, path) == 0)
        return TRUE;
    }
  return FALSE;
}

gboolean
vsm_knob_record_is_sane (const VsmKnobRecord *r, const char *bdi, GError **error)
{
  const VsmKnobSpec *spec = vsm_knob_spec_lookup (r->name);
  g_autofree char *path = spec ? vsm_knob_path (bdi, r->name) : NULL;
  const char *why = NULL;

  if (path == NULL || !vsm_plan_knob_is_written (r->name))
    why = "not a knob vfat-smart writes";
  else if (g_strcmp0 (path, r->path) != 0)
    why = _ ("path is not the knob's own");
  else if (!restore_path_allowed (spec, bdi, r->restore_path))
    why = _ ("restore path is not one of the knob's");
  else if (!is_number (r->restore_value) ||
           (r->original && *r->original && !is_number (r->original)) ||
           (r->applied && *r->applied && !is_number (r->applied)))
    why = _ ("values are not numbers");
  if (why == NULL)
    return TRUE;
  g_set_error (error, VSM_ERROR, VSM_ERROR_STATE, _ ("state: knob '%.64s': %s"), r->name, why);
  return FALSE;
}

VsmDrift
vsm_knob_check (const VsmKnobRecord *r, char **now)
{
  g_autofree char *value = vsm_read_attr (r->path, NULL);

  if (now)
    *now = g_strdup (value);
  if (value == NULL)
    return VSM_DRIFT_GONE;
  return vsm_knob_value_matches (r->name, r->applied, value) ? VSM_DRIFT_NONE : VSM_DRIFT_CHANGED;
}

gboolean
vsm_knob_records_restore (GPtrArray *records, GPtrArray *report, GString *failures)
{
  gboolean ok = TRUE;

  for (guint i = records->len; i > 0; i--)
    {
      VsmKnobRecord *r = g_ptr_array_index (records, i - 1);
      g_autoptr (GError) err = NULL;

      if (!g_file_test (r->restore_path, G_FILE_TEST_EXISTS))
        {
          if (report)
            g_ptr_array_add (report,
                             g_strdup_printf (_ ("%s: device gone, nothing to restore"), r->name));
          continue;
        }
      if (!vsm_write_attr (r->restore_path, r->restore_value, &err))
        {
          g_string_append_printf (failures, "%s%s", failures->len ? "; " : "", err->message);
          ok = FALSE;
          continue;
        }
      if (report)
        g_ptr_array_add (report, g_strdup_printf (_ ("%s: restored (%s = %s)"), r->name,
                                                  r->restore_path, r->restore_value));
    }
  return ok;
}

gboolean
vsm_knob_read_u64 (const char *bdi, const char *name, guint64 *out)
{
  g_autofree char *path = vsm_knob_path (bdi, name);
  return path != NULL && vsm_read_u64 (path, out, NULL);
}

gboolean
vsm_knob_exists (const char *bdi, const char *name)
{
  g_autofree char *path = vsm_knob_path (bdi, name);
  return path != NULL && g_file_test (path, G_FILE_TEST_EXISTS);
}
