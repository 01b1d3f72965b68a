/* vsm-state.h - what vfat-smart applied, with the original values
 *
 * One key file per managed disk, /run/vfat-smart/MAJ-MIN.state, and one
 * for the system-wide vm.* knobs, global.state, shared by its owners.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-intent.h"
#include "vsm-reason.h"

#include <glib.h>

G_BEGIN_DECLS

void vsm_knob_record_free (VsmKnobRecord *r);
VsmKnobRecord *vsm_knob_record_copy (const VsmKnobRecord *r);

VsmState *vsm_state_new (const char *bdi);

/* Creates the state directory (0755, owned by us, not a symlink) and takes
 * an exclusive lock on it, waiting at most timeout_ms (VSM_ERROR_BUSY
 * then); returns the lock fd, or -1 with error. */
int vsm_state_lock (guint timeout_ms, GError **error);
void vsm_state_unlock (int fd);

gboolean vsm_state_save (const VsmState *state, GError **error);
gboolean vsm_state_remove (const char *bdi, GError **error);
/* Writes a file of the state directory by name, atomically (temp file,
 * fsync, rename), 0644. */
gboolean vsm_state_write_file (const char *name, const char *data, gsize len, GError **error);
/* Forgets a state file by name ("7-0.state") without touching any knob. */
gboolean vsm_state_remove_file (const char *name, GError **error);

/* The system-wide knobs, with the disks that rely on them. */
typedef struct
{
  GPtrArray *knobs;  /* VsmKnobRecord* */
  GPtrArray *owners; /* char* bdi */
} VsmGlobalState;

void vsm_global_state_free (VsmGlobalState *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmGlobalState, vsm_global_state_free)
VsmGlobalState *vsm_global_state_load (GError **error); /* empty when absent */
gboolean vsm_global_state_save (const VsmGlobalState *g, GError **error);

gboolean vsm_global_state_has_owner (const VsmGlobalState *g, const char *bdi);
void vsm_global_state_add_owner (VsmGlobalState *g, const char *bdi);
void vsm_global_state_drop_owner (VsmGlobalState *g, const char *bdi);

/* parsing is separate so that tests can feed garbage */
VsmState *vsm_state_from_data (const char *data, gsize len, GError **error);
char *vsm_state_to_data (const VsmState *state, gsize *len);
VsmGlobalState *vsm_global_state_from_data (const char *data, gsize len, GError **error);

/* Reads a file of the state directory: a regular file (never a FIFO or a
 * link), owned by us, writable by nobody else, of sane size. */
gboolean vsm_state_read_file (const char *path, char **data, gsize *len, GError **error);
/* The same for a file that may be larger: never more than max bytes are
 * read (len == max: there may be more). On an error, untrusted (may be
 * NULL) tells a file that is there but fails the checks above (a link,
 * not a regular file, another owner or writer) from one that could not
 * be read (EIO, EMFILE, EACCES, a short read: a passing trouble). */
gboolean vsm_state_read_file_max (const char *path, gsize max, char **data, gsize *len,
                                  gboolean *untrusted, GError **error);

G_END_DECLS
