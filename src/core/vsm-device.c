/* vsm-device.c - facts about a block device, from sysfs/udev and libblkid
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-device.h"
#include "vsm-knobs.h"
#include "vsm-mount.h"
#include "vsm-paths.h"
#include "vsm-util.h"

#include <blkid.h>
#include <glib/gi18n.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <libmount.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *
vsm_transport_to_string (VsmTransport transport)
{
  return vsm_enum_to_nick (VSM_TYPE_TRANSPORT, transport, "other");
}

gboolean
vsm_transport_is_usb (VsmTransport transport)
{
  return transport == VSM_TRANSPORT_USB_STORAGE || transport == VSM_TRANSPORT_UAS ||
         transport == VSM_TRANSPORT_USB_OTHER;
}

static void
vsm_usb_info_free (VsmUsbInfo *usb)
{
  if (usb == NULL)
    return;
  g_free (usb->vendor_id);
  g_free (usb->product_id);
  g_free (usb->serial);
  g_free (usb->manufacturer);
  g_free (usb->product);
  g_free (usb->version);
  g_free (usb->driver);
  g_free (usb);
}

void
vsm_device_free (VsmDevice *d)
{
  if (d == NULL)
    return;
  g_free (d->spec);
  g_free (d->devnode);
  g_free (d->syspath);
  g_free (d->disk_node);
  g_free (d->disk_name);
  g_free (d->disk_syspath);
  g_free (d->bdi);
  vsm_usb_info_free (d->usb);
  g_free (d->vendor);
  g_free (d->model);
  g_free (d->write_cache);
  g_free (d->fs_type);
  g_free (d->fs_label);
  g_free (d->fs_uuid);
  g_free (d->fs_version);
  g_free (d->disk_fs_uuid);
  g_free (d->disk_fs_type);
  g_free (d->disk_fs_label);
  g_free (d);
}

gboolean
vsm_device_is_superfloppy (const VsmDevice *d, const char *part_table_type)
{
  return !d->is_partition && d->fs_type != NULL && part_table_type == NULL;
}

gboolean
vsm_fs_type_is_fat (const char *fs_type)
{
  return g_strcmp0 (fs_type, "vfat") == 0 || g_strcmp0 (fs_type, "exfat") == 0;
}

/* sysfs string attributes come padded (SCSI vendor/model); NULL for empty */
static char *
stripped (const char *v)
{
  g_autofree char *copy = v ? g_strstrip (g_strdup (v)) : NULL;

  return copy && *copy ? g_steal_pointer (&copy) : NULL;
}

static guint64
parsed_u64 (const char *v)
{
  g_autofree char *copy = stripped (v);
  guint64 n = 0;

  return copy != NULL && vsm_parse_u64 (copy, &n) ? n : 0;
}

/* an attribute of the device at the sysfs directory dir, read as a file */
static char *
file_attr_string (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *v = vsm_read_attr (path, NULL);

  return stripped (v);
}

static guint64
file_attr_u64 (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *v = vsm_read_attr (path, NULL);

  return parsed_u64 (v);
}

/* The whole disk: its sysfs directory, and udev's device of it made only
 * where udev's view is needed (a partition's event names its disk by its
 * parent directory: libudev would resolve the disk's sysfs path one
 * component at a time, a dozen opens and more) */
typedef struct
{
  GUdevClient *client;
  const char *syspath;
  GUdevDevice *dev; /* NULL until disk_udev() */
} DiskSrc;

static GUdevDevice *
disk_udev (DiskSrc *src)
{
  if (src->dev == NULL)
    src->dev = g_udev_client_query_by_sysfs_path (src->client, src->syspath);
  return src->dev;
}

/* The nearest device directory above syspath that has the attribute name:
 * a parent found by what only its kind has (a USB interface's
 * bInterfaceNumber, a SCSI device's scsi_level), one test a level, where
 * libudev would make a device, with a dozen path lookups, of every parent
 * it passes (most of the udev helper's opens on each event). */
