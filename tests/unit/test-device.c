/* test-device.c - device facts, classification and knobs on umockdev
 * recordings of real kernels (tests/fixtures, made in the lab)
 *
 * Runs under umockdev-wrapper (LD_PRELOAD), see meson.build.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-drive-history.h"
#include "vsm-manager.h"
#include "vsm-paths.h"
#include "vsm-probe.h"
#include "vsm-rundir.h"
#include "vsm-event.h"
#include "vsm-udev.h"
#include "vsm-util.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <umockdev.h>

typedef struct
{
  const char *kernel;
  const char *fixture;
  const char *kind; /* which node to open: "partition" or "disk" */
  int index;        /* the n-th node of that kind */
  const char *transport;
  const char *klass;
  guint speed;
  gboolean removable;
  gboolean rotational;
  gboolean superfloppy;
  const char *fs_type;
  const char *fs_label;
  guint64 max_sectors_kb;
  const char *serial;
} FixtureCase;

#define CASES_FOR(k)                                                                                   \
  { k,                                                                                                 \
    "usb-storage-ss-stick",                                                                            \
    "partition",                                                                                       \
    0,                                                                                                 \
    "usb-storage",                                                                                     \
    "usb-stick",                                                                                       \
    5000,                                                                                              \
    TRUE,                                                                                              \
    TRUE,                                                                                              \
    FALSE,                                                                                             \
    "vfat",                                                                                            \
    "STICKSS",                                                                                         \
    1024,                                                                                              \
    "STICKSS1" },                                                                                      \
    { k,                                                                                               \
      "usb-storage-hs-stick",                                                                          \
      "disk",                                                                                          \
      0,                                                                                               \
      "usb-storage",                                                                                   \
      "usb-stick",                                                                                     \
      480,                                                                                             \
      TRUE,                                                                                            \
      TRUE,                                                                                            \
      TRUE,                                                                                            \
      "vfat",                                                                                          \
      "STICKHS",                                                                                       \
      120,                                                                                             \
      "STICKHS1" },                                                                                    \
    { k,     "uas-ssd", "partition", 0,      "uas",    "usb-ssd", 5000,                                \
      FALSE, FALSE,     FALSE,       "vfat", "UASSSD", 512,       "UASSSD1" },                         \
    { k,     "uas-hdd", "partition", 0,       "uas",    "usb-hdd", 5000,                               \
      FALSE, TRUE,      FALSE,       "exfat", "UASHDD", 512,       "UASHDD1" },                        \
    { k,    "bot-enclosure", "partition", 0,        "usb-storage", "usb-stick", 5000, FALSE,           \
      TRUE, FALSE,           "vfat",      "BOTENC", 1024,          "BOTENC1" },                        \
    { k,    "card-reader", "partition", 0,      "usb-storage", "card-reader", 5000,                    \
      TRUE, TRUE,          FALSE,       "vfat", "CARDSD0",     1024,          "CARDRDR1" },            \
    { k,    "card-reader", "disk", 1,      "usb-storage", "card-reader", 5000,                         \
      TRUE, TRUE,          TRUE,   "vfat", "CARDSD1",     1024,          "CARDRDR1" },                 \
    { k, "virtio", "disk", 0, "virtio", "internal", 0, FALSE, TRUE, TRUE, "vfat", "VIRTIO", 0, NULL }, \
  {                                                                                                    \
    k, "loop", "disk", 0, "loop", "internal", 0, FALSE, FALSE, TRUE, "vfat", "LOOPFAT", 0, NULL        \
  }

static const FixtureCase cases[] = { CASES_FOR ("6.1"), CASES_FOR ("6.12") };

typedef struct
{
  UMockdevTestbed *bed;
  GUdevClient *client;
  char *state_dir;
  char *node;
  char *bdi_syspath;
} Fixture;

static char *
fixture_path (const FixtureCase *c, const char *ext)
{
  g_autofree char *name = g_strconcat (c->fixture, ext, NULL);
  return g_build_filename (FIXTURE_DIR, c->kernel, name, NULL);
}

/* NODE KIND SYSFS lines; returns the index-th node of kind */
static char *
find_node (const FixtureCase *c, const char *kind, int index)
{
  g_autofree char *path = fixture_path (c, ".devices");
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  int seen = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) f = g_strsplit (*l, " ", 3);
      if (**l == '#' || g_strv_length (f) != 3 || !g_str_equal (f[1], kind))
        continue;
      if (seen++ == index)
        return g_strdup (g_str_equal (kind, "bdi") ? f[2] : f[0]);
    }
  return NULL;
}

static void
fixture_setup (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autofree char *rec = fixture_path (c, ".umockdev");
  g_autoptr (GError) error = NULL;

  fx->bed = umockdev_testbed_new ();
  g_assert_true (umockdev_in_mock_environment ());
  g_assert_true (umockdev_testbed_add_from_file (fx->bed, rec, &error));
  g_assert_no_error (error);
  fx->client = g_udev_client_new (NULL);
  fx->state_dir = g_dir_make_tmp ("vsm-dev-XXXXXX", NULL);
  vsm_paths_set_root (VSM_ROOT_STATE, fx->state_dir);
  /* the testbed's /sys, named as a root of the test's own: the knobs there
   * need no root (the package build runs this suite as a user) */
  vsm_paths_set_root (VSM_ROOT_SYSFS, "/sys");
  fx->node = find_node (c, c->kind, c->index);
  g_assert_nonnull (fx->node);
  fx->bdi_syspath = find_node (c, "bdi", c->index);
}

