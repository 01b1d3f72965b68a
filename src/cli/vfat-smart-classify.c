/* vfat-smart-classify.c - `vfat-smart classify`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"

/* every label of cli_field below */
static const char *const labels[] = {
  N_ ("Device"), N_ ("Transport"),  N_ ("Model"), N_ ("Medium"),
  N_ ("Queue"),  N_ ("Filesystem"), N_ ("Class"), NULL,
};

static void
print_device (const VsmDevice *d)
{
  g_autofree char *size = vsm_format_size (d->size_bytes, G_FORMAT_SIZE_IEC_UNITS);
  g_autofree char *lun =
    d->lun >= 0 ? g_strdup_printf (" (LUN %d of %u)", d->lun, d->n_luns) : g_strdup ("");
  g_autofree char *uuid = d->fs_uuid ? g_strdup_printf (" UUID=%s", d->fs_uuid) : g_strdup ("");
  g_autofree char *parts =
    d->n_partitions ? g_strdup_printf (_ (" (%u partitions)"), d->n_partitions) : g_strdup ("");

  if (d->is_partition)
    cli_field (_ ("Device"), _ ("%s, partition of %s (bdi %s)"), d->devnode, d->disk_node, d->bdi);
  else
    cli_field (_ ("Device"), _ ("%s, whole disk (bdi %s)%s"), d->devnode, d->bdi,
               d->superfloppy ? _ (", no partition table") : "");
  if (d->usb)
    cli_field (_ ("Transport"), "%s, USB%s at %u Mb/s, %s:%s %s %s%s%s",
               vsm_transport_to_string (d->transport), d->usb->version ? d->usb->version : "",
               d->usb->speed_mbps, d->usb->vendor_id ? d->usb->vendor_id : "?",
               d->usb->product_id ? d->usb->product_id : "?",
               d->usb->manufacturer ? d->usb->manufacturer : "",
               d->usb->product ? d->usb->product : "", d->usb->serial ? _ (", serial ") : "",
               d->usb->serial ? d->usb->serial : "");
  else
    cli_field (_ ("Transport"), "%s", vsm_transport_to_string (d->transport));
  if (d->vendor || d->model)
    cli_field (_ ("Model"), "%s%s%s%s", d->vendor ? d->vendor : "",
               d->vendor && d->model ? " " : "", d->model ? d->model : "", lun);
  cli_field (_ ("Medium"), _ ("%s, rotational=%d, %s"),
             d->removable ? _ ("removable") : _ ("not removable"), d->rotational, size);
  cli_field (_ ("Queue"), _ ("max_sectors_kb %llu (hw %llu), write cache: %s"),
             (unsigned long long)d->max_sectors_kb, (unsigned long long)d->max_hw_sectors_kb,
             d->write_cache ? d->write_cache : "?");
  if (d->fs_type)
    cli_field (_ ("Filesystem"), "%s%s%s%s%s", d->fs_type, d->fs_label ? " \"" : "",
               d->fs_label ? d->fs_label : "", d->fs_label ? "\"" : "", uuid);
  else
    cli_field (_ ("Filesystem"), _ ("none found%s"), parts);
}

int
cli_classify (int argc, char **argv)
{
  gboolean json = FALSE;
  g_autoptr (VsmAssessment) a = NULL;
  int rc;

  if (!cli_assess_command ("classify", _ ("Show what kind of drive DEVICE is, and why."), argc,
                           argv, &json, &a, &rc))
    return rc;

  if (json)
    {
      cli_print_json (vsm_json_classify (a));
      return 0;
    }
  cli_field_labels (labels);
  print_device (a->device);
  cli_field (_ ("Class"), _ ("%s (confidence %u%%)"),
             vsm_class_to_string (a->classification->klass), a->classification->confidence);
  cli_reasons (_ ("Why"), a->classification->reasons);
  return 0;
}
