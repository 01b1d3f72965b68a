/* test-classify.c - classification and plan tables (pure functions)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-manager.h"

#include <string.h>

typedef struct
{
  const char *name;
  VsmTransport transport;
  const char *driver;
  const char *vid, *pid;
  guint speed;
  gboolean removable, rotational;
  guint64 size;
  const char *model;
  int lun;
  guint n_luns;
  gboolean superfloppy;
  guint n_partitions;
  VsmClass expect;
} ClassCase;

#define GiB (G_GUINT64_CONSTANT (1) << 30)

static const ClassCase class_cases[] = {
  { "bot-stick-ss", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "0781", "5581", 5000, TRUE, TRUE,
    32 * GiB, "Ultra", 0, 1, FALSE, 1, VSM_CLASS_USB_STICK },
  { "bot-stick-hs", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "46f4", "0001", 480, TRUE, TRUE,
    1 * GiB, "QEMU HARDDISK", 0, 1, FALSE, 1, VSM_CLASS_USB_STICK },
  { "bot-stick-superfloppy", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "46f4", "0001", 480, TRUE,
    TRUE, 1 * GiB, "QEMU HARDDISK", 0, 1, TRUE, 0, VSM_CLASS_USB_STICK },
  { "bot-stick-many-parts", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "46f4", "0001", 480, TRUE,
    TRUE, 1 * GiB, "QEMU HARDDISK", 0, 1, FALSE, 3, VSM_CLASS_USB_STICK },
  { "ums-realtek-stick", VSM_TRANSPORT_USB_STORAGE, "ums-realtek", "1234", "0001", 480, TRUE, TRUE,
    8 * GiB, "X", 0, 1, FALSE, 1, VSM_CLASS_USB_STICK },
  { "uas-ssd", VSM_TRANSPORT_UAS, "uas", "152d", "0583", 10000, FALSE, FALSE, 500 * GiB, "Generic",
    0, 1, FALSE, 1, VSM_CLASS_USB_SSD },
  { "uas-hdd", VSM_TRANSPORT_UAS, "uas", "152d", "0578", 5000, FALSE, TRUE, 2000 * GiB, "Generic",
    0, 1, FALSE, 1, VSM_CLASS_USB_HDD },
  { "uas-fast-stick", VSM_TRANSPORT_UAS, "uas", "0781", "5591", 5000, TRUE, FALSE, 128 * GiB,
    "Extreme Pro", 0, 1, FALSE, 1, VSM_CLASS_USB_STICK_UAS },
  { "bot-enclosure-big", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "152d", "2329", 480, FALSE, TRUE,
    1000 * GiB, "Ext HDD", 0, 1, FALSE, 1, VSM_CLASS_USB_HDD },
  { "bot-wd-hdd", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1058", "25a2", 5000, FALSE, TRUE,
    200 * GiB, "Elements", 0, 1, FALSE, 1, VSM_CLASS_USB_HDD },
  { "bot-ssd-by-name", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1234", "5678", 5000, FALSE, TRUE,
    250 * GiB, "Portable SSD", 0, 1, FALSE, 1, VSM_CLASS_USB_SSD },
  { "bot-small-nonremovable", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1234", "5678", 480, FALSE,
    TRUE, 16 * GiB, "Flash", 0, 1, FALSE, 1, VSM_CLASS_USB_STICK },
  { "bot-mid-nonremovable", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1234", "5678", 480, FALSE,
    FALSE, 300 * GiB, "Disk", 0, 1, FALSE, 1, VSM_CLASS_UNKNOWN },
  { "reader-lun1", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1234", "5678", 480, TRUE, TRUE,
    32 * GiB, "Disk", 1, 1, FALSE, 1, VSM_CLASS_CARD_READER },
  { "reader-2luns", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1234", "5678", 480, TRUE, TRUE,
    32 * GiB, "Disk", 0, 2, FALSE, 1, VSM_CLASS_CARD_READER },
  { "reader-by-name", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "1234", "5678", 480, TRUE, TRUE,
    32 * GiB, "SD/MMC Reader", 0, 1, FALSE, 1, VSM_CLASS_CARD_READER },
  { "reader-realtek", VSM_TRANSPORT_USB_STORAGE, "usb-storage", "0bda", "0129", 480, TRUE, TRUE,
    32 * GiB, "Disk", 0, 1, FALSE, 1, VSM_CLASS_CARD_READER },
  { "mmc", VSM_TRANSPORT_MMC, NULL, NULL, NULL, 0, FALSE, FALSE, 64 * GiB, NULL, -1, 1, FALSE, 1,
    VSM_CLASS_CARD_READER },
  { "nvme", VSM_TRANSPORT_NVME, NULL, NULL, NULL, 0, FALSE, FALSE, 1000 * GiB, NULL, -1, 1, FALSE,
    3, VSM_CLASS_INTERNAL },
  { "ata", VSM_TRANSPORT_ATA, NULL, NULL, NULL, 0, FALSE, TRUE, 1000 * GiB, NULL, 0, 1, FALSE, 3,
    VSM_CLASS_INTERNAL },
  { "virtio", VSM_TRANSPORT_VIRTIO, NULL, NULL, NULL, 0, FALSE, TRUE, 8 * GiB, NULL, -1, 1, TRUE, 0,
    VSM_CLASS_INTERNAL },
  { "loop", VSM_TRANSPORT_LOOP, NULL, NULL, NULL, 0, FALSE, TRUE, 1 * GiB, NULL, -1, 1, TRUE, 0,
    VSM_CLASS_INTERNAL },
  { "other-removable", VSM_TRANSPORT_OTHER, NULL, NULL, NULL, 0, TRUE, TRUE, 1 * GiB, NULL, -1, 1,
    FALSE, 1, VSM_CLASS_UNKNOWN },
  { "other-fixed", VSM_TRANSPORT_OTHER, NULL, NULL, NULL, 0, FALSE, TRUE, 1 * GiB, NULL, -1, 1,
    FALSE, 1, VSM_CLASS_INTERNAL },
};

static VsmDevice *
device_from_case (const ClassCase *c)
{
  VsmDevice *d = g_new0 (VsmDevice, 1);

  d->devnode = g_strdup ("/dev/sdz1");
  d->disk_node = g_strdup ("/dev/sdz");
  d->disk_name = g_strdup ("sdz");
  d->bdi = g_strdup ("8:240");
  d->transport = c->transport;
  if (vsm_transport_is_usb (c->transport))
    {
      d->usb = g_new0 (VsmUsbInfo, 1);
      d->usb->driver = g_strdup (c->driver);
      d->usb->vendor_id = g_strdup (c->vid);
      d->usb->product_id = g_strdup (c->pid);
      d->usb->speed_mbps = c->speed;
      d->usb->serial = g_strdup ("SERIAL1");
    }
  d->removable = c->removable;
  d->rotational = c->rotational;
  d->size_bytes = c->size;
  d->model = g_strdup (c->model);
  d->lun = c->lun;
  d->n_luns = c->n_luns;
  d->superfloppy = c->superfloppy;
  d->n_partitions = c->n_partitions;
  d->is_partition = !c->superfloppy;
  d->fs_type = g_strdup ("vfat");
  d->fs_uuid = g_strdup ("ABCD-1234");
  return d;
}

static void
test_classify_case (gconstpointer data)
{
  const ClassCase *c = data;
  g_autoptr (VsmDevice) d = device_from_case (c);
  g_autoptr (VsmClassification) cls = vsm_classify (d);

  g_assert_cmpstr (vsm_class_to_string (cls->klass), ==, vsm_class_to_string (c->expect));
  g_assert_cmpuint (cls->reasons->len, >, 0);
  g_assert_cmpuint (cls->confidence, >, 0);
  g_assert_cmpuint (cls->confidence, <=, 100);
}

static void
test_class_names (void)
{
  for (guint i = 0; i < VSM_CLASS_LAST; i++)
    {
      VsmClass back;
      g_assert_true (vsm_class_from_string (vsm_class_to_string (i), &back));
      g_assert_cmpint (back, ==, i);
    }
  g_assert_false (vsm_class_from_string ("usb-floppy", &(VsmClass){ 0 }));
  g_assert_false (vsm_class_from_string (NULL, &(VsmClass){ 0 }));
}

/* the reason names what told: the model's own words, not the vendor's hint */
static void
test_classify_names_the_model (void)
{
  const ClassCase ssd = { "sandisk-ssd",
                          VSM_TRANSPORT_UAS,
                          "uas",
                          "0781",
                          "55ae",
                          10000,
                          FALSE,
                          FALSE,
                          1000 * GiB,
                          "Extreme Portable SSD",
                          0,
                          1,
                          FALSE,
                          1,
                          VSM_CLASS_USB_SSD };
  g_autoptr (VsmDevice) d = device_from_case (&ssd);
  g_autoptr (VsmClassification) cls = vsm_classify (d);
  gboolean named = FALSE;

  g_assert_cmpint (cls->klass, ==, VSM_CLASS_USB_SSD);
  for (guint i = 0; i < cls->reasons->len; i++)
    {
      const char *r = ((VsmReason *)g_ptr_array_index (cls->reasons, i))->text;
      named |= strstr (r, "(Extreme Portable SSD)") != NULL;
      g_assert_null (strstr (r, "SSD (SanDisk)"));
    }
  g_assert_true (named);
}

