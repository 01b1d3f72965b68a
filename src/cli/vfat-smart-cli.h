/* vfat-smart-cli.h - shared bits of the vfat-smart subcommands
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-json.h"
#include "vsm.h"
#include "vsm-dbus-contract.h"

#include <glib/gi18n.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef struct
{
  const char *name;
  const char *args; /* for usage lines, e.g. "DEVICE" */
  const char *summary;
  int (*run) (int argc, char **argv);
} CliCommand;

int cli_classify (int argc, char **argv);
int cli_plan (int argc, char **argv);
int cli_apply (int argc, char **argv);
int cli_restore (int argc, char **argv);
int cli_forget (int argc, char **argv);
int cli_probe (int argc, char **argv);
int cli_status (int argc, char **argv);
int cli_watch (int argc, char **argv);
int cli_agent (int argc, char **argv);

/* Parses options; on error prints it with the usage hint and returns FALSE
 * (the caller exits 2). */
gboolean cli_parse (const char *command, const char *args, const char *summary,
                    GOptionEntry *entries, int *argc, char ***argv);

/* 0 when the caller may change the system's records and knobs (root, or a
 * test tree); else prints that COMMAND needs root and returns 5. */
int cli_needs_root (const char *command);
/* Prints "vfat-smart: MESSAGE" to stderr and returns the exit status. */
int cli_fail (const GError *error);
/* the one table of exit statuses (vfat-smart-exit.c) */
int cli_exit_status (const GError *error);
void cli_print_exit_statuses (FILE *to);
/* each line, made safe for a terminal */
void cli_print_lines (GPtrArray *lines);
/* Prints "vfat-smart COMMAND: MESSAGE" and the --help hint, returns 2. Every
 * message that quotes what the user typed goes through here, cli_fail or
 * vsm_sanitize_for_display: no control character reaches the terminal. */
int cli_usage_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);

void cli_print_json (JsonNode *node);
/* the labels (N_ () strings) cli_field will print on this screen: every
 * value then starts in one column, however wide their translations are */
void cli_field_labels (const char *const *labels);
/* "Label:" padded to a column, then the value */
void cli_field (const char *label, const char *format, ...) G_GNUC_PRINTF (2, 3);
void cli_list (const char *label, GPtrArray *lines);
/* reasons (VsmReason*), each translated here (vsm-reason.h), as cli_list */
void cli_reasons (const char *label, GPtrArray *reasons);

/* The shared head of classify, plan and apply: [--json] [--class CLASS]
 * DEVICE, then the assessment. Returns TRUE and sets *out, or FALSE with
 * *exit_status after printing why. */
gboolean cli_assess_command (const char *command, const char *summary, int argc, char **argv,
                             gboolean *json, VsmAssessment **out, int *exit_status);

/* vfat-smartd (vfat-smart-daemon.c). activate: start it when it does not
 * run (else VSM_ERROR_NOT_FOUND) */
VsmDbusManager *cli_daemon_manager (gboolean activate, GError **error);
/* the system bus, or VSM_ERROR_FAILED saying that it is missing */
GDBusConnection *cli_system_bus (GError **error);
char *cli_daemon_device_path (const char *bdi);
VsmDbusDevice *cli_daemon_device (const char *path, GError **error);
/* Not root, and the daemon manages bdi: METHOD ("Apply", "Restore") goes
 * through it (polkit decides) and *handled is TRUE. Otherwise *handled is
 * FALSE and the caller does it itself. */
gboolean cli_daemon_try (const char *bdi, const char *method, gboolean *handled, GError **error);
/* an error from the bus as a core error (for the exit status) */
GError *cli_daemon_error (const GError *error);

G_END_DECLS
