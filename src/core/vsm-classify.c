/* vsm-classify.c - device facts -> class, confidence, reasons (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm.h"

#include "vsm-device.h"
#include "vsm-reason.h"
#include "vsm-util.h"

#include <glib/gi18n.h>
#include <string.h>

const char *
vsm_class_to_string (VsmClass klass)
{
  return vsm_enum_to_nick (VSM_TYPE_CLASS, klass, "unknown");
}

gboolean
vsm_class_from_string (const char *text, VsmClass *out)
{
  return vsm_enum_from_nick (VSM_TYPE_CLASS, text, (int *)out);
}

void
vsm_classification_free (VsmClassification *c)
{
  if (c == NULL)
    return;
  g_ptr_array_unref (c->reasons);
  g_free (c);
}

/* format: an N_ () message; recorded untranslated with its arguments
 * (vsm-reason.h), returned to set an argument that is a message itself */
G_GNUC_PRINTF (2, 3)
static VsmReason *
reason (VsmClassification *c, const char *format, ...)
{
  va_list args;
  VsmReason *r;

  va_start (args, format);
  r = vsm_reason_newv (format, args);
  va_end (args);
  g_ptr_array_add (c->reasons, r);
  return r;
}

/* USB vendor ids that say something about the medium. A hint, never the
 * whole decision. */
typedef struct
{
  const char *vendor_id;
  const char *product_id; /* NULL: any */
  VsmClass hint;
  const char *who;
} VendorHint;

static const VendorHint vendor_hints[] = {
  { "0bda", "0129", VSM_CLASS_CARD_READER, "Realtek card reader" },
  { "0bda", "0153", VSM_CLASS_CARD_READER, "Realtek card reader" },
  { "0bda", "0158", VSM_CLASS_CARD_READER, "Realtek card reader" },
  { "0bda", "0177", VSM_CLASS_CARD_READER, "Realtek card reader" },
  { "05e3", "0723", VSM_CLASS_CARD_READER, "Genesys Logic card reader" },
  { "05e3", "0743", VSM_CLASS_CARD_READER, "Genesys Logic card reader" },
  { "05e3", "0751", VSM_CLASS_CARD_READER, "Genesys Logic card reader" },
  { "14cd", NULL, VSM_CLASS_CARD_READER, "Super Top card reader" },
  { "0781", NULL, VSM_CLASS_USB_STICK, "SanDisk" },
  { "090c", NULL, VSM_CLASS_USB_STICK, "Silicon Motion flash" },
  { "0951", NULL, VSM_CLASS_USB_STICK, "Kingston" },
  { "13fe", NULL, VSM_CLASS_USB_STICK, "Phison flash" },
  { "1f75", NULL, VSM_CLASS_USB_STICK, "Innostor flash" },
  { "8564", NULL, VSM_CLASS_USB_STICK, "Transcend flash" },
  { "1058", NULL, VSM_CLASS_USB_HDD, "Western Digital external drive" },
  { "0bc2", NULL, VSM_CLASS_USB_HDD, "Seagate external drive" },
  { "0480", NULL, VSM_CLASS_USB_HDD, "Toshiba external drive" },
  { "04e8", "61f5", VSM_CLASS_USB_SSD, "Samsung Portable SSD" },
  { "04e8", "4001", VSM_CLASS_USB_SSD, "Samsung Portable SSD" },
};

static const VendorHint *
find_vendor_hint (const VsmUsbInfo *usb)
{
  if (usb == NULL || usb->vendor_id == NULL)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (vendor_hints); i++)
    {
      const VendorHint *h = &vendor_hints[i];
      if (g_ascii_strcasecmp (h->vendor_id, usb->vendor_id) != 0)
        continue;
      if (h->product_id != NULL &&
          g_ascii_strcasecmp (h->product_id, usb->product_id ? usb->product_id : "") != 0)
        continue;
      return h;
    }
  return NULL;
}