static VsmKernel *
fake_kernel (gboolean caps, VsmFlushFix fix)
{
  VsmKernel *k = g_new0 (VsmKernel, 1);
  const char *names_61[] = { "min_ratio", "max_ratio", NULL };
  const char *names_612[] = { "min_ratio", "max_ratio", "min_ratio_fine", "max_ratio_fine",
                              "min_bytes", "max_bytes", "strict_limit",   NULL };

  k->release = g_strdup (caps ? "6.12.57+deb12-amd64" : "6.1.0-40-amd64");
  k->bdi_knobs = g_ptr_array_new_with_free_func (g_free);
  for (const char **n = caps ? names_612 : names_61; *n; n++)
    g_ptr_array_add (k->bdi_knobs, g_strdup (*n));
  k->has_strict_limit = k->has_max_bytes = caps;
  k->flush_fix = fix;
  k->flush_fix_reason = g_strdup ("test");
  return k;
}

typedef struct
{
  const char *name;
  VsmClass klass;
  const char *fs;
  gboolean caps;
  gboolean allow_global;
  VsmFlushMode policy_mode;
  VsmFlushMode expect_mode;
  gboolean expect_managed;
  const char *expect_options;
  const char *expect_max_bytes; /* NULL: no such knob */
  const char *expect_vm_dirty_bytes;
} PlanCase;