static char *
sysfs_parent_with (const char *syspath, const char *name)
{
  g_autofree char *dir = syspath ? g_path_get_dirname (syspath) : NULL;

  while (dir != NULL && g_str_has_prefix (dir, "/sys/devices/"))
    {
      g_autofree char *attr = g_build_filename (dir, name, NULL);
      char *up;

      if (g_file_test (attr, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&dir);
      up = g_path_get_dirname (dir);
      g_free (dir);
      dir = up;
    }
  return NULL;
}

static char *
prop_string (GUdevDevice *dev, const char *const *envp, const char *name)
{
  const char *v =
    envp ? g_environ_getenv ((char **)envp, name) : g_udev_device_get_property (dev, name);
  if (v == NULL || *v == '\0')
    return NULL;
  return g_strdup (v);
}

static GUdevDevice *
lookup_mount_point (GUdevClient *client, const char *dir, GError **error)
{
  g_autofree char *mountinfo = vsm_path (VSM_ROOT_PROCFS, "self/mountinfo", NULL);
  struct libmnt_table *tb = mnt_new_table_from_file (mountinfo);
  struct libmnt_fs *fs;
  g_autofree char *canonical = NULL;
  GUdevDevice *dev = NULL;
  dev_t devno;

  if (tb == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED, _ ("cannot read /proc/self/mountinfo"));
      return NULL;
    }

  canonical = realpath (dir, NULL);
  fs = mnt_table_find_target (tb, canonical ? canonical : dir, MNT_ITER_BACKWARD);
  if (fs == NULL || !mnt_fs_streq_target (fs, canonical ? canonical : dir))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                   _ ("%s is a directory but not a mount point"), dir);
      mnt_unref_table (tb);
      return NULL;
    }

  devno = mnt_fs_get_devno (fs);
  if (devno != 0)
    dev = g_udev_client_query_by_device_number (client, G_UDEV_DEVICE_TYPE_BLOCK, devno);
  if (dev == NULL)
    g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                 _ ("%s is mounted from %s, which is not a block device"), dir,
                 mnt_fs_get_source (fs) ? mnt_fs_get_source (fs) : "?");
  mnt_unref_table (tb);
  return dev;
}

static GUdevDevice *
resolve_spec (GUdevClient *client, const char *spec, GError **error)
{
  g_autofree char *resolved = NULL;
  GUdevDevice *dev;
  const char *path = spec;

  if (spec == NULL || *spec == '\0')
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT, _ ("no device given"));
      return NULL;
    }

  if (g_str_has_prefix (spec, "LABEL=") || g_str_has_prefix (spec, "UUID=") ||
      g_str_has_prefix (spec, "PARTUUID=") || g_str_has_prefix (spec, "PARTLABEL="))
    {
      resolved = blkid_evaluate_tag (spec, NULL, NULL);
      if (resolved == NULL)
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("no block device has %s"), spec);
          return NULL;
        }
      path = resolved;
    }

  if (g_str_has_prefix (path, "/sys/"))
    {
      dev = g_udev_client_query_by_sysfs_path (client, path);
      if (dev == NULL || g_strcmp0 (g_udev_device_get_subsystem (dev), "block") != 0)
        {
          g_clear_object (&dev);
          g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                       _ ("%s is not a block device in sysfs"), path);
        }
      return dev;
    }

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    return lookup_mount_point (client, path, error);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("%s: no such device"), path);
      return NULL;
    }

  dev = g_udev_client_query_by_device_file (client, path);
  if (dev == NULL || g_strcmp0 (g_udev_device_get_subsystem (dev), "block") != 0)
    {
      g_clear_object (&dev);
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("%s is not a block device"), path);
    }
  return dev;
}