static void
fixture_teardown (Fixture *fx, gconstpointer data)
{
  g_autoptr (GDir) dir = g_dir_open (fx->state_dir, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *p = g_build_filename (fx->state_dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (fx->state_dir);
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
  vsm_paths_set_root (VSM_ROOT_SYSFS, NULL);
  g_free (fx->state_dir);
  g_free (fx->node);
  g_free (fx->bdi_syspath);
  g_object_unref (fx->client);
  g_object_unref (fx->bed);
}

static const VsmApplyOptions test_options = { "test", 0 };

static VsmPolicy *
policy_default (void)
{
  return vsm_policy_new_default ();
}

static void
test_facts (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, fx->node, policy_default (), NULL, &error);
  const VsmDevice *d;

  g_assert_no_error (error);
  d = a->device;
  g_assert_cmpstr (d->devnode, ==, fx->node);
  g_assert_cmpint (d->is_partition, ==, g_str_equal (c->kind, "partition"));
  g_assert_cmpstr (vsm_transport_to_string (d->transport), ==, c->transport);
  g_assert_cmpstr (vsm_class_to_string (a->classification->klass), ==, c->klass);
  g_assert_cmpint (d->removable, ==, c->removable);
  g_assert_cmpint (d->rotational, ==, c->rotational);
  g_assert_cmpint (d->superfloppy, ==, c->superfloppy);
  g_assert_cmpstr (d->fs_type, ==, c->fs_type);
  g_assert_cmpstr (d->fs_label, ==, c->fs_label);
  g_assert_cmpuint (d->size_bytes, >, 0);
  if (c->max_sectors_kb)
    g_assert_cmpuint (d->max_sectors_kb, ==, c->max_sectors_kb);
  g_assert_cmpuint (d->max_sectors_kb, <=, d->max_hw_sectors_kb);
  g_assert_true (g_str_has_prefix (fx->node, d->disk_node));
  if (c->speed)
    {
      g_assert_nonnull (d->usb);
      g_assert_cmpuint (d->usb->speed_mbps, ==, c->speed);
      g_assert_cmpstr (d->usb->vendor_id, ==, "46f4");
      g_assert_cmpstr (d->usb->serial, ==, c->serial);
    }
  else
    g_assert_null (d->usb);
  if (g_str_equal (c->fixture, "card-reader"))
    {
      g_assert_cmpuint (d->n_luns, ==, 2);
      g_assert_cmpint (d->lun, ==, c->index);
    }
  if (g_str_equal (c->fixture, "bot-enclosure"))
    /* the medium of a non-removable Bulk-Only bridge cannot be told: low confidence */
    g_assert_cmpuint (a->classification->confidence, <, 50);
}

/* The kernel's knobs as recorded: 6.1 has no strict_limit/max_bytes. */
static void
test_plan (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, fx->node, policy_default (), NULL, &error);
  gboolean new_kernel = g_str_equal (c->kernel, "6.12");

  g_assert_no_error (error);
  g_assert_cmpint (a->kernel->has_strict_limit, ==, new_kernel);
  g_assert_cmpint (a->kernel->has_max_bytes, ==, new_kernel);
  g_assert_true (vsm_kernel_has_knob (a->kernel, "max_ratio"));

  if (g_str_equal (c->klass, "internal"))
    {
      g_assert_false (a->plan->managed);
      g_assert_cmpuint (a->plan->knobs->len, ==, 0);
      return;
    }
  g_assert_true (a->plan->managed);
  if (new_kernel)
    {
      g_assert_cmpint (a->plan->flush_mode, ==, VSM_FLUSH_MODE_DIRTY_CAP);
      g_assert_nonnull (vsm_plan_get_knob (a->plan, "max_bytes"));
      g_assert_cmpstr (vsm_plan_get_knob (a->plan, "strict_limit"), ==, "1");
    }
  else
    {
      /* vfat keeps flush, exFAT has none: both say why */
      g_assert_cmpint (a->plan->flush_mode, ==,
                       g_str_equal (c->fs_type, "exfat") ? VSM_FLUSH_MODE_OFF
                                                         : VSM_FLUSH_MODE_KERNEL_FLUSH);
      g_assert_cmpuint (a->plan->knobs->len, ==, 0);
    }
}

static char *
bdi_attr (Fixture *fx, const char *name)
{
  g_autofree char *path = g_build_filename (fx->bdi_syspath, name, NULL);
  return vsm_read_attr (path, NULL); /* umockdev redirects /sys */
}

/* apply/restore on the recorded BDI: written values land in the testbed */
static void
test_apply_restore (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, fx->node, policy_default (), NULL, &error);
  g_autoptr (VsmState) s = NULL;
  g_autofree char *strict0 = NULL, *ratio0 = NULL, *strict1 = NULL, *bytes1 = NULL;
  g_autofree char *strict2 = NULL, *ratio2 = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (fx->bdi_syspath);
  strict0 = bdi_attr (fx, "strict_limit");
  ratio0 = bdi_attr (fx, "max_ratio_fine");

  g_assert_true (vsm_assessment_apply (a, &test_options, NULL, NULL, &s, &error));
  g_assert_no_error (error);
  g_assert_nonnull (s);
  g_assert_false (s->pending);
  g_assert_nonnull (s->baseline_stat);

  strict1 = bdi_attr (fx, "strict_limit");
  bytes1 = bdi_attr (fx, "max_bytes");
  g_assert_cmpstr (strict1, ==, "1");
  g_assert_cmpstr (bytes1, ==, vsm_plan_get_knob (a->plan, "max_bytes"));

  g_assert_true (vsm_restore (a->device->bdi, 0, NULL, &error));
  g_assert_no_error (error);
  strict2 = bdi_attr (fx, "strict_limit");
  ratio2 = bdi_attr (fx, "max_ratio_fine");
  g_assert_cmpstr (strict2, ==, strict0);
  g_assert_cmpstr (ratio2, ==, ratio0);
  g_assert_null (vsm_state_load (a->device->bdi, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
}

/* a knob that cannot be read or written (here: a directory in its place):
 * its original is read before anything is written, so nothing changes */
static void
test_apply_failure_rolls_back (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, fx->node, policy_default (), NULL, &error);
  g_autofree char *bytes0 = NULL, *ratio0 = NULL, *ratio1 = NULL, *strict_path = NULL;
  g_autoptr (VsmState) s = NULL;
  g_autofree char *sys = umockdev_testbed_get_sys_dir (fx->bed);

  g_assert_no_error (error);
  bytes0 = bdi_attr (fx, "max_bytes");
  ratio0 = bdi_attr (fx, "max_ratio_fine");
  strict_path = g_build_filename (sys, fx->bdi_syspath + strlen ("/sys/"), "strict_limit", NULL);
  g_assert_cmpint (g_unlink (strict_path), ==, 0);
  g_assert_cmpint (g_mkdir (strict_path, 0755), ==, 0);

  g_assert_false (vsm_assessment_apply (a, &test_options, NULL, NULL, &s, &error));
  g_assert_null (s);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_APPLY);
  g_assert_nonnull (strstr (error->message, "nothing was changed"));
  ratio1 = bdi_attr (fx, "max_ratio_fine");
  g_assert_cmpstr (ratio1, ==, ratio0);
  g_assert_null (vsm_state_load (a->device->bdi, NULL));
}

static const char *
find_prop (GPtrArray *props, const char *key)
{
  g_autofree char *prefix = g_strconcat (key, "=", NULL);
  for (guint i = 0; i < props->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (props, i), prefix))
      return (const char *)g_ptr_array_index (props, i) + strlen (prefix);
  return NULL;
}

/* The installed rule (the build tree's 61-vfat-smart.rules): the keys it
 * keeps from udev's database on an answered change event, and its stamp
 * TEST with the event's properties put in. */