static const PlanCase plan_cases[] = {
  { "stick-612", VSM_CLASS_USB_STICK, "vfat", TRUE, FALSE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_DIRTY_CAP, TRUE, "shortname=mixed,utf8=1,showexec", "9437184", NULL },
  { "stick-61", VSM_CLASS_USB_STICK, "vfat", FALSE, FALSE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_KERNEL_FLUSH, TRUE, "shortname=mixed,utf8=1,showexec,flush", NULL, NULL },
  { "stick-61-global", VSM_CLASS_USB_STICK, "vfat", FALSE, TRUE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_DIRTY_CAP, TRUE, "shortname=mixed,utf8=1,showexec", NULL, "9437184" },
  { "exfat-612", VSM_CLASS_USB_STICK, "exfat", TRUE, FALSE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_DIRTY_CAP, TRUE, "iocharset=utf8,errors=remount-ro", "9437184", NULL },
  { "exfat-61", VSM_CLASS_USB_STICK, "exfat", FALSE, FALSE, VSM_FLUSH_MODE_AUTO, VSM_FLUSH_MODE_OFF,
    TRUE, "iocharset=utf8,errors=remount-ro", NULL, NULL },
  { "exfat-kernel-flush", VSM_CLASS_USB_STICK, "exfat", TRUE, FALSE, VSM_FLUSH_MODE_KERNEL_FLUSH,
    VSM_FLUSH_MODE_DIRTY_CAP, TRUE, "iocharset=utf8,errors=remount-ro", "9437184", NULL },
  { "ssd-612", VSM_CLASS_USB_SSD, "vfat", TRUE, FALSE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_DIRTY_CAP, TRUE, "shortname=mixed,utf8=1,showexec", "99614720", NULL },
  { "internal", VSM_CLASS_INTERNAL, "vfat", TRUE, FALSE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_KERNEL_FLUSH, FALSE, "shortname=mixed,utf8=1,showexec,flush", NULL, NULL },
  { "policy-sync", VSM_CLASS_USB_STICK, "vfat", TRUE, FALSE, VSM_FLUSH_MODE_SYNC,
    VSM_FLUSH_MODE_SYNC, TRUE, "shortname=mixed,utf8=1,showexec,sync", NULL, NULL },
  { "policy-off", VSM_CLASS_USB_HDD, "vfat", TRUE, FALSE, VSM_FLUSH_MODE_OFF, VSM_FLUSH_MODE_OFF,
    TRUE, "shortname=mixed,utf8=1,showexec", NULL, NULL },
  { "not-fat", VSM_CLASS_USB_STICK, "ext4", TRUE, FALSE, VSM_FLUSH_MODE_AUTO,
    VSM_FLUSH_MODE_DIRTY_CAP, TRUE, NULL, "9437184", NULL },
};

