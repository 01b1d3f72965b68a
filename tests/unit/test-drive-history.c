/* test-drive-history.c - the per-drive history: identity, parser on real,
 * truncated and hostile input, bounds, and the plan starting from it
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-drive-history.h"
#include "vsm-manager.h"
#include "vsm-paths.h"
#include "vsm-state.h"
#include "vsm-util.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* as the daemon wrote it after two mounts of a 20 MB/s stick */
static const char real_file[] = "[drive usb:0781:5581:4C530001230509117444]\n"
                                "bandwidth=19968000\n"
                                "updated=1764580000000000\n"
                                "mounts=1764570000000000:20123000:39845888:134217728:3.200;"
                                "1764580000000000:19968000:39845888:100663296:2.750;\n"
                                "\n"
                                "[drive uuid:ABCD-1234]\n"
                                "bandwidth=0\n"
                                "updated=1764500000000000\n"
                                "mounts=1764500000000000:0:39845888:0:-1.000;\n";

static void
test_parse_real (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) d = vsm_drive_history_parse (real_file, strlen (real_file), NULL, &error);
  VsmDriveHistory *h;
  g_autofree char *text = NULL, *again = NULL;
  g_autoptr (GPtrArray) d2 = NULL;
  gsize len;

  g_assert_no_error (error);
  g_assert_cmpuint (d->len, ==, 2);
  h = g_ptr_array_index (d, 0);
  g_assert_cmpstr (h->identity, ==, "usb:0781:5581:4C530001230509117444");
  g_assert_cmpuint (h->bandwidth, ==, 19968000);
  g_assert_cmpuint (h->mounts->len, ==, 2);
  g_assert_cmpuint (g_array_index (h->mounts, VsmDriveMount, 1).bytes_written, ==, 100663296);
  g_assert_cmpfloat (g_array_index (h->mounts, VsmDriveMount, 1).seconds_to_safe, ==, 2.75);
  text = vsm_drive_history_describe (h);
  g_assert_cmpstr (text, ==, "last 2 mounts: 20.0 MB/s");
  h = g_ptr_array_index (d, 1);
  g_assert_cmpfloat (g_array_index (h->mounts, VsmDriveMount, 0).seconds_to_safe, ==, -1);

  /* round trip */
  again = vsm_drive_history_serialize (d, &len);
  d2 = vsm_drive_history_parse (again, len, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (d2->len, ==, 2);
  g_assert_cmpuint (((VsmDriveHistory *)g_ptr_array_index (d2, 0))->bandwidth, ==, 19968000);
}

/* One parse: the drives, and how many entries were skipped */
static GPtrArray *
parse (const char *text, gsize len, guint *n_skipped)
{
  g_autoptr (GPtrArray) problems = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  GPtrArray *d = vsm_drive_history_parse (text, len, problems, &error);

  g_assert_no_error (error);
  g_assert_nonnull (d);
  for (guint i = 0; i < problems->len; i++)
    g_test_message ("skipped: %s", (char *)g_ptr_array_index (problems, i));
  *n_skipped = problems->len;
  return d;
}