/* iface: the sysfs directory of the disk's USB interface, NULL when it has none */
static void
read_usb_facts (VsmDevice *d, const char *iface)
{
  g_autofree char *driver_link = NULL;
  g_autofree char *driver_path = NULL;
  g_autofree char *driver = NULL;
  g_autofree char *usbdev = NULL;
  VsmUsbInfo *usb;

  if (iface == NULL)
    return;

  usb = g_new0 (VsmUsbInfo, 1);
  d->usb = usb;

  /* The driver link of the interface is the authority: the protocol byte
   * reads the current altsetting and can disagree. */
  driver_link = g_build_filename (iface, "driver", NULL);
  driver_path = g_file_read_link (driver_link, NULL);
  driver = driver_path ? g_path_get_basename (driver_path) : NULL;
  usb->driver = g_strdup (driver);
  if (g_strcmp0 (driver, "uas") == 0)
    d->transport = VSM_TRANSPORT_UAS;
  else if (g_strcmp0 (driver, "usb-storage") == 0 ||
           (driver != NULL && g_str_has_prefix (driver, "ums")))
    d->transport = VSM_TRANSPORT_USB_STORAGE;
  else
    d->transport = VSM_TRANSPORT_USB_OTHER;

  /* the interface's parent is its USB device */
  usbdev = sysfs_parent_with (iface, "idVendor");
  if (usbdev != NULL)
    {
      usb->vendor_id = file_attr_string (usbdev, "idVendor");
      usb->product_id = file_attr_string (usbdev, "idProduct");
      usb->serial = file_attr_string (usbdev, "serial");
      usb->manufacturer = file_attr_string (usbdev, "manufacturer");
      usb->product = file_attr_string (usbdev, "product");
      usb->version = file_attr_string (usbdev, "version");
      usb->speed_mbps = (guint)file_attr_u64 (usbdev, "speed");
    }
}

static void
read_transport (VsmDevice *d, DiskSrc *disk, const char *iface)
{
  g_autoptr (GUdevDevice) cur = NULL;

  d->transport = VSM_TRANSPORT_OTHER;
  read_usb_facts (d, iface);
  if (d->usb != NULL)
    return;

  if (g_str_has_prefix (d->disk_name, "loop"))
    {
      d->transport = VSM_TRANSPORT_LOOP;
      return;
    }

  cur = disk_udev (disk) ? g_udev_device_get_parent (disk->dev) : NULL;
  while (cur != NULL)
    {
      const char *subsystem = g_udev_device_get_subsystem (cur);
      const char *name = g_udev_device_get_name (cur);
      GUdevDevice *next;

      if (g_strcmp0 (subsystem, "mmc") == 0)
        d->transport = VSM_TRANSPORT_MMC;
      else if (g_strcmp0 (subsystem, "nvme") == 0)
        d->transport = VSM_TRANSPORT_NVME;
      else if (g_strcmp0 (subsystem, "virtio") == 0)
        d->transport = VSM_TRANSPORT_VIRTIO;
      else if (g_strcmp0 (subsystem, "ata_port") == 0 ||
               (name != NULL && g_str_has_prefix (name, "ata") && g_ascii_isdigit (name[3])))
        d->transport = VSM_TRANSPORT_ATA;

      if (d->transport != VSM_TRANSPORT_OTHER)
        return;
      next = g_udev_device_get_parent (cur);
      g_object_unref (cur);
      cur = next;
    }
}

static void
read_scsi_facts (VsmDevice *d, DiskSrc *disk, const char *iface)
{
  g_autofree char *sdev = NULL;
  g_autofree char *name = NULL;
  const char *colon;
  guint64 lun;

  d->lun = -1;
  d->n_luns = 1;
  sdev = sysfs_parent_with (disk->syspath, "scsi_level");
  if (sdev != NULL)
    {
      name = g_path_get_basename (sdev); /* H:C:T:L */
      colon = strrchr (name, ':');
      if (colon != NULL && vsm_parse_u64 (colon + 1, &lun) && lun < 256)
        d->lun = (int)lun;
      d->vendor = file_attr_string (sdev, "vendor");
      d->model = file_attr_string (sdev, "model");
    }
  if (d->vendor == NULL && disk_udev (disk))
    d->vendor = prop_string (disk->dev, NULL, "ID_VENDOR");
  if (d->model == NULL)
    d->model = file_attr_string (disk->syspath, "device/model");
  if (d->model == NULL && disk_udev (disk))
    d->model = prop_string (disk->dev, NULL, "ID_MODEL");

  /* Count the disks behind the same USB interface: a multi-LUN card reader
   * shows one disk per slot. */
  if (iface != NULL)
    {
      guint n = vsm_sysfs_count_disks_under (iface);
      if (n > 1)
        d->n_luns = n;
    }
}

