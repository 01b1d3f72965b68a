/* vfat-smart-probe.c - `vfat-smart probe`: does the fat module have the flush fix?
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Asks the module's behaviour (src/core/vsm-probe.c): needs root, loop-mounts a tiny
 * FAT image for about a second. The answer is cached per kernel release and fat
 * module srcversion in /run/vfat-smart; --force probes again.
 */
#include "config.h"

#include "vfat-smart-cli.h"

#include <unistd.h>

/* every label of cli_field below */
static const char *const labels[] = {
  N_ ("Flush fix"),  N_ ("Variant"),  N_ ("Told by"), N_ ("Kernel"),
  N_ ("fat module"), N_ ("Evidence"), NULL,
};

int
cli_probe (int argc, char **argv)
{
  gboolean json = FALSE, force = FALSE, cached_only = FALSE;
  g_autofree char *tracefs = NULL, *cache_dir = NULL, *store_note = NULL;
  GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print JSON"), NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, N_ ("Probe again, ignore the cache"), NULL },
    { "cached", 0, 0, G_OPTION_ARG_NONE, &cached_only,
      N_ ("Only show the cached answer (no probe, no root needed)"), NULL },
    { "tracefs", 0, 0, G_OPTION_ARG_FILENAME, &tracefs, N_ ("Where tracefs is mounted"),
      N_ ("DIR") },
    { "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &cache_dir,
      N_ ("Cache directory (default: the state directory)"), N_ ("DIR") },
    { NULL }
  };
  g_autoptr (VsmProbeResult) r = NULL;
  g_autoptr (GError) error = NULL;
  const char *source = NULL;

  if (!cli_parse ("probe", "",
                  _ ("Tell by its behaviour whether the loaded fat module has the flush fix.\n"
                     "Needs root (exit status 5 without it), unless --cached."),
                  entries, &argc, &argv))
    return 2;
  if (argc != 1)
    return cli_usage_error ("probe", _ ("no arguments expected"));
  /* it loop-mounts an image; without root, --cached reads the answer */
  if (!cached_only && geteuid () != 0)
    {
      g_printerr (_ ("vfat-smart probe: needs root (try sudo, or --cached)\n"));
      return 5;
    }
  r = vsm_probe_find_answer (tracefs, cache_dir, force, cached_only, &store_note, &error);
  if (store_note != NULL)
    g_printerr ("vfat-smart probe: %s\n", store_note);
  if (r == NULL)
    return cli_fail (error);
  source = r->from_cache ? "cache" : "probe";
  if (json)
    {
      cli_print_json (vsm_json_probe (r, source));
      return 0;
    }
  cli_field_labels (labels);
  cli_field (_ ("Flush fix"), "%s", vsm_flush_fix_to_string (r->fix));
  if (r->fix == VSM_FLUSH_FIX_PRESENT)
    cli_field (_ ("Variant"), "%s%s", vsm_flush_fix_variant_to_string (r->variant),
               r->variant == VSM_FLUSH_FIX_VARIANT_NOWAIT
                 ? _ (" (or the hybrid: the same on an idle file)")
                 : "");
  cli_field (_ ("Told by"), "%s", source);
  cli_field (_ ("Kernel"), "%s", r->release ? r->release : "?");
  cli_field (_ ("fat module"), "%s", r->srcversion ? r->srcversion : "?");
  cli_field (_ ("Evidence"), "%s", r->evidence ? r->evidence : "");
  return 0;
}