static GPtrArray *
rule_imported_keys (void)
{
  g_autofree char *text = NULL;
  GPtrArray *keys = g_ptr_array_new_with_free_func (g_free);
  const char *p;

  g_assert_true (g_file_get_contents (RULES_FILE, &text, NULL, NULL));
  for (p = text; (p = strstr (p, "IMPORT{db}=\"")) != NULL;)
    {
      const char *end;
      p += strlen ("IMPORT{db}=\"");
      end = strchr (p, '"');
      g_assert_nonnull (end);
      g_ptr_array_add (keys, g_strndup (p, end - p));
    }
  return keys;
}

static char *
rule_stamp_test (const char *const *envp)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) path = g_string_new (NULL);
  const char *p, *end;

  g_assert_true (g_file_get_contents (RULES_FILE, &text, NULL, NULL));
  p = strstr (text, "TEST!=\"");
  g_assert_nonnull (p);
  p += strlen ("TEST!=\"");
  end = strchr (p, '"');
  g_assert_nonnull (end);
  while (p < end)
    {
      if (g_str_has_prefix (p, "$env{"))
        {
          const char *close = strchr (p, '}');
          g_autofree char *key = g_strndup (p + 5, close - p - 5);
          const char *v = g_environ_getenv ((char **)envp, key);
          g_string_append (path, v ? v : "");
          p = close + 1;
        }
      else
        g_string_append_c (path, *p++);
    }
  return g_string_free (g_steal_pointer (&path), FALSE);
}

/* What the udev helper hands udisks, for the device holding the filesystem. */
static void
test_udev_properties (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, fx->node, policy_default (), NULL, &error);
  g_autoptr (GPtrArray) props = NULL;
  g_autoptr (GPtrArray) not_applied = NULL;
  g_autofree char *upper = g_ascii_strup (c->fs_type, -1);
  g_autofree char *kdef = g_strdup_printf ("UDISKS_MOUNT_OPTIONS_%s_DEFAULTS", upper);
  g_autofree char *kallow = g_strdup_printf ("UDISKS_MOUNT_OPTIONS_%s_ALLOW", upper);
  g_autofree char *kall = g_strdup ("UDISKS_MOUNT_OPTIONS_ALLOW");
  const char *def;

  g_assert_no_error (error);
  props = vsm_udev_properties (a, TRUE, TRUE, NULL, NULL);
  g_assert_cmpstr (find_prop (props, "VFAT_SMART_CLASS"), ==, c->klass);
  g_assert_cmpstr (find_prop (props, "VFAT_SMART_FLUSH_MODE"), ==,
                   vsm_flush_mode_to_string (a->plan->flush_mode));
  for (guint i = 0; i < props->len; i++)
    g_assert_null (strchr (g_ptr_array_index (props, i), '\n'));
  /* what a skipped change event keeps is all the helper says */
  {
    g_autoptr (GPtrArray) kept = rule_imported_keys ();
    for (guint i = 0; i < props->len; i++)
      {
        const char *line = g_ptr_array_index (props, i);
        g_autofree char *key = g_strndup (line, strchr (line, '=') - line);
        g_assert_true (g_ptr_array_find_with_equal_func (kept, key, g_str_equal, NULL));
      }
  }

  def = find_prop (props, kdef);
  if (g_str_equal (c->klass, "internal"))
    {
      g_assert_null (def); /* udisks keeps its own */
      return;
    }
  g_assert_nonnull (def);
  g_assert_true (g_str_has_prefix (def, "uid=$UID,gid=$GID,"));
  /* udisks' own allow lists stay whole (flush and sync among them) */
  g_assert_null (find_prop (props, kallow));
  g_assert_null (find_prop (props, kall));
  if (g_str_equal (c->fs_type, "vfat"))
    /* no flush with a cap (6.12), udisks' flush without one (6.1) */
    g_assert_cmpint (g_str_has_suffix (def, ",flush"), ==, g_str_equal (c->kernel, "6.1"));

  /* a cap that could not be applied never turns into "no flush" */
  not_applied = vsm_udev_properties (a, FALSE, TRUE, NULL, NULL);
  g_assert_null (find_prop (not_applied, kdef));

  /* an admin's udisks defaults survive: only what the plan needs changes */
  {
    g_autofree char *dir = g_dir_make_tmp ("vsm-udisks-XXXXXX", NULL);
    g_autofree char *conf = g_build_filename (dir, "mount_options.conf", NULL);
    g_autofree char *text = g_strdup_printf (
      "[defaults]\n"
      "vfat_defaults=uid=$UID,gid=$GID,shortname=lower,utf8=1,flush,iocharset=iso8859-1\n"
      "exfat_defaults=uid=$UID,gid=$GID,iocharset=utf8,umask=0077\n"
      "[/dev/disk/by-label/OTHER]\nvfat_defaults=codepage=437\n"
      "[/dev/disk/by-uuid/ADMIN-1]\nexfat_defaults=uid=$UID,gid=$GID,dmask=0027,flush\n");
    const char *envp[] = { "DEVNAME=/dev/nothing",
                           "DEVLINKS=/dev/disk/by-id/x /dev/disk/by-uuid/ADMIN-1", NULL };
    g_autoptr (GPtrArray) admin = NULL;
    const char *got;
    gboolean flush = g_str_equal (c->fs_type, "vfat") && g_str_equal (c->kernel, "6.1");

    g_assert_true (g_file_set_contents (conf, text, -1, NULL));
    admin = vsm_udev_properties (a, TRUE, TRUE, envp, conf);
    got = find_prop (admin, kdef);
    g_assert_nonnull (got);
    if (g_str_equal (c->fs_type, "vfat"))
      g_assert_cmpstr (got, ==,
                       flush ? "uid=$UID,gid=$GID,shortname=lower,utf8=1,flush,iocharset=iso8859-1"
                             : "uid=$UID,gid=$GID,shortname=lower,utf8=1,iocharset=iso8859-1");
    else
      /* the device's own section (by one of its links) over [defaults] */
      g_assert_cmpstr (got, ==, "uid=$UID,gid=$GID,dmask=0027");
    g_assert_cmpint (g_unlink (conf), ==, 0);
    g_assert_cmpint (g_rmdir (dir), ==, 0);
  }
}

/* during an event the device's properties are the event's, not udev's
 * database entry (written once the event's rules ran, absent at a plug) */