/* Block devices are found by reading sysfs directories, never by asking
 * udev for every block device: each device udev makes resolves its sysfs
 * path one component at a time, and doing that for every block device of
 * the machine was most of the udev helper's time on each event (in the lab
 * guest ~140 path walks per event; udisks' unmount waits for that event). */

/* the sysfs path that a link in /sys/class/block points to */
static char *
class_block_target (const char *dir, const char *name)
{
  g_autofree char *link = g_build_filename (dir, name, NULL);
  g_autofree char *target = g_file_read_link (link, NULL);

  if (target == NULL)
    return NULL;
  return g_canonicalize_filename (target, dir);
}

guint
vsm_sysfs_count_disks_under (const char *syspath)
{
  g_autofree char *dir = vsm_path (VSM_ROOT_SYSFS, "class", "block", NULL);
  g_autofree char *prefix = NULL;
  g_autoptr (GDir) d = NULL;
  const char *name;
  guint n = 0;

  if (syspath == NULL || (d = g_dir_open (dir, 0, NULL)) == NULL)
    return 0;
  prefix = g_strconcat (syspath, "/", NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *target = class_block_target (dir, name);
      g_autofree char *partition = NULL;

      if (target == NULL || !g_str_has_prefix (target, prefix))
        continue;
      /* a whole disk, not one of its partitions */
      partition = g_build_filename (target, "partition", NULL);
      if (!g_file_test (partition, G_FILE_TEST_EXISTS))
        n++;
    }
  return n;
}

typedef struct
{
  guint64 number;
  char *path;
} Partition;

static gint
by_partition_number (gconstpointer a, gconstpointer b)
{
  guint64 x = ((const Partition *)a)->number, y = ((const Partition *)b)->number;
  return x < y ? -1 : x > y ? 1 : 0;
}

GPtrArray *
vsm_sysfs_disk_partitions (const char *disk_syspath)
{
  g_autoptr (GArray) found = g_array_new (FALSE, FALSE, sizeof (Partition));
  g_autoptr (GDir) d = disk_syspath ? g_dir_open (disk_syspath, 0, NULL) : NULL;
  g_autofree char *disk = disk_syspath ? g_path_get_basename (disk_syspath) : NULL;
  GPtrArray *out;
  const char *name;

  /* a child directory with a "partition" file (its number), read once. The
   * kernel names a partition after its disk (sdc1, mmcblk0p1: the disk's
   * name, "p" after a digit, the number): only those are tried, not the
   * disk's two dozen attributes */
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *number = NULL;
      Partition p = { 0, NULL };

      if (!g_str_has_prefix (name, disk) || !g_ascii_isdigit (name[strlen (name) - 1]))
        continue;
      path = g_build_filename (disk_syspath, name, NULL);
      number = g_build_filename (path, "partition", NULL);
      if (!vsm_read_u64 (number, &p.number, NULL))
        continue;
      p.path = g_steal_pointer (&path);
      g_array_append_val (found, p);
    }
  g_array_sort (found, by_partition_number);
  out = g_ptr_array_new_full (found->len, g_free);
  for (guint i = 0; i < found->len; i++)
    g_ptr_array_add (out, g_array_index (found, Partition, i).path);
  return out;
}

static gboolean
is_mounted (GPtrArray *mounts, GUdevDevice *partition)
{
  const char *node = g_udev_device_get_device_file (partition);

  for (guint i = 0; node && i < mounts->len; i++)
    if (g_strcmp0 (((VsmMountInfo *)g_ptr_array_index (mounts, i))->source, node) == 0)
      return TRUE;
  return FALSE;
}

/* The FAT filesystem that names a partitioned disk (the udev helper and a
 * front end given the partition name the drive by it): of those with a
 * UUID the mounted one, else the first (the mounts are read only when
 * there are two); its type and label, else the first FAT
 * partition's (from udev's database: no I/O on the drive; one query a
 * partition, each a dozen path lookups in libudev) */
