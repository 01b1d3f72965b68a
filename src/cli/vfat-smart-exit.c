/* vfat-smart-exit.c - the one table of vfat-smart's exit statuses
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"

#include <stdio.h>

typedef struct
{
  int status;
  VsmError code; /* the error that gives it; unused for 0 and 2 */
  const char *meaning;
} CliExit;

/* vfat-smart(1) lists the same (tests/unit/check-exit-codes) */
static const CliExit exits[] = {
  { 0, 0, N_ ("success") },
  { 1, VSM_ERROR_FAILED, N_ ("failure") },
  { 2, VSM_ERROR_INVALID_ARGUMENT, N_ ("usage error or bad value") },
  { 3, VSM_ERROR_NOT_FOUND, N_ ("no such device") },
  { 4, VSM_ERROR_NOT_SUPPORTED, N_ ("device, filesystem or kernel not supported") },
  { 5, VSM_ERROR_PERMISSION, N_ ("permission denied (needs root)") },
  { 6, VSM_ERROR_APPLY, N_ ("a knob could not be written (the message says what was put back)") },
  { 7, VSM_ERROR_STATE, N_ ("a record under /run/vfat-smart cannot be trusted") },
  { 8, VSM_ERROR_NOT_MANAGED, N_ ("nothing is recorded for the drive") },
  { 9, VSM_ERROR_LEFT_ALONE, N_ ("the plan leaves the drive alone (internal disk, policy)") },
  { 10, VSM_ERROR_BUSY, N_ ("another vfat-smart holds the lock; try again") },
};

int
cli_exit_status (const GError *error)
{
  if (error == NULL)
    return 0;
  if (error->domain != VSM_ERROR)
    return 1;
  for (gsize i = 1; i < G_N_ELEMENTS (exits); i++)
    if (exits[i].code == (VsmError)error->code)
      return exits[i].status;
  return 1;
}

void
cli_print_exit_statuses (FILE *to)
{
  fprintf (to, _ ("Exit status:\n"));
  for (gsize i = 0; i < G_N_ELEMENTS (exits); i++)
    fprintf (to, "  %2d  %s\n", exits[i].status, _ (exits[i].meaning));
}