/* a bad entry costs only itself: the drive keeps the rest */
static void
test_parse_bad_entries (void)
{
  static const struct
  {
    const char *text;
    guint64 bandwidth; /* what the drive keeps */
    guint mounts;
  } cases[] = {
    /* truncated in the middle of a mount: the mount goes */
    { "[drive usb:1:2:3]\nbandwidth=1000000\nupdated=1\nmounts=1:2:3:4:5;1:2:3", 1000000, 1 },
    /* no bandwidth, or numbers that are not: learned again from the newest mount */
    { "[drive usb:1:2:3]\nupdated=1\nmounts=7:5000000:1:1:1;\n", 5000000, 1 },
    { "[drive usb:1:2:3]\nbandwidth=-5\nupdated=1\nmounts=\n", 0, 0 },
    { "[drive usb:1:2:3]\nbandwidth=1e9\nupdated=1\nmounts=1:3000000:1:1:1;\n", 3000000, 1 },
    { "[drive usb:1:2:3]\nbandwidth=99999999999999999999999\nupdated=x\nmounts=\n", 0, 0 },
    { "[drive usb:1:2:3]\nbandwidth=100\nupdated=1\nmounts=1:2:3:4:nan;2:2:3:4:1;\n", 100, 1 },
    { "[drive usb:1:2:3]\nbandwidth=100\nupdated=1\nmounts=1:2:3:4:5:6;x;;2:2:3:4:1\n", 100, 1 },
    { "[drive usb:1:2:3]\nbandwidth=100\nupdated=1\nmounts=1:99999999999:3:4:5;\n", 100, 0 },
    /* more than the policy's maximum bandwidth */
    { "[drive usb:1:2:3]\nbandwidth=10000000001\nupdated=1\nmounts=\n", 0, 0 },
    /* binary in the middle: that line goes */
    { "[drive usb:1:2:3]\nbandwidth=100\n\x01\xff\xfe\x80garbage\nupdated=1\nmounts=1:2:3:4:5;\n",
      100, 1 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint skipped = 0;
      g_autoptr (GPtrArray) d = parse (cases[i].text, strlen (cases[i].text), &skipped);
      VsmDriveHistory *h;

      g_test_message ("case %zu", i);
      g_assert_cmpuint (d->len, ==, 1);
      h = g_ptr_array_index (d, 0);
      g_assert_cmpstr (h->identity, ==, "usb:1:2:3");
      g_assert_cmpuint (h->bandwidth, ==, cases[i].bandwidth);
      g_assert_cmpuint (h->mounts->len, ==, cases[i].mounts);
      g_assert_cmpuint (skipped, >, 0);
    }
}

static void
test_parse_truncated_and_hostile (void)
{
  /* the identity is the entry: a group that is not a drive of ours goes */
  static const char *const bad_groups[] = {
    "[drive /etc/passwd]\nbandwidth=100\nupdated=1\nmounts=\n",
    "[drive usb:a b]\nbandwidth=100\nupdated=1\nmounts=\n",
    "[drive ]\nbandwidth=100\nupdated=1\nmounts=\n",
  };
  /* not a key file at all: nothing, and no error (the next record rewrites it) */
  static const char *const not_key_files[] = { "\x01\x02garbage", "bandwidth=1\n", "[unclosed\n",
                                               "[drive usb:1:2:3]]\nbandwidth=1\n" };
  static const char good[] =
    "[drive uuid:GOOD]\nbandwidth=100000\nupdated=1\nmounts=1:100000:1:1:1\n";
  g_autoptr (GString) many = g_string_new ("");
  g_autoptr (GString) nul = g_string_new (good);
  guint skipped;

  for (gsize i = 0; i < G_N_ELEMENTS (bad_groups); i++)
    {
      g_autoptr (GString) text = g_string_new (bad_groups[i]);
      g_autoptr (GPtrArray) d = NULL;
      g_string_append (text, good);
      d = parse (text->str, text->len, &skipped);
      g_assert_cmpuint (d->len, ==, 1);
      g_assert_cmpstr (((VsmDriveHistory *)g_ptr_array_index (d, 0))->identity, ==, "uuid:GOOD");
      g_assert_cmpuint (skipped, ==, 1);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (not_key_files); i++)
    {
      g_autoptr (GPtrArray) d = parse (not_key_files[i], strlen (not_key_files[i]), &skipped);
      g_assert_cmpuint (d->len, ==, 0);
      g_assert_cmpuint (skipped, >, 0);
    }
  /* a NUL byte: the line goes, the rest stays */
  static const char with_nul[] = "[drive uuid:NUL]\nbandwidth=1\0002\nupdated=1\nmounts=\n"
                                 "[drive uuid:N\0UL]\nbandwidth=5\n";
  g_string_append_len (nul, with_nul, sizeof with_nul - 1);
  {
    g_autoptr (GPtrArray) d = parse (nul->str, nul->len, &skipped);
    g_assert_cmpuint (d->len, ==, 2);
    g_assert_cmpuint (((VsmDriveHistory *)g_ptr_array_index (d, 1))->bandwidth, ==, 0);
  }
  /* empty: no drives */
  {
    g_autoptr (GPtrArray) d = parse ("", 0, &skipped);
    g_assert_cmpuint (d->len, ==, 0);
    g_assert_cmpuint (skipped, ==, 0);
  }
  /* 1000 groups: at most the bound is read; 100 mounts: the newest 8 */
  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (many, "[drive uuid:%u]\nbandwidth=100000\nupdated=%u\nmounts=\n", i, i);
  g_string_append (many, "[drive uuid:many-mounts]\nbandwidth=100000\nupdated=1\nmounts=");
  for (guint i = 0; i < 100; i++)
    g_string_append_printf (many, "%u:1000000:1:1:1;", i);
  {
    g_autoptr (GPtrArray) d = parse (many->str, many->len, &skipped);
    g_assert_cmpuint (d->len, ==, VSM_DRIVE_HISTORY_MAX_DRIVES);
  }
  {
    const char *tail = strstr (many->str, "[drive uuid:many-mounts]");
    g_autoptr (GPtrArray) d = parse (tail, strlen (tail), &skipped);
    VsmDriveHistory *h = g_ptr_array_index (d, 0);
    g_assert_cmpuint (h->mounts->len, ==, VSM_DRIVE_HISTORY_MAX_MOUNTS);
    g_assert_cmpint (g_array_index (h->mounts, VsmDriveMount, 0).at_usec, ==, 92);
  }
}

static guint64
bandwidth_of (GPtrArray *d, const char *identity)
{
  for (guint i = 0; i < d->len; i++)
    {
      VsmDriveHistory *h = g_ptr_array_index (d, i);
      if (g_str_equal (h->identity, identity))
        return h->bandwidth;
    }
  return G_MAXUINT64;
}

/* a header GKeyFile would not take ends the group before it: the keys
 * after it are no other drive's; an indented header is one (as GKeyFile
 * reads it); a line GKeyFile refuses (an empty key, "[]") never reaches
 * it, so one such line does not cost the whole file */
static void
test_parse_headers_and_keys (void)
{
  static const char a[] = "[drive uuid:A]\nbandwidth=100000\nupdated=1\nmounts=\n";
  static const char *const cases[] = {
    "[drive uuid:B\nbandwidth=200000\nupdated=2\n",
    "[drive uuid:B]x\nbandwidth=200000\nupdated=2\n",
    "[]\nbandwidth=200000\nupdated=2\n",
    " =5\n\t  =6\n",
    "[drive uuid:B]\f\nbandwidth=200000\n",
    " Encoding =2\n",
  };
  guint skipped;

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strconcat (a, cases[i], NULL);
      g_autoptr (GPtrArray) d = parse (text, strlen (text), &skipped);
      g_assert_cmpuint (d->len, ==, 1);
      g_assert_cmpuint (bandwidth_of (d, "uuid:A"), ==, 100000);
      g_assert_cmpuint (skipped, >, 0);
    }
  {
    g_autofree char *text =
      g_strconcat (a, "  [drive uuid:B]\nbandwidth=200000\nupdated=2\n", NULL);
    g_autoptr (GPtrArray) d = parse (text, strlen (text), &skipped);
    g_assert_cmpuint (d->len, ==, 2);
    g_assert_cmpuint (bandwidth_of (d, "uuid:A"), ==, 100000);
    g_assert_cmpuint (bandwidth_of (d, "uuid:B"), ==, 200000);
  }
}