static void
test_plan_case (gconstpointer data)
{
  const PlanCase *c = data;
  g_autoptr (VsmDevice) d = device_from_case (&class_cases[0]);
  g_autoptr (VsmKernel) k = fake_kernel (c->caps, VSM_FLUSH_FIX_ABSENT);
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmClassification) cls = vsm_classify (d);
  g_autoptr (VsmPlan) plan = NULL;

  g_free (d->fs_type);
  d->fs_type = g_strdup (c->fs);
  cls->klass = c->klass;
  p->allow_global_knobs = c->allow_global;
  p->flush_mode = c->policy_mode;

  plan = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_cmpstr (vsm_flush_mode_to_string (plan->flush_mode), ==,
                   vsm_flush_mode_to_string (c->expect_mode));
  g_assert_cmpint (plan->managed, ==, c->expect_managed);
  g_assert_cmpstr (plan->mount_options, ==, c->expect_options);
  g_assert_cmpstr (vsm_plan_get_knob (plan, "max_bytes"), ==, c->expect_max_bytes);
  g_assert_cmpstr (vsm_plan_get_knob (plan, "vm.dirty_bytes"), ==, c->expect_vm_dirty_bytes);
  if (c->expect_max_bytes)
    {
      /* max_bytes is written before strict_limit */
      VsmKnob *first = g_ptr_array_index (plan->knobs, 0);
      VsmKnob *second = g_ptr_array_index (plan->knobs, 1);
      g_assert_cmpstr (first->name, ==, "max_bytes");
      g_assert_cmpstr (second->name, ==, "strict_limit");
      g_assert_cmpstr (second->value, ==, "1");
    }
  /* a cap comes with its mechanism, and without one there are no knobs */
  g_assert_cmpint (plan->cap_bytes > 0, ==, plan->cap_via != NULL);
  g_assert_cmpint (plan->knobs->len > 0, ==, plan->cap_via != NULL);
  if (plan->cap_via)
    g_assert_cmpstr (plan->cap_via, ==, c->caps ? "per-device" : "global");
  /* the managed decision carries its reason */
  g_assert_cmpint (plan->left_alone_reason == NULL, ==, plan->managed);
  if (plan->mount_options)
    {
      /* udisks gets the plan's options with its own uid/gid placeholders */
      g_autofree char *expect = g_strconcat ("uid=$UID,gid=$GID,", plan->mount_options, NULL);
      g_assert_cmpstr (plan->udisks_defaults, ==, expect);
    }
  else
    g_assert_null (plan->udisks_defaults);
  g_assert_cmpuint (plan->reasons->len, >, 0);
}