static void
read_disk_fs (VsmDevice *d, GUdevClient *client, const char *disk_syspath, GPtrArray *partitions)
{
  g_autoptr (GPtrArray) mounts = NULL;
  g_autoptr (GUdevDevice) named = NULL, first_fat = NULL;

  for (guint i = 0; i < partitions->len; i++)
    {
      g_autoptr (GUdevDevice) p =
        g_udev_client_query_by_sysfs_path (client, g_ptr_array_index (partitions, i));
      const char *uuid;

      /* the type first: at the plug the partitions' events have not run,
       * and libudev tries their database entry again at each property */
      if (p == NULL || !vsm_fs_type_is_fat (g_udev_device_get_property (p, "ID_FS_TYPE")))
        continue;
      uuid = g_udev_device_get_property (p, "ID_FS_UUID");
      if (first_fat == NULL)
        first_fat = g_object_ref (p);
      if (uuid == NULL || *uuid == '\0')
        continue;
      if (named == NULL)
        {
          named = g_steal_pointer (&p); /* alone, it names the disk mounted or not */
          continue;
        }
      /* a second one: the mounted one of them */
      if (mounts == NULL)
        {
          mounts = vsm_mounts_for_disk (disk_syspath);
          if (is_mounted (mounts, named))
            break;
        }
      if (is_mounted (mounts, p))
        {
          g_clear_object (&named);
          named = g_steal_pointer (&p);
          break;
        }
    }
  if (named != NULL)
    d->disk_fs_uuid = g_strdup (g_udev_device_get_property (named, "ID_FS_UUID"));
  if (named == NULL)
    named = g_steal_pointer (&first_fat);
  if (named != NULL)
    {
      d->disk_fs_type = g_strdup (g_udev_device_get_property (named, "ID_FS_TYPE"));
      d->disk_fs_label = g_strdup (g_udev_device_get_property (named, "ID_FS_LABEL"));
    }
}

static gboolean probing_disabled;

void
vsm_device_disable_probing (void)
{
  probing_disabled = TRUE;
}

typedef struct
{
  char *type, *label, *uuid, *version;
} FsProbe;

static void
fs_probe_clear (FsProbe *p)
{
  g_free (p->type);
  g_free (p->label);
  g_free (p->uuid);
  g_free (p->version);
}

/* the superblock, read with libblkid (the one place that does) */
static gboolean
probe_superblock (const char *devnode, FsProbe *out, GError **error)
{
  blkid_probe pr = blkid_new_probe_from_filename (devnode);
  const char *v = NULL;

  memset (out, 0, sizeof *out);
  if (pr == NULL)
    {
      int errsv = errno;
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("cannot read %s: %s"), devnode,
                   g_strerror (errsv));
      return FALSE;
    }
  blkid_probe_enable_superblocks (pr, TRUE);
  blkid_probe_set_superblocks_flags (pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
                                           BLKID_SUBLKS_TYPE | BLKID_SUBLKS_VERSION);
  blkid_probe_enable_partitions (pr, TRUE);
  if (blkid_do_safeprobe (pr) == 0)
    {
      if (blkid_probe_lookup_value (pr, "TYPE", &v, NULL) == 0)
        out->type = g_strdup (v);
      if (blkid_probe_lookup_value (pr, "LABEL", &v, NULL) == 0)
        out->label = g_strdup (v);
      if (blkid_probe_lookup_value (pr, "UUID", &v, NULL) == 0)
        out->uuid = g_strdup (v);
      if (blkid_probe_lookup_value (pr, "VERSION", &v, NULL) == 0)
        out->version = g_strdup (v);
    }
  blkid_free_probe (pr);
  return TRUE;
}

char *
vsm_probe_fs_type (const char *devnode, GError **error)
{
  FsProbe p;
  char *type;

  if (!probe_superblock (devnode, &p, error))
    return NULL;
  type = g_steal_pointer (&p.type);
  fs_probe_clear (&p);
  if (type == NULL)
    g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_SUPPORTED, _ ("%s: no filesystem found"), devnode);
  return type;
}

/* Under udev the ID_FS_* properties are there (and replay under umockdev):
 * the event's own (envp) during an event, whose database entry is written
 * once its rules ran; otherwise probe the superblock when we may read the
 * node. */