/* more than the bound with a NUL byte early: the cut is still at the
 * last line end within the bound, not before the NUL */
static void
test_parse_huge_with_nul (void)
{
  g_autoptr (GString) huge = g_string_new ("[drive uuid:FIRST]\nbandwidth=100000\nupdated=1\n"
                                           "mounts=\n[filler]\nx=a");
  g_autoptr (GPtrArray) d = NULL;
  guint skipped;

  g_string_append_c (huge, '\0');
  g_string_append (huge,
                   "b\n[drive uuid:SECOND]\nbandwidth=200000\nupdated=1\nmounts=\n[filler]\n");
  while (huge->len < 3 * VSM_DRIVE_HISTORY_MAX_BYTES)
    g_string_append (huge, "x=0123456789012345678901234567890123456789\n");
  d = parse (huge->str, huge->len, &skipped);
  g_assert_cmpuint (d->len, ==, 2);
  g_assert_cmpuint (bandwidth_of (d, "uuid:SECOND"), ==, 200000);
}

/* more than the bound: only the first VSM_DRIVE_HISTORY_MAX_BYTES count,
 * cut at a line's end; the drives in them stay */
static void
test_parse_huge (void)
{
  g_autoptr (GString) huge = g_string_new ("[drive uuid:FIRST]\nbandwidth=100000\nupdated=1\n"
                                           "mounts=1:100000:1:1:1\n[filler]\n");
  g_autoptr (GPtrArray) d = NULL;
  guint skipped;

  while (huge->len < 3 * VSM_DRIVE_HISTORY_MAX_BYTES)
    g_string_append (huge, "x=0123456789012345678901234567890123456789\n");
  g_string_append (huge, "[drive uuid:LAST]\nbandwidth=1\nupdated=1\nmounts=\n");
  d = parse (huge->str, huge->len, &skipped);
  g_assert_cmpuint (d->len, ==, 1);
  g_assert_cmpstr (((VsmDriveHistory *)g_ptr_array_index (d, 0))->identity, ==, "uuid:FIRST");
  g_assert_cmpuint (skipped, >, 0);
}

