/* vsm-json.h - the JSON contract of `vfat-smart ... --json`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

JsonNode *vsm_json_classify (const VsmAssessment *a);
JsonNode *vsm_json_plan (const VsmAssessment *a);
JsonNode *vsm_json_state (const VsmState *s);
JsonNode *vsm_json_status (const VsmStatus *status, const VsmKernel *kernel);
/* source: "cache", "probe" or "table" */
JsonNode *vsm_json_probe (const VsmProbeResult *r, const char *source);
char *vsm_json_to_string (JsonNode *node);
/* a member for a front end's own objects: a string (made valid UTF-8; NULL
 * gives null) or an integer */
void vsm_json_member_string (JsonBuilder *b, const char *name, const char *value);
void vsm_json_member_int (JsonBuilder *b, const char *name, gint64 value);
/* a setting as g_variant_print () gave it, as its JSON value (a number, a
 * boolean, a string, an array or an object); text that does not parse as
 * one stays a string, NULL gives null */
void vsm_json_member_setting (JsonBuilder *b, const char *name, const char *printed);

G_END_DECLS