static void
test_event_properties (Fixture *fx, gconstpointer data)
{
  g_autoptr (GUdevDevice) dev = g_udev_client_query_by_device_file (fx->client, fx->node);
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmDevice) d = NULL;
  g_autoptr (VsmDevice) bare = NULL;
  const char *envp[] = { "ACTION=add",           "ID_FS_TYPE=exfat",  "ID_FS_LABEL=FROM-EVENT",
                         "ID_FS_UUID=1234-ABCD", "ID_FS_VERSION=1.0", NULL };
  const char *none[] = { "ACTION=add", NULL };

  g_assert_nonnull (dev);
  d = vsm_device_new_from_udev (fx->client, dev, envp, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (d->fs_type, ==, "exfat");
  g_assert_cmpstr (d->fs_label, ==, "FROM-EVENT");
  g_assert_cmpstr (d->fs_uuid, ==, "1234-ABCD");
  g_assert_cmpstr (d->fs_version, ==, "1.0");
  /* an event without them: nothing of the database's (the recording's) */
  bare = vsm_device_new_from_udev (fx->client, dev, none, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (bare->fs_label);
  g_assert_null (bare->fs_uuid);
}

/* a hostile event: label, UUID and type from the drive never reach a line */
static void
test_udev_hostile_event (Fixture *fx, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmDevice) d = vsm_device_new_from_spec (fx->client, fx->node, &error);
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (GPtrArray) props = NULL;
  g_autofree char *huge = g_strnfill (100 * 1024, 'A');
  g_autofree char *uuid = g_strconcat ("$(reboot)", huge, NULL);
  const char *envp[] = { "ID_FS_TYPE=vfat",
                         "ID_FS_LABEL=x\nUDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=exec,suid", NULL,
                         "ID_PART_TABLE_TYPE=dos", NULL };
  g_autofree char *uuid_env = g_strconcat ("ID_FS_UUID=", uuid, NULL);

  g_assert_no_error (error);
  envp[2] = uuid_env;
  vsm_udev_device_from_event (d, envp);
  g_assert_cmpstr (d->fs_label, ==, "x\nUDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=exec,suid");
  a = vsm_assess_device (g_steal_pointer (&d), policy_default (), NULL);
  props = vsm_udev_properties (a, TRUE, TRUE, NULL, NULL);
  for (guint i = 0; i < props->len; i++)
    {
      const char *line = g_ptr_array_index (props, i);
      g_assert_null (strchr (line, '\n'));
      g_assert_null (strstr (line, "suid"));
      g_assert_null (strstr (line, "reboot"));
      g_assert_cmpuint (strlen (line), <, 512);
    }
  /* a hostile type is not FAT: no udisks options at all */
  envp[0] = "ID_FS_TYPE=vfat,exec";
  d = vsm_device_new_from_spec (fx->client, fx->node, &error);
  vsm_udev_device_from_event (d, envp);
  g_clear_pointer (&a, vsm_assessment_free);
  g_clear_pointer (&props, g_ptr_array_unref);
  a = vsm_assess_device (g_steal_pointer (&d), policy_default (), NULL);
  props = vsm_udev_properties (a, TRUE, TRUE, NULL, NULL);
  for (guint i = 0; i < props->len; i++)
    g_assert_false (g_str_has_prefix (g_ptr_array_index (props, i), "UDISKS_"));
}

/* A change event of the whole disk (any tool that opens the disk for
 * writing and closes it causes one) after the partition's: the disk has no
 * ID_FS_* of its own, and its run must not erase the file system from the
 * record (status showed "none", and on 6.1 kernel-flush for exFAT). */
static VsmState *
disk_event (Fixture *fx)
{
  g_autoptr (GUdevDevice) disk = g_udev_client_query_by_device_file (fx->client, fx->node);
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = NULL;
  VsmState *s = NULL;
  const char *envp[] = { "ACTION=change", "DEVTYPE=disk", "ID_PART_TABLE_TYPE=dos", NULL };
  VsmDevice *d;

  g_assert_nonnull (disk);
  d = vsm_device_new_from_udev (fx->client, disk, NULL, NULL, &error);
  g_assert_no_error (error);
  vsm_udev_device_from_event (d, envp);
  vsm_udev_disk_fs_facts (d);
  a = vsm_assess_device (d, policy_default (), NULL);
  g_assert_true (vsm_assessment_apply (a, &test_options, NULL, NULL, &s, &error));
  g_assert_no_error (error);
  return s;
}