static void
test_identity (void)
{
  VsmDevice d = { 0 };
  VsmUsbInfo usb = { .vendor_id = "0781", .product_id = "5581", .serial = "4C53 0001\n[x]" };
  g_autofree char *a = NULL, *b = NULL, *c = NULL;
  g_autofree char *long_serial = g_strnfill (5000, 'A');

  g_assert_null (vsm_drive_identity (&d));
  d.fs_uuid = "ABCD-1234";
  b = vsm_drive_identity (&d);
  g_assert_cmpstr (b, ==, "uuid:ABCD-1234");
  d.usb = &usb;
  a = vsm_drive_identity (&d);
  g_assert_cmpstr (a, ==, "usb:0781:5581:4C53%200001%0A%5Bx%5D");
  g_assert_true (vsm_drive_identity_is_valid (a));
  usb.serial = long_serial;
  c = vsm_drive_identity (&d);
  g_assert_cmpuint (strlen (c), <=, 200);
  g_assert_true (vsm_drive_identity_is_valid (c));
  g_assert_false (vsm_drive_identity_is_valid ("usb:../../x y"));
  g_assert_false (vsm_drive_identity_is_valid ("serial:1"));
  g_assert_false (vsm_drive_identity_is_valid (NULL));
}

typedef struct
{
  char *root;
} Tree;

static void
tree_setup (Tree *t, gconstpointer data)
{
  g_autofree char *state = NULL, *lib = NULL, *sys = NULL;

  t->root = g_dir_make_tmp ("vsm-history-XXXXXX", NULL);
  state = g_build_filename (t->root, "run", NULL);
  lib = g_build_filename (t->root, "lib", NULL);
  sys = g_build_filename (t->root, "sys", NULL);
  g_mkdir (sys, 0755);
  vsm_paths_set_root (VSM_ROOT_STATE, state);
  vsm_paths_set_root (VSM_ROOT_LIB, lib);
  vsm_paths_set_root (VSM_ROOT_SYSFS, sys);
  vsm_paths_set_root (VSM_ROOT_PROCFS, sys);
  vsm_paths_set_root (VSM_ROOT_DEBUGFS, sys);
}

