/* vsm-classify.h - device facts -> class, confidence, reasons (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-device.h"
#include "vsm-reason.h"

G_BEGIN_DECLS

typedef enum
{
  VSM_CLASS_UNKNOWN,
  VSM_CLASS_USB_STICK,     /* flash stick on usb-storage (Bulk-Only) */
  VSM_CLASS_USB_STICK_UAS, /* flash stick that speaks UAS */
  VSM_CLASS_USB_SSD,
  VSM_CLASS_USB_HDD,
  VSM_CLASS_CARD_READER,
  VSM_CLASS_INTERNAL,
  VSM_CLASS_LAST, /*< skip >*/
} VsmClass;

const char *vsm_class_to_string (VsmClass klass);
gboolean vsm_class_from_string (const char *text, VsmClass *out);

typedef struct
{
  VsmClass klass;
  guint confidence;   /* percent */
  GPtrArray *reasons; /* VsmReason*, sentences a person can read */
} VsmClassification;

void vsm_classification_free (VsmClassification *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmClassification, vsm_classification_free)

VsmClassification *vsm_classify (const VsmDevice *device);

G_END_DECLS