static void
test_udev_disk_event_keeps_fs (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autofree char *part = find_node (c, "partition", 0);
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, part, policy_default (), NULL, &error);
  g_autoptr (VsmState) first = NULL, after = NULL, from_record = NULL;
  g_autoptr (GUdevDevice) p = NULL;
  gboolean new_kernel = g_str_equal (c->kernel, "6.12");

  g_assert_no_error (error);
  g_assert_true (vsm_assessment_apply (a, &test_options, NULL, NULL, &first, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (first->fs_type, ==, c->fs_type);

  after = disk_event (fx);
  g_assert_cmpstr (after->fs_type, ==, c->fs_type);
  g_assert_cmpstr (after->flush_mode, ==, first->flush_mode);
  /* 6.1: exFAT has no flush option, nothing is capped: never kernel-flush */
  if (!new_kernel && g_str_equal (c->fs_type, "exfat"))
    g_assert_cmpstr (after->flush_mode, ==, "off");

  /* the partitions' entries hold nothing (their events did not run yet):
   * the record's facts stay */
  p = g_udev_client_query_by_device_file (fx->client, part);
  umockdev_testbed_set_property (fx->bed, g_udev_device_get_sysfs_path (p), "ID_FS_TYPE", "");
  from_record = disk_event (fx);
  g_assert_cmpstr (from_record->fs_type, ==, c->fs_type);
  g_assert_cmpstr (from_record->flush_mode, ==, first->flush_mode);
}

/* A change event of a disk a person made choices for (the mount helper's
 * class and -o sync) plans from those choices, as a re-apply does: the
 * record keeps the class, the flush mode and who asked. */
static void
test_udev_change_keeps_intent (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autofree char *part = find_node (c, "partition", 0);
  g_autoptr (GUdevDevice) disk = g_udev_client_query_by_device_file (fx->client, fx->node);
  g_autoptr (GError) error = NULL;
  const VsmOverrides chosen = { .set_class = TRUE,
                                .klass = VSM_CLASS_USB_HDD,
                                .flush_mode = VSM_FLUSH_MODE_SYNC };
  const VsmApplyOptions by_mount = { VSM_SOURCE_MOUNT, 0 };
  g_autoptr (VsmAssessment) a = vsm_assess (fx->client, part, policy_default (), &chosen, &error);
  g_autoptr (VsmAssessment) again = NULL;
  g_autoptr (VsmState) first = NULL, after = NULL, record = NULL;
  const char *envp[] = { "ACTION=change", "DEVTYPE=disk", "ID_PART_TABLE_TYPE=dos", NULL };
  gboolean applied = FALSE;

  g_assert_no_error (error);
  g_assert_true (vsm_assessment_apply (a, &by_mount, NULL, NULL, &first, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (first->flush_mode, ==, "sync");

  g_assert_nonnull (disk);
  again = vsm_hotplug (g_udev_device_get_sysfs_path (disk), envp, &applied, &after, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (again);
  g_assert_true (applied);
  g_assert_nonnull (after);
  record = vsm_state_load (a->device->bdi, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (record->class_name, ==, "usb-hdd");
  g_assert_cmpstr (record->flush_mode, ==, "sync");
  g_assert_cmpuint (record->cap_bytes, ==, 0);
  g_assert_nonnull (record->intent);
  g_assert_true (record->intent->set_class);
  g_assert_cmpstr (record->intent->source, ==, VSM_SOURCE_MOUNT);
  g_assert_cmpint (record->intent->flush_mode, ==, VSM_FLUSH_MODE_SYNC);
}

/* what vsm_mount's step was given */
typedef struct
{
  guint calls;
  char *options;
  char *fs_type;
  gboolean fail;
} StepSeen;

static gboolean
record_step (const VsmAssessment *a, const char *options, gpointer data, GError **error)
{
  StepSeen *seen = data;

  seen->calls++;
  g_free (seen->options);
  seen->options = g_strdup (options);
  g_free (seen->fs_type);
  seen->fs_type = g_strdup (a->device->fs_type);
  if (seen->fail)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the mount failed");
      return FALSE;
    }
  return TRUE;
}

/* the partition's node in the testbed gets the bytes of a filesystem (NULL:
 * a node of zeros): what vsm_mount reads from the superblock */
static void
put_filesystem (Fixture *fx, const char *node, GBytes *image)
{
  g_autofree char *root = umockdev_testbed_get_root_dir (fx->bed);
  g_autofree char *file = g_build_filename (root, node, NULL);
  g_autofree char *zeros = g_malloc0 (65536);
  /* written in place: the testbed's node file keeps what makes it a block device */
  int fd = open (file, O_WRONLY);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, zeros, 65536), ==, 65536);
  if (image != NULL)
    g_assert_cmpint (pwrite (fd, g_bytes_get_data (image, NULL), g_bytes_get_size (image), 0), ==,
                     (gssize)g_bytes_get_size (image));
  close (fd);
}

/* A hand mount is one call: the filesystem read from the device now, the
 * person's choices planned and recorded with the mount's source, the
 * person's options winning over the plan's in what the step mounts with; a
 * failed step leaves no record; a dry run records nothing; a device
 * without FAT or exFAT is refused before any step. */
static void
test_mount_one_call (Fixture *fx, gconstpointer data)
{
  const FixtureCase *c = data;
  g_autofree char *part = find_node (c, "partition", 0);
  g_autoptr (GBytes) fat = vsm_probe_fat12_image ();
  const VsmOverrides chosen = { .set_class = TRUE, .klass = VSM_CLASS_USB_HDD };
  const VsmOverrides sync = { .flush_mode = VSM_FLUSH_MODE_SYNC };
  VsmMountIntent m = { part, &chosen, "uid=1000,noatime", TRUE };
  StepSeen seen = { 0 };
  g_autoptr (VsmAssessment) a = NULL;
  g_autoptr (VsmState) s = NULL;
  g_autoptr (VsmState) record = NULL;
  g_autoptr (GError) error = NULL;
  gboolean ok;

  put_filesystem (fx, part, fat);
  /* a dry run (mount -f): the step, nothing recorded */
  ok = vsm_mount (&m, record_step, &seen, &a, &s, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (seen.calls, ==, 1);
  g_assert_cmpstr (seen.fs_type, ==, "vfat");
  g_assert_null (s);
  g_assert_nonnull (a);
  g_assert_null (vsm_state_load (a->device->bdi, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED);
  g_clear_error (&error);
  g_clear_pointer (&a, vsm_assessment_free);

  /* the mount: the options, the person's winning; the record keeps the intent */
  m.dry_run = FALSE;
  ok = vsm_mount (&m, record_step, &seen, &a, &s, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpuint (seen.calls, ==, 2);
  g_assert_nonnull (strstr (seen.options, "uid=1000"));
  g_assert_nonnull (strstr (seen.options, "noatime"));
  g_assert_null (strstr (seen.options, "relatime"));
  g_assert_nonnull (s);
  record = vsm_state_load (a->device->bdi, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (record->class_name, ==, "usb-hdd");
  g_assert_nonnull (record->intent);
  g_assert_cmpstr (record->intent->source, ==, VSM_SOURCE_MOUNT);
  g_assert_true (record->intent->set_class);
  g_clear_pointer (&record, vsm_state_free);
  g_clear_pointer (&s, vsm_state_free);
  g_clear_pointer (&a, vsm_assessment_free);

  /* a failed mount: the step's error, the record as it was */
  seen.fail = TRUE;
  m.overrides = &sync;
  g_assert_false (vsm_mount (&m, record_step, &seen, &a, &s, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_null (s);
  g_assert_nonnull (a);
  record = vsm_state_load (a->device->bdi, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (record->class_name, ==, "usb-hdd");
  g_clear_pointer (&record, vsm_state_free);
  g_clear_pointer (&a, vsm_assessment_free);

  /* no FAT on the device: refused, the step never runs */
  seen.fail = FALSE;
  put_filesystem (fx, part, NULL);
  g_assert_false (vsm_mount (&m, record_step, &seen, &a, &s, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_SUPPORTED);
  g_assert_cmpuint (seen.calls, ==, 3);
  g_assert_null (s);
  g_free (seen.options);
  g_free (seen.fs_type);
}

static const FixtureCase disk_event_cases[] = {
  { "6.1", "uas-hdd", "disk", 0, "uas", "usb-hdd", 5000, FALSE, TRUE, FALSE, "exfat", "UASHDD", 512,
    "UASHDD1" },
  { "6.12", "uas-hdd", "disk", 0, "uas", "usb-hdd", 5000, FALSE, TRUE, FALSE, "exfat", "UASHDD",
    512, "UASHDD1" },
  { "6.12", "usb-storage-ss-stick", "disk", 0, "usb-storage", "usb-stick", 5000, TRUE, TRUE, FALSE,
    "vfat", "STICKSS", 1024, "STICKSS1" },
};

static void
test_udev_env_line (void)
{
  static const struct
  {
    const char *key, *value, *expect;
  } lines[] = {
    { "VFAT_SMART_CLASS", "usb-stick", "VFAT_SMART_CLASS=usb-stick" },
    { "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS", "uid=$UID,gid=$GID,shortname=mixed,utf8=1,showexec",
      "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=uid=$UID,gid=$GID,shortname=mixed,utf8=1,showexec" },
    { "X", "a\nUDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=exec", NULL },
    { "X", "a b", NULL },
    { "X", "'quoted'", NULL },
    { "X", "\"", NULL },
    { "X", "$(reboot)", NULL },
    { "bad key", "v", NULL },
    { "KEY=", "v", NULL },
    { "", "v", NULL },
    { "X", NULL, NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *line = vsm_udev_env_line (lines[i].key, lines[i].value);
      g_assert_cmpstr (line, ==, lines[i].expect);
    }
}

static void
test_bad_specs (void)
{
  /* an empty testbed: no device exists */
  G_GNUC_UNUSED g_autoptr (UMockdevTestbed) bed = umockdev_testbed_new ();
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  static const char *const specs[] = { "", "/dev/nonexistent", "LABEL=NO_SUCH_LABEL_ANYWHERE",
                                       "/sys/devices/nothing", "/etc" };

  for (gsize i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (VsmDevice) d = vsm_device_new_from_spec (client, specs[i], &error);
      g_assert_null (d);
      g_assert_nonnull (error);
      g_assert_true (g_error_matches (error, VSM_ERROR, VSM_ERROR_NOT_FOUND) ||
                     g_error_matches (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT));
    }
}

/* A partitioned stick without a USB serial: the disk (as the daemon sees
 * it), the partition (as the udev helper and the CLI see it) and the udev
 * helper's event name the drive by the same identity, its partition's
 * filesystem UUID. */
static void
test_identity_without_serial (void)
{
  static const char *const usb = "/sys/devices/pci0000:00/0000:00:02.0/usb2/2-1";
  g_autoptr (UMockdevTestbed) bed = umockdev_testbed_new ();
  g_autofree char *rec =
    g_build_filename (FIXTURE_DIR, "6.12", "usb-storage-ss-stick.umockdev", NULL);
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (VsmDevice) disk = NULL, part = NULL, event = NULL;
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  const char *const envp[] = { "ID_FS_TYPE=vfat", "ID_FS_UUID=55AA-0001", NULL };

  g_assert_true (umockdev_testbed_add_from_file (bed, rec, NULL));
  umockdev_testbed_set_attribute (bed, usb, "serial", "");
  client = g_udev_client_new (NULL);
  disk = vsm_device_new_from_spec (client, "/dev/sdc", NULL);
  part = vsm_device_new_from_spec (client, "/dev/sdc1", NULL);
  event = vsm_device_new_from_spec (client, "/dev/sdc1", NULL);
  g_assert_nonnull (disk);
  g_assert_nonnull (part);
  g_assert_null (disk->usb->serial);
  vsm_udev_device_from_event (event, envp);
  a = vsm_drive_identity (disk);
  b = vsm_drive_identity (part);
  c = vsm_drive_identity (event);
  g_assert_cmpstr (b, ==, "uuid:55AA-0001");
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (c, ==, b);
  g_assert_null (part->disk_fs_uuid);
  g_assert_cmpuint (disk->n_partitions, ==, 1);
  g_assert_cmpuint (part->n_partitions, ==, 1);

  /* the disk's own events: a change names it by its partition's
   * filesystem; at its "add" the partitions' events have not run (udevd
   * orders them after the disk's), and they are not looked up */
  {
    g_autoptr (GUdevDevice) udisk = g_udev_client_query_by_device_file (client, "/dev/sdc");
    const char *const change[] = { "ACTION=change", "ID_PART_TABLE_TYPE=dos", NULL };
    const char *const add[] = { "ACTION=add", "ID_PART_TABLE_TYPE=dos", NULL };
    g_autoptr (VsmDevice) on_change = vsm_device_new_from_udev (client, udisk, change, NULL, NULL);
    g_autoptr (VsmDevice) on_add = vsm_device_new_from_udev (client, udisk, add, NULL, NULL);

    g_assert_nonnull (on_change);
    g_assert_nonnull (on_add);
    g_assert_cmpstr (on_change->disk_fs_uuid, ==, "55AA-0001");
    g_assert_cmpstr (on_change->disk_fs_type, ==, "vfat");
    g_assert_null (on_add->disk_fs_uuid);
    g_assert_null (on_add->disk_fs_type);
  }
}

static void
make_attr (const char *dir, const char *name, const char *value)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, value, -1, NULL));
}

/* Disks and partitions found by reading sysfs directories (the udev
 * helper's cheap path): partitions in the order of their numbers, not of
 * their names; the disks under a USB interface, not their partitions and not
 * disks elsewhere. */
static void
test_sysfs_scan (void)
{
  g_autofree char *root = g_dir_make_tmp ("vsm-sysfs-XXXXXX", NULL);
  g_autofree char *iface = g_build_filename (root, "devices/usb1/1-1/1-1:1.0", NULL);
  g_autofree char *sda = g_build_filename (iface, "host0/target0:0:0/0:0:0:0/block/sda", NULL);
  g_autofree char *sdb = g_build_filename (iface, "host0/target0:0:0/0:0:0:1/block/sdb", NULL);
  g_autofree char *sdc = g_build_filename (root, "devices/usb1/1-2/1-2:1.0/block/sdc", NULL);
  g_autofree char *classdir = g_build_filename (root, "class/block", NULL);
  g_autoptr (GPtrArray) parts = NULL;
  g_autoptr (GPtrArray) none = NULL;
  const char *const links[][2] = {
    { "sda", "../../devices/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda" },
    { "sda2", "../../devices/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:0/block/sda/sda2" },
    { "sdb", "../../devices/usb1/1-1/1-1:1.0/host0/target0:0:0/0:0:0:1/block/sdb" },
    { "sdc", "../../devices/usb1/1-2/1-2:1.0/block/sdc" },
  };
  g_autofree char *p10 = NULL, *p2 = NULL;

  make_attr (sda, "dev", "8:0");
  p2 = g_build_filename (sda, "sda2", NULL);
  p10 = g_build_filename (sda, "sda10", NULL);
  make_attr (p10, "partition", "10");
  make_attr (p2, "partition", "2");
  {
    g_autofree char *queue = g_build_filename (sda, "queue", NULL);
    make_attr (queue, "rotational", "0");
  }
  make_attr (sdb, "dev", "8:16");
  make_attr (sdc, "dev", "8:32");
  g_assert_cmpint (g_mkdir_with_parents (classdir, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (links); i++)
    {
      g_autofree char *link = g_build_filename (classdir, links[i][0], NULL);
      g_assert_cmpint (symlink (links[i][1], link), ==, 0);
    }

  parts = vsm_sysfs_disk_partitions (sda);
  g_assert_cmpuint (parts->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (parts, 0), ==, p2);
  g_assert_cmpstr (g_ptr_array_index (parts, 1), ==, p10);
  none = vsm_sysfs_disk_partitions (sdb);
  g_assert_cmpuint (none->len, ==, 0);

  vsm_paths_set_root (VSM_ROOT_SYSFS, root);
  g_assert_cmpuint (vsm_sysfs_count_disks_under (iface), ==, 2);
  g_assert_cmpuint (vsm_sysfs_count_disks_under (sdc), ==, 0);
  vsm_paths_set_root (VSM_ROOT_SYSFS, NULL);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* The stamp of an answered file system: its name is what the rule's TEST
 * builds from the event; nothing but a plain name becomes a file. */
static void
test_udev_answer_stamp (void)
{
  const char *const good[] = { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=55AA-0001",
                               NULL };
  static const char *const bad[][5] = {
    { "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=55AA-0001", NULL },
    { "MAJOR=8", "MINOR=1x", "ID_FS_TYPE=vfat", "ID_FS_UUID=55AA-0001", NULL },
    { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=", NULL },
    { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", NULL },
    { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=../../etc/x", NULL },
    { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=$(reboot)", NULL },
    { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat,exec", "ID_FS_UUID=55AA-0001", NULL },
  };
  g_autofree char *stamp = vsm_udev_answer_stamp (good);
  g_autofree char *tested = rule_stamp_test (good);
  g_autofree char *made = NULL;

  g_assert_cmpstr (stamp, ==, "8:17:vfat:55AA-0001");
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
  made = vsm_path (VSM_ROOT_STATE, VSM_UDEV_ANSWERED_DIR, stamp, NULL);
  g_assert_cmpstr (tested, ==, made);
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *none = vsm_udev_answer_stamp (bad[i]);
      g_assert_null (none);
    }
}

static gboolean
stamp_exists (const char *name)
{
  g_autofree char *path = vsm_path (VSM_ROOT_STATE, VSM_UDEV_ANSWERED_DIR, name, NULL);
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* An answer leaves one stamp per device number; a new file system, an
 * unanswered event and the disk's removal take it away. */
static void
test_udev_note_answer (void)
{
  g_autofree char *root = g_dir_make_tmp ("vsm-answer-XXXXXX", NULL);
  const char *const one[] = { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=AAAA-0001",
                              NULL };
  const char *const two[] = { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=exfat", "ID_FS_UUID=BBBB-0002",
                              NULL };
  const char *const other[] = { "MAJOR=8", "MINOR=33", "ID_FS_TYPE=vfat", "ID_FS_UUID=CCCC-0003",
                                NULL };
  const char *const no_uuid[] = { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *of = NULL;
  g_autofree char *path = NULL;

  vsm_paths_set_root (VSM_ROOT_STATE, root);
  g_assert_true (vsm_udev_note_answer (one, "8:16", TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (vsm_udev_note_answer (other, "8:32", TRUE, &error));
  g_assert_true (stamp_exists ("8:17:vfat:AAAA-0001"));
  path = vsm_path (VSM_ROOT_STATE, VSM_UDEV_ANSWERED_DIR, "8:17:vfat:AAAA-0001", NULL);
  g_assert_true (g_file_get_contents (path, &of, NULL, NULL));
  g_assert_cmpstr (of, ==, "8:16");

  /* mkfs: the same device, another file system */
  g_assert_true (vsm_udev_note_answer (two, "8:16", TRUE, &error));
  g_assert_false (stamp_exists ("8:17:vfat:AAAA-0001"));
  g_assert_true (stamp_exists ("8:17:exfat:BBBB-0002"));
  /* answered, but nothing to name it by: no stamp, and the old one goes */
  g_assert_true (vsm_udev_note_answer (no_uuid, "8:16", TRUE, &error));
  g_assert_false (stamp_exists ("8:17:exfat:BBBB-0002"));
  /* not answered (knobs failed): no stamp */
  g_assert_true (vsm_udev_note_answer (one, "8:16", FALSE, &error));
  g_assert_false (stamp_exists ("8:17:vfat:AAAA-0001"));
  g_assert_true (stamp_exists ("8:33:vfat:CCCC-0003"));

  g_assert_true (vsm_udev_note_answer (one, "8:16", TRUE, &error));
  vsm_udev_forget_answers ("8:16");
  g_assert_false (stamp_exists ("8:17:vfat:AAAA-0001"));
  g_assert_true (stamp_exists ("8:33:vfat:CCCC-0003"));
  vsm_udev_forget_answers ("8:32");
  g_assert_false (stamp_exists ("8:33:vfat:CCCC-0003"));

  /* an unwritable state root: one clear error, nothing else */
  vsm_paths_set_root (VSM_ROOT_STATE, "/proc/vfat-smart-nonexistent");
  g_assert_false (vsm_udev_note_answer (one, "8:16", TRUE, &error));
  g_assert_nonnull (error);
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

static gboolean
running_under_asan (void)
{
#if defined(__SANITIZE_ADDRESS__)
  return TRUE;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return TRUE;
#else
  return FALSE;
#endif
#else
  return FALSE;
#endif
}

/* A FIFO, a link to an endless device or a huge file among the stamps
 * hangs nothing and reads nothing unbounded (run in a child with a time
 * and memory limit: the old code hung or read until memory ran out). */
static void
test_udev_hostile_answers_child (void)
{
  g_autofree char *root = g_dir_make_tmp ("vsm-answer-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (root, VSM_UDEV_ANSWERED_DIR, NULL);
  g_autofree char *fifo = g_build_filename (dir, "8:17:vfat:FIFO-0001", NULL);
  g_autofree char *zero = g_build_filename (dir, "8:17:vfat:ZERO-0001", NULL);
  g_autofree char *mine = g_build_filename (dir, "8:33:vfat:CCCC-0003", NULL);
  struct rlimit lim = { 512 * 1024 * 1024, 512 * 1024 * 1024 };

  /* AddressSanitizer reserves its shadow memory up front: there the time
   * limit alone has to tell a hang */
  if (!running_under_asan ())
    g_assert_cmpint (setrlimit (RLIMIT_AS, &lim), ==, 0);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  g_assert_true (g_file_set_contents (mine, "8:32", -1, NULL));
  vsm_paths_set_root (VSM_ROOT_STATE, root);
  vsm_udev_forget_answers ("8:32");
  g_assert_false (g_file_test (mine, G_FILE_TEST_EXISTS));
  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

static void
test_udev_hostile_answers (void)
{
  g_test_trap_subprocess ("/udev/hostile-answers/subprocess/child", 10 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* The stamp directory replaced by a link to another directory, or owned by
 * someone else: nothing there is deleted and no stamp is made there. */
static void
test_udev_answers_foreign_dir (void)
{
  g_autofree char *root = g_dir_make_tmp ("vsm-answer-XXXXXX", NULL);
  g_autofree char *elsewhere = g_build_filename (root, "elsewhere", NULL);
  g_autofree char *dir = g_build_filename (root, VSM_UDEV_ANSWERED_DIR, NULL);
  g_autofree char *victim = g_build_filename (elsewhere, "8:17:vfat:AAAA-0001", NULL);
  g_autofree char *made = g_build_filename (elsewhere, "8:17:vfat:BBBB-0002", NULL);
  const char *const two[] = { "MAJOR=8", "MINOR=17", "ID_FS_TYPE=vfat", "ID_FS_UUID=BBBB-0002",
                              NULL };
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (elsewhere, 0755), ==, 0);
  g_assert_true (g_file_set_contents (victim, "8:16", -1, NULL));
  g_assert_cmpint (symlink (elsewhere, dir), ==, 0);
  vsm_paths_set_root (VSM_ROOT_STATE, root);

  g_assert_false (vsm_udev_note_answer (two, "8:16", TRUE, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  vsm_udev_forget_answers ("8:16");
  g_assert_true (g_file_test (victim, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));

  /* a real directory, but another user's or writable by others */
  g_assert_cmpint (unlink (dir), ==, 0);
  g_assert_cmpint (g_mkdir (dir, 0777), ==, 0);
  g_assert_cmpint (chmod (dir, 0777), ==, 0);
  g_free (victim);
  victim = g_build_filename (dir, "8:17:vfat:AAAA-0001", NULL);
  g_assert_true (g_file_set_contents (victim, "8:16", -1, NULL));
  g_assert_false (vsm_udev_note_answer (two, "8:16", TRUE, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  vsm_udev_forget_answers ("8:16");
  g_assert_true (g_file_test (victim, G_FILE_TEST_EXISTS));
  g_free (made);
  made = g_build_filename (dir, "8:17:vfat:BBBB-0002", NULL);
  g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
  if (geteuid () == 0)
    {
      g_assert_cmpint (chmod (dir, 0755), ==, 0);
      g_assert_cmpint (chown (dir, 65534, 65534), ==, 0);
      g_assert_false (vsm_udev_note_answer (two, "8:16", TRUE, &error));
      g_clear_error (&error);
      vsm_udev_forget_answers ("8:16");
      g_assert_true (g_file_test (victim, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (made, G_FILE_TEST_EXISTS));
    }

  vsm_paths_set_root (VSM_ROOT_STATE, NULL);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* VSM_TEST_SHARD=K/N (meson runs the shards side by side; under valgrind this
 * test is most of the suite's time): the fixture cases with index % N == K,
 * the other tests in shard 0. Unset: everything. */
static gboolean
parse_shard (guint *k, guint *n)
{
  const char *s = g_getenv ("VSM_TEST_SHARD");
  guint64 a, b;
  char *end;

  *k = 0;
  *n = 1;
  if (s == NULL)
    return TRUE;
  a = g_ascii_strtoull (s, &end, 10);
  if (end == s || *end != '/')
    return FALSE;
  s = end + 1;
  b = g_ascii_strtoull (s, &end, 10);
  if (end == s || *end != '\0' || b == 0 || b > 64 || a >= b)
    return FALSE;
  *k = (guint)a;
  *n = (guint)b;
  return TRUE;
}

int
main (int argc, char **argv)
{
  guint shard, n_shards;

  g_test_init (&argc, &argv, NULL);
  if (!parse_shard (&shard, &n_shards))
    {
      g_printerr ("VSM_TEST_SHARD must be K/N with K < N <= 64\n");
      return 2;
    }

  if (shard == 0)
    {
      g_test_add_func ("/device/bad-specs", test_bad_specs);
      g_test_add_func ("/udev/env-line", test_udev_env_line);
      g_test_add_func ("/udev/answer-stamp", test_udev_answer_stamp);
      g_test_add_func ("/udev/note-answer", test_udev_note_answer);
      g_test_add_func ("/udev/hostile-answers", test_udev_hostile_answers);
      g_test_add_func ("/udev/hostile-answers/subprocess/child", test_udev_hostile_answers_child);
      g_test_add_func ("/udev/answers-foreign-dir", test_udev_answers_foreign_dir);
      g_test_add_func ("/device/identity-without-serial", test_identity_without_serial);
      g_test_add_func ("/device/sysfs-scan", test_sysfs_scan);
      for (gsize i = 0; i < G_N_ELEMENTS (disk_event_cases); i++)
        {
          const FixtureCase *c = &disk_event_cases[i];
          g_autofree char *path =
            g_strdup_printf ("/udev/%s/%s/disk-event-keeps-fs", c->kernel, c->fixture);
          g_autofree char *keeps =
            g_strdup_printf ("/udev/%s/%s/change-keeps-intent", c->kernel, c->fixture);
          g_test_add (path, Fixture, c, fixture_setup, test_udev_disk_event_keeps_fs,
                      fixture_teardown);
          g_test_add (keeps, Fixture, c, fixture_setup, test_udev_change_keeps_intent,
                      fixture_teardown);
          g_free (keeps);
          keeps = g_strdup_printf ("/mount/%s/%s/one-call", c->kernel, c->fixture);
          g_test_add (keeps, Fixture, c, fixture_setup, test_mount_one_call, fixture_teardown);
        }
    }
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const FixtureCase *c = &cases[i];
      g_autofree char *base = NULL;

      if (i % n_shards != shard)
        continue;
      base = g_strdup_printf ("/device/%s/%s-%s%d", c->kernel, c->fixture, c->kind, c->index);
      g_autofree char *p1 = g_strconcat (base, "/facts", NULL);
      g_autofree char *p2 = g_strconcat (base, "/plan", NULL);

      g_test_add (p1, Fixture, c, fixture_setup, test_facts, fixture_teardown);
      g_test_add (p2, Fixture, c, fixture_setup, test_plan, fixture_teardown);
      {
        g_autofree char *p5 = g_strconcat (base, "/udev-properties", NULL);
        g_autofree char *p6 = g_strconcat (base, "/udev-hostile-event", NULL);
        g_test_add (p5, Fixture, c, fixture_setup, test_udev_properties, fixture_teardown);
        g_test_add (p6, Fixture, c, fixture_setup, test_udev_hostile_event, fixture_teardown);
      }
      {
        g_autofree char *p7 = g_strconcat (base, "/event-properties", NULL);
        g_test_add (p7, Fixture, c, fixture_setup, test_event_properties, fixture_teardown);
      }
      if (g_str_equal (c->kernel, "6.12") && !g_str_equal (c->klass, "internal"))
        {
          g_autofree char *p3 = g_strconcat (base, "/apply-restore", NULL);
          g_autofree char *p4 = g_strconcat (base, "/apply-failure-rolls-back", NULL);
          g_test_add (p3, Fixture, c, fixture_setup, test_apply_restore, fixture_teardown);
          g_test_add (p4, Fixture, c, fixture_setup, test_apply_failure_rolls_back,
                      fixture_teardown);
        }
    }
  return g_test_run ();
}