static void
test_plan_policy_overrides (void)
{
  g_autoptr (VsmDevice) d = device_from_case (&class_cases[0]);
  g_autoptr (VsmKernel) k = fake_kernel (TRUE, VSM_FLUSH_FIX_PRESENT);
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmClassification) cls = vsm_classify (d);
  g_autoptr (VsmPlan) a = NULL, b = NULL, c = NULL, e = NULL, f = NULL, g = NULL;
  gboolean said;
  VsmOverrides measured = { .bandwidth = 1000000000, .bandwidth_source = "test" };
  VsmOverrides person = { .flush_mode = VSM_FLUSH_MODE_KERNEL_FLUSH, .flush_mode_why = "-o flush" };

  /* per-class mode wins over the global mode */
  p->flush_mode = VSM_FLUSH_MODE_SYNC;
  p->class_mode[VSM_CLASS_USB_STICK] = VSM_FLUSH_MODE_KERNEL_FLUSH;
  a = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_cmpint (a->flush_mode, ==, VSM_FLUSH_MODE_KERNEL_FLUSH);
  g_assert_cmpuint (a->knobs->len, ==, 0);

  /* bandwidth: measured > policy > table; cap clamped */
  p->flush_mode = VSM_FLUSH_MODE_AUTO;
  p->class_mode[VSM_CLASS_USB_STICK] = VSM_FLUSH_MODE_AUTO;
  p->class_bandwidth[VSM_CLASS_USB_STICK] = 5000000;
  b = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_cmpuint (b->bandwidth, ==, 5000000);
  /* a stick while files are written: a quarter of 2 s, 2.5 MB, the 8 MiB
   * minimum */
  g_assert_cmpfloat (b->cap_seconds, ==, 0.5);
  g_assert_cmpuint (b->cap_bytes, ==, 8 * 1024 * 1024);
  c = vsm_plan_compute (d, cls, p, k, &measured);
  g_assert_cmpfloat (c->cap_seconds, ==, 0.5);
  g_assert_cmpuint (c->cap_bytes, ==, p->cap_max_bytes); /* 500 MB, clamped */
  g_clear_pointer (&c, vsm_plan_free);
  /* while the daemon paces one big file: all of the 2 s, clamped */
  measured.one_big_file = TRUE;
  c = vsm_plan_compute (d, cls, p, k, &measured);
  g_assert_cmpfloat (c->cap_seconds, ==, 2);
  g_assert_cmpuint (c->cap_bytes, ==, p->cap_max_bytes);
  g_clear_pointer (&c, vsm_plan_free);
  /* ... only with a measured bandwidth: the admin's class-bandwidth is none */
  c = vsm_plan_compute (d, cls, p, k, &(VsmOverrides){ .one_big_file = TRUE });
  g_assert_cmpfloat (c->cap_seconds, ==, 0.5);

  /* disabled and ignored devices: udisks defaults, no knobs */
  p->enabled = FALSE;
  e = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_false (e->managed);
  g_assert_nonnull (strstr (e->left_alone_reason, "enabled=false"));
  g_assert_cmpuint (e->knobs->len, ==, 0);
  g_assert_cmpstr (e->mount_options, ==, "shortname=mixed,utf8=1,showexec,flush");
  p->enabled = TRUE;
  g_strfreev (p->ignore_devices);
  p->ignore_devices = g_strsplit ("0781:5581", ",", -1);
  f = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_false (f->managed);
  g_assert_nonnull (strstr (f->left_alone_reason, "0781:5581"));

  /* a person's -o flush wins over every policy, and says so */
  g_strfreev (p->ignore_devices);
  p->ignore_devices = g_new0 (char *, 1);
  p->class_mode[VSM_CLASS_USB_STICK] = VSM_FLUSH_MODE_DIRTY_CAP;
  g = vsm_plan_compute (d, cls, p, k, &person);
  g_assert_cmpint (g->flush_mode, ==, VSM_FLUSH_MODE_KERNEL_FLUSH);
  g_assert_cmpuint (g->knobs->len, ==, 0);
  said = FALSE;
  for (guint i = 0; i < g->reasons->len; i++)
    said |= g_str_equal (((VsmReason *)g_ptr_array_index (g->reasons, i))->text, "-o flush");
  g_assert_true (said);
}

/* the starting value is bounded by the USB link: a UAS drive at 480 Mb/s
 * cannot write 80 MB/s */
