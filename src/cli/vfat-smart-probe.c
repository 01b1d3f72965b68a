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
#include "vfat-smart-probe.h"
#include "vsm-probe.h"

#include <json-glib/json-glib.h>

int
cli_probe (int argc, char **argv)
{
  gboolean json = FALSE, force = FALSE, cached_only = FALSE;
  g_autofree char *tracefs = NULL, *cache_dir = NULL;
  GOptionEntry entries[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, N_ ("Print JSON"), NULL },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, N_ ("Probe again, ignore the cache"), NULL },
    { "cached", 0, 0, G_OPTION_ARG_NONE, &cached_only,
      N_ ("Only show the cached answer (no probe, no root needed)"), NULL },
    { "tracefs", 0, 0, G_OPTION_ARG_FILENAME, &tracefs, N_ ("Where tracefs is mounted"), "DIR" },
    { "cache-dir", 0, 0, G_OPTION_ARG_FILENAME, &cache_dir,
      N_ ("Cache directory (default " VSM_STATE_DIR ")"), "DIR" },
    { NULL }
  };
  const char *summary =
    N_ ("Tell by its behaviour whether the loaded fat module has the flush fix");
  g_autofree char *release = NULL, *srcversion = NULL;
  g_autoptr (VsmProbeResult) r = NULL;
  g_autoptr (GError) error = NULL;
  const char *source;

  if (!cli_parse ("probe", "", _ (summary), entries, &argc, &argv))
    return 2;
  if (argc != 1)
    return cli_usage_error ("probe", _ ("no arguments expected"));

  vsm_probe_current_key (&release, &srcversion);
  if (!force)
    r = vsm_probe_cache_load (cache_dir, release, srcversion);
  if (r == NULL && !cached_only)
    {
      r = vsm_probe_flush_fix_run (tracefs, cache_dir, &error);
      if (r != NULL && !vsm_probe_cache_store (cache_dir, r, &error))
        {
          g_printerr ("vfat-smart probe: %s\n", error->message);
          g_clear_error (&error);
        }
    }
  if (r == NULL)
    {
      VsmFlushFix known = vsm_flush_fix_known_release (release);
      if (known == VSM_FLUSH_FIX_UNKNOWN)
        {
          if (error == NULL)
            g_set_error (&error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                         _ ("no cached probe result for this kernel and fat module"));
          return cli_fail (error);
        }
      r = g_new0 (VsmProbeResult, 1);
      r->fix = known;
      r->release = g_strdup (release);
      r->evidence = g_strdup (_ ("the kernel release is listed as carrying the fix"));
      source = "table";
    }
  else
    source = r->from_cache ? "cache" : "probe";

  if (json)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "flush_fix");
      json_builder_add_string_value (b, vsm_flush_fix_to_string (r->fix));
      json_builder_set_member_name (b, "variant");
      json_builder_add_string_value (b, vsm_flush_fix_variant_to_string (r->variant));
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, source);
      json_builder_set_member_name (b, "release");
      json_builder_add_string_value (b, r->release ? r->release : "");
      json_builder_set_member_name (b, "fat_srcversion");
      json_builder_add_string_value (b, r->srcversion ? r->srcversion : "");
      json_builder_set_member_name (b, "evidence");
      json_builder_add_string_value (b, r->evidence ? r->evidence : "");
      json_builder_end_object (b);
      cli_print_json (json_builder_get_root (b));
      return 0;
    }
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