G_GNUC_PRINTF (4, 5)
static void
decide (VsmClassification *c, VsmClass klass, guint confidence, const char *format, ...)
{
  va_list args;

  c->klass = klass;
  c->confidence = confidence;
  va_start (args, format);
  g_ptr_array_add (c->reasons, vsm_reason_newv (format, args));
  va_end (args);
}

static gboolean
text_has_any (const char *text, const char *const *needles)
{
  g_autofree char *lower = NULL;

  if (text == NULL)
    return FALSE;
  lower = g_ascii_strdown (text, -1);
  for (; *needles != NULL; needles++)
    if (strstr (lower, *needles) != NULL)
      return TRUE;
  return FALSE;
}

/* the device's own string that holds one of needles, or NULL */
static const char *
device_string_with (const VsmDevice *d, const char *const *needles)
{
  const char *texts[] = { d->model, d->vendor, d->usb ? d->usb->product : NULL,
                          d->usb ? d->usb->manufacturer : NULL };

  for (gsize i = 0; i < G_N_ELEMENTS (texts); i++)
    if (text_has_any (texts[i], needles))
      return texts[i];
  return NULL;
}

/* what told us: the device's own words, else the known vendor's name */
static const char *
who_says (const VsmDevice *d, const char *const *needles, const VendorHint *hint, VsmClass klass)
{
  const char *own = device_string_with (d, needles);

  if (own != NULL)
    return own;
  return hint && hint->hint == klass ? hint->who : NULL;
}

static const char *const reader_words[] = {
  "card reader", "cardreader", "card-reader", "sd/mmc",  "sd card",    "sdxc",      "microsd",
  "multi-card",  "multicard",  "ms/ms-pro",   "cf card", "xd-picture", "sd reader", NULL
};
static const char *const ssd_words[] = { "ssd", "solid state", "nvme", NULL };

#define GB (G_GUINT64_CONSTANT (1000) * 1000 * 1000)

/* Card readers and SSDs by what the device says of itself, first: several
 * LUNs, reader words, SSD words, or a known vendor. */
static gboolean
classify_by_name (const VsmDevice *d, const VendorHint *hint, VsmClassification *c)
{
  gboolean uas = d->transport == VSM_TRANSPORT_UAS;
  const char *who;

  if (d->n_luns > 1 || d->lun > 0)
    {
      decide (c, VSM_CLASS_CARD_READER, 85,
              N_ ("%u disks share one USB interface (LUN %d): a multi-slot card reader"),
              MAX (d->n_luns, (guint)d->lun + 1), MAX (d->lun, 0));
      return TRUE;
    }
  if ((who = who_says (d, reader_words, hint, VSM_CLASS_CARD_READER)) != NULL)
    {
      decide (c, VSM_CLASS_CARD_READER, 80, N_ ("the device names itself a card reader (%s)"), who);
      return TRUE;
    }
  if ((who = who_says (d, ssd_words, hint, VSM_CLASS_USB_SSD)) != NULL)
    {
      decide (c, VSM_CLASS_USB_SSD, uas && !d->rotational ? 90 : 70,
              N_ ("the device names itself an SSD (%s)"), who);
      return TRUE;
    }
  return FALSE;
}

/* UAS reports the medium truthfully. */
static void
classify_uas (const VsmDevice *d, VsmClassification *c)
{
  if (d->rotational)
    decide (c, VSM_CLASS_USB_HDD, 85, N_ ("UAS reports a rotating medium"));
  else if (d->removable)
    decide (c, VSM_CLASS_USB_STICK_UAS, 75,
            N_ ("UAS reports non-rotational media and the removable flag: a fast flash stick"));
  else
    decide (c, VSM_CLASS_USB_SSD, 85,
            N_ ("UAS reports a non-rotational, non-removable medium: an SSD"));
}

/* usb-storage (Bulk-Only): queue/rotational is 1 for nearly everything,
 * flash sticks included, so it says nothing on its own. */
