/* vfat-smart-probe.h - `vfat-smart probe` (kept apart from vfat-smart-cli.h until it
 * is wired into the command table)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

int cli_probe (int argc, char **argv);
