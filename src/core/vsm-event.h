/* vsm-event.h - a udev event of a disk or partition, read into the facts,
 * and the answered-for stamps of the state directory
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The engine's hotplug and unplug (vsm.h: vsm_hotplug (), vsm_unplug ())
 * are built from these; the unit tests call them one by one.
 */
#pragma once

#include "vsm.h"

G_BEGIN_DECLS

/* The event's own ID_FS_* (the database still holds the previous event's)
 * into the facts. envp: the helper's environment. */
void vsm_udev_device_from_event (VsmDevice *device, const char *const *envp);

/* A whole-disk event of a partitioned disk has no ID_FS_* of its own
 * (any tool that opens the disk for writing and closes it causes one): the
 * facts of the FAT or exFAT file system on it, as the device's facts read
 * them from udev's database of its partitions (VsmDevice.disk_fs_type: the
 * one that names the disk, the mounted one, else the first), else what the
 * disk's record knows. Without them such an event
 * re-plans the disk as holding no file system and its record loses the
 * partition's. Nothing is read from the drive. */
void vsm_udev_disk_fs_facts (VsmDevice *device);

/* A class an earlier rule chose for the drive, as a person's choice
 * (ENV{VFAT_SMART_CLASS}="usb-hdd" before 61-vfat-smart.rules): sets
 * o->set_class and o->klass. FALSE when the property names no class
 * (o is left as it was). */
gboolean vsm_udev_class_from_event (const char *const *envp, VsmOverrides *o);

/* The answered-for stamps. An unmount closes the device and udev's
 * inotify watch sends "change", which udisks waits for before Unmount
 * returns; the rule skips the helper on a change when the stamp of the
 * file system the helper last answered for exists, and keeps the answer
 * from udev's database (61-vfat-smart.rules). The directory under the
 * state root: VSM_UDEV_ANSWERED_DIR (vsm-rundir.h). */

/* The stamp's name for an event: MAJOR:MINOR:ID_FS_TYPE:ID_FS_UUID, the
 * path the rule's TEST builds. NULL when one is missing or holds anything
 * but letters, digits, '-' and '_' (such a file system gets no stamp: the
 * helper runs on each of its events). */
char *vsm_udev_answer_stamp (const char *const *envp);

/* After the helper ran for the device of envp: drop the device's stamps
 * (an earlier file system of the same device number), and when answered
 * (it printed the properties of a FAT/exFAT file system and its knobs are
 * in place) leave the stamp of this one, naming its disk's bdi. A failure
 * only costs the skip. */
gboolean vsm_udev_note_answer (const char *const *envp, const char *bdi, gboolean answered,
                               GError **error);

/* The disk bdi ("MAJ:MIN") is gone: drop the stamps of its file systems. */
void vsm_udev_forget_answers (const char *bdi);

G_END_DECLS