static void
test_plan_link_bound (void)
{
  g_autoptr (VsmDevice) d = device_from_case (&class_cases[0]);
  g_autoptr (VsmKernel) k = fake_kernel (TRUE, VSM_FLUSH_FIX_ABSENT);
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmClassification) cls = vsm_classify (d);
  g_autoptr (VsmPlan) slow = NULL, fast = NULL, stick = NULL;

  cls->klass = VSM_CLASS_USB_SSD;
  d->usb->speed_mbps = 480;
  slow = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_cmpuint (slow->bandwidth, ==, 35000000);
  g_assert_nonnull (strstr (slow->bandwidth_source, "480 Mb/s USB link"));
  d->usb->speed_mbps = 5000;
  fast = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_cmpuint (fast->bandwidth, ==, 200000000);
  g_assert_null (strstr (fast->bandwidth_source, "link"));
  /* a 20 MB/s stick at 480 Mb/s is below the link: unchanged */
  cls->klass = VSM_CLASS_USB_STICK;
  d->usb->speed_mbps = 480;
  stick = vsm_plan_compute (d, cls, p, k, NULL);
  g_assert_cmpuint (stick->bandwidth, ==, 20000000);
}

/* the daemon paces one big file where a metadata write costs: every
 * capped class but the SSD (bench group h-uas-ssd-big-b: 1.08x udisks'
 * default with pacing) and the hard disk (x-pace-hdd: more jumps and drive
 * time than the cap alone); never without a cap */
static void
test_plan_pacing (void)
{
  static const struct
  {
    VsmClass klass;
    gboolean pace;
  } cases[] = {
    { VSM_CLASS_USB_STICK, TRUE },   { VSM_CLASS_USB_STICK_UAS, TRUE },
    { VSM_CLASS_CARD_READER, TRUE }, { VSM_CLASS_USB_HDD, FALSE },
    { VSM_CLASS_UNKNOWN, TRUE },     { VSM_CLASS_USB_SSD, FALSE },
    { VSM_CLASS_INTERNAL, FALSE },
  };
  g_autoptr (VsmDevice) d = device_from_case (&class_cases[0]);
  g_autoptr (VsmKernel) caps = fake_kernel (TRUE, VSM_FLUSH_FIX_ABSENT);
  g_autoptr (VsmKernel) old = fake_kernel (FALSE, VSM_FLUSH_FIX_ABSENT);
  g_autoptr (VsmPolicy) p = vsm_policy_new_default ();
  g_autoptr (VsmClassification) cls = vsm_classify (d);
  g_autoptr (VsmPlan) flush = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (VsmPlan) plan = NULL;
      gboolean said = FALSE;

      cls->klass = cases[i].klass;
      plan = vsm_plan_compute (d, cls, p, caps, NULL);
      g_assert_cmpint (plan->pace_writeback, ==, cases[i].pace);
      for (guint j = 0; j < plan->reasons->len; j++)
        said = said || g_str_has_prefix (((VsmReason *)g_ptr_array_index (plan->reasons, j))->text,
                                         "pacing: ");
      /* a capped drive says why it is paced or not */
      g_assert_cmpint (said, ==, plan->cap_bytes > 0);
    }
  /* Linux < 6.2 without the global knobs: flush, no cap, no pacing */
  cls->klass = VSM_CLASS_USB_STICK;
  flush = vsm_plan_compute (d, cls, p, old, NULL);
  g_assert_cmpuint (flush->cap_bytes, ==, 0);
  g_assert_false (flush->pace_writeback);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/classify/names", test_class_names);
  g_test_add_func ("/classify/reason-names-the-model", test_classify_names_the_model);
  for (gsize i = 0; i < G_N_ELEMENTS (class_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/classify/table/%s", class_cases[i].name);
      g_test_add_data_func (path, &class_cases[i], test_classify_case);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (plan_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/plan/table/%s", plan_cases[i].name);
      g_test_add_data_func (path, &plan_cases[i], test_plan_case);
    }
  g_test_add_func ("/plan/policy-overrides", test_plan_policy_overrides);
  g_test_add_func ("/plan/link-bound", test_plan_link_bound);
  g_test_add_func ("/plan/pacing", test_plan_pacing);
  return g_test_run ();
}
