/* fuzz-udev.c - what the udev helper prints for IMPORT{program}
 *
 * First input byte even: KEY NUL VALUE through vsm_udev_env_line ().
 * Odd: a udev event's environment (ID_FS_TYPE, ID_FS_LABEL, ID_FS_UUID) and
 * the drive's own strings (vendor, model, USB serial, manufacturer,
 * product), NUL-separated, on a USB stick, through classification, the plan
 * of a 6.12 kernel with the default policy, and vsm_udev_properties (), as
 * vfat-smart-udev does.
 *
 * Promises checked: every line is KEY=VALUE with KEY in [A-Z0-9_] and VALUE
 * in the option alphabet [A-Za-z0-9=,$_.-], no newline, so nothing from a
 * device forges a line or an option; vsm_udev_env_line () gives exactly
 * "KEY=VALUE" or NULL.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-plan.h"
#include "vsm-policy.h"
#include "vsm-udev.h"

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

static gboolean
key_ok (const char *k, gsize len)
{
  if (len == 0 || !g_ascii_isupper (k[0]))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isupper (k[i]) && !g_ascii_isdigit (k[i]) && k[i] != '_')
      return FALSE;
  return TRUE;
}

static gboolean
value_ok (const char *v)
{
  for (const char *p = v; *p; p++)
    if (!g_ascii_isalnum (*p) && strchr ("=,$_.-", *p) == NULL)
      return FALSE;
  return TRUE;
}

static void
assert_line (const char *line)
{
  const char *eq = strchr (line, '=');

  if (eq == NULL || !key_ok (line, eq - line) || !value_ok (eq + 1))
    {
      fprintf (stderr, "unsafe udev property line: '%s'\n", line);
      abort ();
    }
}

static VsmKernel *
kernel_612 (void)
{
  static const char *const names[] = { "read_ahead_kb",  "min_ratio",      "max_ratio",
                                       "min_ratio_fine", "max_ratio_fine", "min_bytes",
                                       "max_bytes",      "strict_limit",   NULL };
  VsmKernel *k = g_new0 (VsmKernel, 1);

  k->release = g_strdup ("6.12.57+deb12-amd64");
  k->bdi_knobs = g_ptr_array_new_with_free_func (g_free);
  for (const char *const *n = names; *n; n++)
    g_ptr_array_add (k->bdi_knobs, g_strdup (*n));
  k->has_strict_limit = k->has_max_bytes = TRUE;
  k->flush_fix = VSM_FLUSH_FIX_ABSENT;
  k->flush_fix_reason = g_strdup ("fuzz");
  return k;
}

static const char *
piece (char **parts, guint i)
{
  return i < g_strv_length (parts) ? parts[i] : NULL;
}

static void
check_event (char **parts, guint flags)
{
  VsmAssessment *a = g_new0 (VsmAssessment, 1);
  VsmDevice *d = g_new0 (VsmDevice, 1);
  const char *type = piece (parts, 0);

  d->devnode = g_strdup (flags & 2 ? "/dev/sdz" : "/dev/sdz1");
  d->disk_node = g_strdup ("/dev/sdz");
  d->disk_name = g_strdup ("sdz");
  d->bdi = g_strdup ("8:240");
  d->is_partition = !(flags & 2);
  d->superfloppy = (flags & 2) != 0;
  d->n_partitions = d->is_partition ? 1 : 0;
  d->transport = VSM_TRANSPORT_USB_STORAGE;
  d->usb = g_new0 (VsmUsbInfo, 1);
  d->usb->driver = g_strdup ("usb-storage");
  d->usb->vendor_id = g_strdup ("0781");
  d->usb->product_id = g_strdup ("5581");
  d->usb->speed_mbps = 5000;
  d->usb->serial = g_strdup (piece (parts, 5));
  d->usb->manufacturer = g_strdup (piece (parts, 6));
  d->usb->product = g_strdup (piece (parts, 7));
  d->removable = TRUE;
  d->rotational = TRUE;
  d->size_bytes = G_GUINT64_CONSTANT (32) << 30;
  d->vendor = g_strdup (piece (parts, 3));
  d->model = g_strdup (piece (parts, 4));
  d->lun = 0;
  d->n_luns = 1;
  /* as vfat-smart-udev's override_from_event () */
  d->fs_type = type && *type ? g_strdup (type) : NULL;
  d->fs_label = g_strdup (piece (parts, 1));
  d->fs_uuid = g_strdup (piece (parts, 2));

  a->device = d;
  a->policy = vsm_policy_new_default ();
  a->classification = vsm_classify (d);
  a->kernel = kernel_612 ();
  a->plan = vsm_plan_compute (d, a->classification, a->policy, a->kernel, NULL);

  for (guint applied = 0; applied < 2; applied++)
    for (guint is_fs = 0; is_fs < 2; is_fs++)
      {
        g_autoptr (GPtrArray) props = vsm_udev_properties (a, applied, is_fs, NULL, NULL);
        for (guint i = 0; i < props->len; i++)
          assert_line (g_ptr_array_index (props, i));
      }
  vsm_assessment_free (a);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_auto (GStrv) parts = NULL;

  if (size < 1 || size > 8192)
    return 0;
  if ((data[0] & 1) == 0)
    {
      g_autofree char *line = NULL;
      parts = fuzz_split (data + 1, size - 1, 2);
      line = vsm_udev_env_line (parts[0], parts[1]);
      if (line != NULL)
        {
          g_autofree char *expect = g_strconcat (parts[0], "=", parts[1], NULL);
          fuzz_assert (g_str_equal (line, expect));
          assert_line (line);
        }
      return 0;
    }
  parts = fuzz_split (data + 1, size - 1, 8);
  check_event (parts, data[0]);
  return 0;
}