static void
read_filesystem (VsmDevice *d, GUdevDevice *dev, const char *const *envp, gboolean no_io)
{
  FsProbe p;

  d->fs_type = prop_string (dev, envp, "ID_FS_TYPE");
  if (d->fs_type != NULL)
    {
      d->fs_label = prop_string (dev, envp, "ID_FS_LABEL");
      d->fs_uuid = prop_string (dev, envp, "ID_FS_UUID");
      d->fs_version = prop_string (dev, envp, "ID_FS_VERSION");
      return;
    }
  if (d->devnode == NULL || no_io || probing_disabled || g_getenv ("UMOCKDEV_DIR") != NULL ||
      !probe_superblock (d->devnode, &p, NULL))
    return;
  d->fs_type = p.type;
  d->fs_label = p.label;
  d->fs_uuid = p.uuid;
  d->fs_version = p.version;
}

/* the whole disk's node, name, numbers and BDI: udev's when it made the
 * disk's device, else its uevent file's (what libudev reads), else its dev
 * attribute (umockdev recordings without one or the other). FALSE when the
 * uevent file says the directory is not a disk's. */
static gboolean
read_disk_identity (VsmDevice *d, DiskSrc *disk)
{
  guint maj = 0, min = 0;

  d->disk_name = g_path_get_basename (disk->syspath);
  d->disk_syspath = g_strdup (disk->syspath);
  if (disk->dev != NULL)
    {
      dev_t devno = g_udev_device_get_device_number (disk->dev);

      d->disk_node = g_strdup (g_udev_device_get_device_file (disk->dev));
      maj = major (devno);
      min = minor (devno);
    }
  else
    {
      g_autofree char *uevent = file_attr_string (disk->syspath, "uevent");
      g_auto (GStrv) lines = uevent ? g_strsplit (uevent, "\n", -1) : NULL;

      for (guint i = 0; lines && lines[i]; i++)
        if (g_str_has_prefix (lines[i], "DEVTYPE=") && !g_str_equal (lines[i] + 8, "disk"))
          return FALSE;
        else if (g_str_has_prefix (lines[i], "DEVNAME=") && lines[i][8] != '\0' &&
                 strstr (lines[i] + 8, "..") == NULL && d->disk_node == NULL)
          d->disk_node = g_build_filename ("/dev", lines[i] + 8, NULL);
        else if (g_str_has_prefix (lines[i], "MAJOR="))
          maj = (guint)parsed_u64 (lines[i] + 6);
        else if (g_str_has_prefix (lines[i], "MINOR="))
          min = (guint)parsed_u64 (lines[i] + 6);
    }
  if (maj == 0 && min == 0)
    {
      g_autofree char *dev_attr = file_attr_string (disk->syspath, "dev");
      if (dev_attr == NULL || sscanf (dev_attr, "%u:%u", &maj, &min) != 2)
        maj = min = 0;
    }
  d->disk_major = maj;
  d->disk_minor = min;
  d->bdi = g_strdup_printf ("%u:%u", d->disk_major, d->disk_minor);
  if (d->disk_node == NULL)
    d->disk_node = g_strdup_printf ("/dev/%s", d->disk_name);
  if (d->devnode == NULL)
    d->devnode = g_strdup (d->disk_node);
  return TRUE;
}

static void
read_queue_facts (VsmDevice *d, const char *disk)
{
  d->removable = file_attr_u64 (disk, "removable") != 0;
  d->rotational = file_attr_u64 (disk, "queue/rotational") != 0;
  d->size_bytes = file_attr_u64 (disk, "size") * 512;
  d->max_sectors_kb = file_attr_u64 (disk, "queue/max_sectors_kb");
  d->max_hw_sectors_kb = file_attr_u64 (disk, "queue/max_hw_sectors_kb");
  d->minimum_io_size = file_attr_u64 (disk, "queue/minimum_io_size");
  d->optimal_io_size = file_attr_u64 (disk, "queue/optimal_io_size");
  d->physical_block_size = file_attr_u64 (disk, "queue/physical_block_size");
  d->logical_block_size = file_attr_u64 (disk, "queue/logical_block_size");
  d->write_cache = file_attr_string (disk, "queue/write_cache");
}