static void
classify_bot (const VsmDevice *d, const VendorHint *hint, VsmClassification *c)
{
  g_autofree char *size = vsm_format_size (d->size_bytes, G_FORMAT_SIZE_DEFAULT);
  gboolean stick_vendor = hint && hint->hint == VSM_CLASS_USB_STICK;

  reason (c, N_ ("usb-storage reports rotational=%d for flash too; not used on its own"),
          d->rotational ? 1 : 0);
  if (d->removable)
    {
      decide (c, VSM_CLASS_USB_STICK, stick_vendor ? 90 : 80,
              N_ ("removable medium flag set, as flash sticks report it"));
      if (stick_vendor)
        reason (c, N_ ("vendor %s makes flash sticks"), hint->who);
    }
  else if (hint && hint->hint == VSM_CLASS_USB_HDD)
    decide (c, VSM_CLASS_USB_HDD, 65, N_ ("not removable and made by %s"), hint->who);
  else if (stick_vendor)
    decide (c, VSM_CLASS_USB_STICK, 60, N_ ("not removable, but vendor %s makes flash sticks"),
            hint->who);
  else if (d->size_bytes >= 320 * GB && d->rotational)
    decide (c, VSM_CLASS_USB_HDD, 50,
            N_ ("a non-removable Bulk-Only enclosure of %s: most likely a hard disk"), size);
  else if (d->size_bytes > 0 && d->size_bytes <= 256 * GB)
    decide (c, VSM_CLASS_USB_STICK, 45,
            N_ ("not removable, but only %s on Bulk-Only: most likely a flash stick"), size);
  else
    decide (c, VSM_CLASS_UNKNOWN, 30,
            N_ ("a non-removable Bulk-Only device of %s: the medium cannot be told"), size);
}

static void
classify_usb (const VsmDevice *d, VsmClassification *c)
{
  const VendorHint *hint = find_vendor_hint (d->usb);
  gboolean driver = d->usb && d->usb->driver;
  VsmReason *r;

  r = reason (c, N_ ("USB mass storage on the %s driver at %u Mb/s"),
              driver ? d->usb->driver : N_ ("(no)"), d->usb ? d->usb->speed_mbps : 0);
  if (!driver)
    vsm_reason_set_arg (r, 0, vsm_reason_new_message (N_ ("(no)")));
  if (classify_by_name (d, hint, c))
    return;
  if (d->transport == VSM_TRANSPORT_UAS)
    classify_uas (d, c);
  else
    classify_bot (d, hint, c);
}

VsmClassification *
vsm_classify (const VsmDevice *d)
{
  VsmClassification *c;

  g_return_val_if_fail (d != NULL, NULL);
  c = g_new0 (VsmClassification, 1);
  c->reasons = vsm_reasons_new ();

  switch (d->transport)
    {
    case VSM_TRANSPORT_NVME:
    case VSM_TRANSPORT_ATA:
    case VSM_TRANSPORT_VIRTIO:
    case VSM_TRANSPORT_LOOP:
      c->klass = VSM_CLASS_INTERNAL;
      c->confidence = 95;
      reason (c, N_ ("%s transport: not a removable drive"),
              vsm_transport_to_string (d->transport));
      break;

    case VSM_TRANSPORT_MMC:
      c->klass = VSM_CLASS_CARD_READER;
      c->confidence = 90;
      reason (c, N_ ("an SD/MMC card in a built-in reader"));
      break;

    case VSM_TRANSPORT_USB_STORAGE:
    case VSM_TRANSPORT_UAS:
    case VSM_TRANSPORT_USB_OTHER:
      classify_usb (d, c);
      break;

    case VSM_TRANSPORT_OTHER:
    default:
      if (d->removable)
        {
          c->klass = VSM_CLASS_UNKNOWN;
          c->confidence = 30;
          reason (c, N_ ("a removable device on an unrecognised transport"));
        }
      else
        {
          c->klass = VSM_CLASS_INTERNAL;
          c->confidence = 70;
          reason (c, N_ ("not USB, not removable: treated as internal"));
        }
      break;
    }

  if (d->superfloppy)
    reason (c, N_ ("the filesystem covers the whole disk (no partition table); same class as a "
                   "partitioned twin"));
  if (d->n_partitions > 1)
    reason (c, N_ ("%u partitions; knobs act on the whole disk"), d->n_partitions);

  return c;
}