static void
tree_teardown (Tree *t, gconstpointer data)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", t->root);
  g_assert_cmpint (system (cmd), ==, 0);
  for (VsmRoot r = 0; r < VSM_ROOT_LAST; r++)
    vsm_paths_set_root (r, NULL);
  g_free (t->root);
}

static void
test_record_and_forget (Tree *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmDriveHistory) h = NULL, none = NULL;
  VsmDriveMount m = { .at_usec = 1,
                      .bandwidth = 18200000,
                      .cap_bytes = 34 << 20,
                      .bytes_written = 1 << 27,
                      .seconds_to_safe = 2.5 };
  VsmDriveMount idle = { .at_usec = 2, .cap_bytes = 34 << 20, .seconds_to_safe = -1 };
  g_autofree char *path = g_build_filename (t->root, "lib", "drives.history", NULL);
  struct stat st;

  none = vsm_drive_history_load ("usb:1:2:3", &error);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_true (vsm_drive_history_record ("usb:1:2:3", &m, &error));
  g_assert_no_error (error);
  /* a mount that measured nothing keeps what was learned */
  g_assert_true (vsm_drive_history_record ("usb:1:2:3", &idle, &error));
  for (guint i = 0; i < 20; i++)
    g_assert_true (vsm_drive_history_record ("usb:1:2:3", &idle, NULL));
  h = vsm_drive_history_load ("usb:1:2:3", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (h->bandwidth, ==, 18200000);
  g_assert_cmpuint (h->mounts->len, ==, VSM_DRIVE_HISTORY_MAX_MOUNTS);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);

  /* bounded in drives: the least recently updated go */
  for (guint i = 0; i < VSM_DRIVE_HISTORY_MAX_DRIVES + 5; i++)
    {
      g_autofree char *id = g_strdup_printf ("uuid:%04u", i);
      g_assert_true (vsm_drive_history_record (id, &m, NULL));
    }
  g_clear_pointer (&h, vsm_drive_history_free);
  h = vsm_drive_history_load ("usb:1:2:3", &error);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_true (vsm_drive_history_forget ("uuid:0010", &error));
  g_assert_false (vsm_drive_history_forget ("uuid:0010", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (vsm_drive_history_record ("../etc", &m, &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  /* a hostile file (world-writable, or a FIFO) is not obeyed: not read, and
   * replaced by the next record */
  g_assert_cmpint (g_chmod (path, 0666), ==, 0);
  g_assert_null (vsm_drive_history_load ("uuid:0011", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_clear_error (&error);
  g_assert_true (vsm_drive_history_record ("uuid:x", &m, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);
  g_clear_pointer (&h, vsm_drive_history_free);
  h = vsm_drive_history_load ("uuid:0011", &error);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (mkfifo (path, 0644), ==, 0);
  g_assert_null (vsm_drive_history_load ("uuid:x", &error));
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_clear_error (&error);
  g_assert_true (vsm_drive_history_record ("uuid:x", &m, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
}

/* a read that failed now (a short read, EMFILE) is no reason to replace
 * the file: vsm_state_read_file_max () tells it from a file that is not
 * ours to believe (a link, world-writable), which the next record
 * replaces */
static void
test_read_trouble_is_not_distrust (Tree *t, gconstpointer data)
{
  g_autofree char *path = g_build_filename (t->root, "lib", "drives.history", NULL);
  g_autofree char *link = g_build_filename (t->root, "lib", "link", NULL);
  g_autofree char *out = NULL;
  g_autoptr (GError) error = NULL;
  gboolean untrusted = TRUE;
  struct rlimit rl, low;
  gsize len;
  int fd;

  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, "[drive uuid:A]\nbandwidth=1\n", -1, NULL));
  /* sysfs says 4096 bytes and gives fewer: a short read */
  if (g_file_test ("/sys/kernel/uevent_seqnum", G_FILE_TEST_EXISTS))
    {
      g_assert_false (vsm_state_read_file_max ("/sys/kernel/uevent_seqnum", 1 << 20, &out, &len,
                                               &untrusted, &error));
      g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
      g_assert_false (untrusted);
      g_clear_error (&error);
    }
  /* no file descriptor left */
  fd = dup (0);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_cmpint (getrlimit (RLIMIT_NOFILE, &rl), ==, 0);
  low = rl;
  low.rlim_cur = (rlim_t)fd;
  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &low), ==, 0);
  untrusted = TRUE;
  g_assert_false (vsm_state_read_file_max (path, 1 << 20, &out, &len, &untrusted, &error));
  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &rl), ==, 0);
  g_assert_error (error, VSM_ERROR, VSM_ERROR_STATE);
  g_assert_false (untrusted);
  g_clear_error (&error);
  /* not ours to believe: a link, a world-writable file */
  g_assert_cmpint (symlink (path, link), ==, 0);
  g_assert_false (vsm_state_read_file_max (link, 1 << 20, &out, &len, &untrusted, &error));
  g_assert_true (untrusted);
  g_clear_error (&error);
  g_assert_cmpint (g_chmod (path, 0666), ==, 0);
  untrusted = FALSE;
  g_assert_false (vsm_state_read_file_max (path, 1 << 20, &out, &len, &untrusted, &error));
  g_assert_true (untrusted);
  g_clear_error (&error);
}

/* Every file vfat-smart writes gets its mode (0644) whatever the umask and
 * whatever mode a hostile file there had: the next load must not refuse it,
 * and a user's `vfat-smart status` must be able to read it. */
static void
test_written_mode_is_explicit (Tree *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *history = g_build_filename (t->root, "lib", "drives.history", NULL);
  g_autofree char *options = g_build_filename (t->root, "run", "8-16.options", NULL);
  VsmDriveMount m = { .at_usec = 1,
                      .bandwidth = 18200000,
                      .cap_bytes = 34 << 20,
                      .bytes_written = 1 << 27,
                      .seconds_to_safe = 2.5 };
  g_autoptr (VsmDriveHistory) h = NULL;
  struct stat st;
  mode_t old = umask (0077);

  g_assert_true (vsm_drive_history_record ("uuid:0001", &m, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (history, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);
  g_assert_true (vsm_state_write_file ("8-16.options", "x\n", 2, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (options, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);

  /* a hostile mode on the file before: replaced by ours */
  umask (0);
  g_assert_cmpint (g_chmod (history, 0666), ==, 0);
  g_assert_cmpint (g_chmod (options, 0666), ==, 0);
  g_assert_true (vsm_drive_history_record ("uuid:0002", &m, &error));
  g_assert_true (vsm_state_write_file ("8-16.options", "y\n", 2, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (history, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);
  g_assert_cmpint (g_lstat (options, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);
  umask (old);
  h = vsm_drive_history_load ("uuid:0002", &error);
  g_assert_no_error (error);
  g_assert_nonnull (h);
}

/* a file far over the bound (another program, a disk error) is read only
 * up to it, never whole, and the next record writes it bounded again */
static void
test_record_over_huge_file (Tree *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (t->root, "lib", "drives.history", NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GString) huge = g_string_new ("[drive uuid:OLD]\nbandwidth=100000\nupdated=1\n"
                                           "mounts=1:100000:1:1:1\n");
  VsmDriveMount m = { .at_usec = 1, .bandwidth = 18200000, .seconds_to_safe = 2.5 };
  g_autoptr (VsmDriveHistory) old = NULL, now = NULL;
  struct stat st;

  while (huge->len < 8 * 1024 * 1024)
    g_string_append (huge, "\x01\x02 binary, not a key file \xff\xfe\n");
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, huge->str, huge->len, NULL));
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  old = vsm_drive_history_load ("uuid:OLD", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (old->bandwidth, ==, 100000);
  g_assert_true (vsm_drive_history_record ("uuid:NEW", &m, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <=, VSM_DRIVE_HISTORY_MAX_BYTES);
  now = vsm_drive_history_load ("uuid:NEW", &error);
  g_assert_no_error (error);
  g_clear_pointer (&old, vsm_drive_history_free);
  old = vsm_drive_history_load ("uuid:OLD", &error);
  g_assert_no_error (error);
}

static VsmDevice *
stick (void)
{
  VsmDevice *d = g_new0 (VsmDevice, 1);

  d->devnode = g_strdup ("/dev/sdz1");
  d->disk_name = g_strdup ("sdz");
  d->bdi = g_strdup ("8:240");
  d->transport = VSM_TRANSPORT_USB_STORAGE;
  d->removable = TRUE;
  d->usb = g_new0 (VsmUsbInfo, 1);
  d->usb->vendor_id = g_strdup ("0781");
  d->usb->product_id = g_strdup ("5581");
  d->usb->serial = g_strdup ("S1");
  d->usb->speed_mbps = 5000;
  d->usb->driver = g_strdup ("usb-storage");
  d->fs_type = g_strdup ("vfat");
  d->size_bytes = 16000000000;
  return d;
}

/* the plan of the next plug starts from the learned bandwidth */
static void
test_plan_starts_learned (Tree *t, gconstpointer data)
{
  g_autoptr (VsmAssessment) fresh = NULL, learned = NULL, person = NULL;
  VsmDriveMount m = { .at_usec = 1, .bandwidth = 60000000, .seconds_to_safe = 1 };
  VsmOverrides by_hand = { .bandwidth = 5000000, .bandwidth_source = "test" };
  static const char *const knobs[] = { "max_bytes", "strict_limit", "max_ratio" };

  for (gsize i = 0; i < G_N_ELEMENTS (knobs); i++)
    {
      g_autofree char *p = g_build_filename (t->root, "sys/class/bdi/8:240", knobs[i], NULL);
      g_autofree char *dir = g_path_get_dirname (p);
      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (g_file_set_contents (p, "0", -1, NULL));
    }
  fresh = vsm_assess_device (stick (), vsm_policy_new_default (), NULL);
  g_assert_cmpuint (fresh->plan->cap_bytes, >, 0);
  g_assert_cmpuint (fresh->plan->bandwidth, ==, 20000000);

  g_assert_true (vsm_drive_history_record ("usb:0781:5581:S1", &m, NULL));
  learned = vsm_assess_device (stick (), vsm_policy_new_default (), NULL);
  g_assert_cmpuint (learned->plan->bandwidth, ==, 60000000);
  g_assert_nonnull (strstr (learned->plan->bandwidth_source, "learned on this drive"));
  /* what a caller measured or decided wins over the history */
  person = vsm_assess_device (stick (), vsm_policy_new_default (), &by_hand);
  g_assert_cmpuint (person->plan->bandwidth, ==, 5000000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/drive-history/parse-real", test_parse_real);
  g_test_add_func ("/drive-history/parse-truncated-hostile", test_parse_truncated_and_hostile);
  g_test_add_func ("/drive-history/parse-bad-entries", test_parse_bad_entries);
  g_test_add_func ("/drive-history/parse-huge", test_parse_huge);
  g_test_add_func ("/drive-history/parse-headers-keys", test_parse_headers_and_keys);
  g_test_add_func ("/drive-history/parse-huge-nul", test_parse_huge_with_nul);
  g_test_add ("/drive-history/record-over-huge-file", Tree, NULL, tree_setup,
              test_record_over_huge_file, tree_teardown);
  g_test_add_func ("/drive-history/identity", test_identity);
  g_test_add ("/drive-history/read-trouble", Tree, NULL, tree_setup,
              test_read_trouble_is_not_distrust, tree_teardown);
  g_test_add ("/drive-history/record-forget", Tree, NULL, tree_setup, test_record_and_forget,
              tree_teardown);
  g_test_add ("/drive-history/written-mode-is-explicit", Tree, NULL, tree_setup,
              test_written_mode_is_explicit, tree_teardown);
  g_test_add ("/drive-history/plan-starts-learned", Tree, NULL, tree_setup,
              test_plan_starts_learned, tree_teardown);
  return g_test_run ();
}
