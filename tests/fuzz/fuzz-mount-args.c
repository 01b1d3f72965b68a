/* fuzz-mount-args.c - what mount(8) and umount(8) hand their helpers:
 * vsm_mount_parse_args () and vsm_umount_parse_args (), then the -o
 * options merged into the plan's (vsm_options_merge ()), as
 * mount.vfat-smart does
 *
 * Input: arguments separated by NUL (argv[0] is the helper's name). Promises
 * checked: success means no message, the paths and -N point into argv, the
 * options are the -o values joined with ","; failure means a message and no
 * options.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz-common.h"

#include "vsm-mount-helper.h"
#include "vsm-mount.h"
#include "vsm-plan.h"

#define MAX_ARGS 32

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  fuzz_init_glib ();
  return 0;
}

/* p is argv[i] or inside it */
static gboolean
points_into (const char *p, int argc, char **argv)
{
  for (int i = 0; i < argc; i++)
    if (p >= argv[i] && p <= argv[i] + strlen (argv[i]))
      return TRUE;
  return FALSE;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_auto (GStrv) parts = NULL;
  g_autofree char **argv = NULL;
  g_autofree char *options = NULL, *message = NULL, *umessage = NULL;
  VsmMountRequest req;
  VsmUmountRequest ureq;
  gboolean verbose = TRUE, ok;
  int argc;

  if (size > 4096)
    return 0;
  parts = fuzz_split (data, size, MAX_ARGS - 1);
  argc = (int)g_strv_length (parts) + 1;
  argv = g_new0 (char *, argc + 1);
  argv[0] = (char *)"mount.vfat-smart";
  for (int i = 1; i < argc; i++)
    argv[i] = parts[i - 1];

  ok = vsm_mount_parse_args (argc, argv, &req, &verbose, &options, &message);
  if (ok)
    {
      fuzz_assert (message == NULL);
      fuzz_assert (req.spec != NULL && req.target != NULL);
      fuzz_assert (points_into (req.spec, argc, argv) && points_into (req.target, argc, argv));
      fuzz_assert (req.namespace == NULL || points_into (req.namespace, argc, argv));
      fuzz_assert (!(req.read_only && req.read_write));
      fuzz_assert (req.options == options);
      fuzz_assert (options == NULL || *options != '\0');
      if (options != NULL)
        {
          g_autofree char *merged = vsm_options_merge (VSM_VFAT_BASE_OPTIONS, options);
          fuzz_assert (merged != NULL);
        }
    }
  else
    {
      fuzz_assert (message != NULL);
      fuzz_assert (options == NULL);
    }

  argv[0] = (char *)"umount.vfat-smart";
  ok = vsm_umount_parse_args (argc, argv, &ureq, &verbose, &umessage);
  if (ok)
    {
      fuzz_assert (umessage == NULL);
      fuzz_assert (ureq.target != NULL && points_into (ureq.target, argc, argv));
      fuzz_assert (ureq.namespace == NULL || points_into (ureq.namespace, argc, argv));
    }
  else
    fuzz_assert (umessage != NULL);
  return 0;
}