static VsmDevice *
device_new (GUdevClient *client, GUdevDevice *udev, const char *const *envp, const char *spec,
            gboolean no_io, GError **error)
{
  g_autoptr (VsmDevice) d = g_new0 (VsmDevice, 1);
  g_autofree char *disk_syspath = NULL;
  DiskSrc disk = { client, NULL, NULL };
  const char *devtype = g_udev_device_get_devtype (udev);
  g_autoptr (GPtrArray) partitions = NULL;
  g_autofree char *iface = NULL;
  gboolean found;

  if (g_strcmp0 (g_udev_device_get_subsystem (udev), "block") != 0)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("%s is not a block device"),
                   spec ? spec : "device");
      return NULL;
    }

  d->spec = g_strdup (spec ? spec : g_udev_device_get_device_file (udev));
  d->devnode = g_strdup (g_udev_device_get_device_file (udev));
  d->syspath = g_strdup (g_udev_device_get_sysfs_path (udev));
  d->is_partition = g_strcmp0 (devtype, "partition") == 0;

  /* a partition's disk is the directory above it in sysfs */
  if (d->is_partition && d->syspath != NULL)
    disk.syspath = disk_syspath = g_path_get_dirname (d->syspath);
  else if (g_strcmp0 (devtype, "disk") == 0)
    {
      disk.syspath = g_udev_device_get_sysfs_path (udev);
      disk.dev = g_object_ref (udev);
    }
  found = disk.syspath != NULL && read_disk_identity (d, &disk);
  if (!found)
    {
      g_clear_object (&disk.dev);
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                   _ ("%s: cannot find the whole disk it belongs to"), d->spec);
      return NULL;
    }

  /* looked up once: each lookup walks the parents from the disk up */
  iface = sysfs_parent_with (disk.syspath, "bInterfaceNumber");
  read_transport (d, &disk, iface);
  read_scsi_facts (d, &disk, iface);

  read_queue_facts (d, disk.syspath);
  partitions = vsm_sysfs_disk_partitions (disk.syspath);
  d->n_partitions = partitions->len;
  read_filesystem (d, udev, envp, no_io);
  /* udevd runs a device's event only once its parent's ended, and the
   * kernel adds a disk before its partitions: at the disk's own "add" no
   * partition has a database entry yet, nothing to look up */
  if (!d->is_partition && d->fs_uuid == NULL &&
      !(envp && g_strcmp0 (g_environ_getenv ((char **)envp, "ACTION"), "add") == 0))
    read_disk_fs (d, client, disk.syspath, partitions);
  /* a partition is never a superfloppy: the disk's table is not read */
  if (!d->is_partition)
    d->superfloppy = vsm_device_is_superfloppy (
      d, envp ? g_environ_getenv ((char **)envp, "ID_PART_TABLE_TYPE")
              : g_udev_device_get_property (disk.dev, "ID_PART_TABLE_TYPE"));
  g_clear_object (&disk.dev);

  return g_steal_pointer (&d);
}

VsmDevice *
vsm_device_new_from_udev (GUdevClient *client, GUdevDevice *udev, const char *const *envp,
                          const char *spec, GError **error)
{
  return device_new (client, udev, envp, spec, FALSE, error);
}

VsmDevice *
vsm_device_new_from_spec (GUdevClient *client, const char *spec, GError **error)
{
  g_autoptr (GUdevDevice) dev = resolve_spec (client, spec, error);

  if (dev == NULL)
    return NULL;
  return device_new (client, dev, NULL, spec, FALSE, error);
}

VsmDevice *
vsm_device_new_from_syspath_no_io (GUdevClient *client, const char *syspath, GError **error)
{
  g_autoptr (GUdevDevice) dev = NULL;

  g_return_val_if_fail (syspath != NULL && g_str_has_prefix (syspath, "/sys/"), NULL);
  dev = resolve_spec (client, syspath, error);
  if (dev == NULL)
    return NULL;
  return device_new (client, dev, NULL, syspath, TRUE, error);
}

char *
vsm_bdi_of (const char *what, GError **error)
{
  g_autoptr (GUdevClient) client = NULL;
  g_autoptr (VsmDevice) d = NULL;

  if (vsm_bdi_is_valid (what))
    return g_strdup (what);
  client = g_udev_client_new (NULL);
  d = vsm_device_new_from_spec (client, what, error);
  return d ? g_strdup (d->bdi) : NULL;
}
