/* vsm-classify.h - device facts -> class, confidence, reasons (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-device.h"
#include "vsm-reason.h"

G_BEGIN_DECLS

G_END_DECLS
