/* nbdkit-stick-filter: a cost model of a USB storage device, for the vfat-smart lab.
 *
 *   nbdkit --filter=.../nbdkit-stick-filter.so file disk.img \
 *          stick-bw=20M stick-cmd-ms=0.5 stick-seek-ms=20 stick-log=run.log
 *
 * Every write (and write-zeroes) is charged
 *     bytes / stick-bw  +  stick-cmd-ms
 *   + stick-seek-ms   when it does not start where the previous write ended
 *   + stick-small-ms  when it is shorter than stick-small-bytes (optional)
 * and the device time is serialised: one request at a time holds the device (a lock)
 * until its charge has elapsed, as on a stick with one flash channel. Reads, flushes and
 * trims are passed through free of charge.
 *
 * Flash translation (stick-au-bytes > 0; off by default, so the older profiles are
 * unchanged): a cheap controller writes flash in allocation units (AUs) of stick-au-bytes
 * and keeps stick-open-aus of them open for writing at once (a log block each). A write
 * continuing an open AU's write pointer, or skipping ahead in it, costs nothing extra. A
 * write to an AU that is not open opens it and closes the least recently used open AU;
 * a write that goes back inside an open AU (rewrites) closes it and opens it afresh. Closing
 * an AU that was not written to its end is a merge (garbage collection): the controller
 * copies the AU's unwritten rest from the old block, which stalls the device for
 *     stick-gc-ms + (stick-au-bytes - bytes written to the AU) / stick-gc-bw
 * (stick-gc-bw 0: only stick-gc-ms). Writes below stick-random-bytes (the FAT area and the
 * root directory at the start of the disk, which such controllers keep in a random-write
 * area) stay out of this and only pay the command/jump/small costs, and so do writes
 * shorter than stick-random-small-bytes anywhere on the disk (0, the default: none): the
 * controller keeps small writes in a random-write buffer of its own, so a directory
 * entry written among the data (a FAT32 directory's later clusters lie between the
 * files) neither evicts the open data AU nor, rewritten, merges its own. This is what makes a
 * cheap stick slow when two writers interleave: close's writeback and the flusher, each
 * sequential in its own part of the file, evict each other's AU half written.
 * stick-profile=FILE reads these keys from a lab profile (au_bytes, open_aus,
 * random_bytes, random_small_bytes, gc_ms, gc_bw), so that guest-run passes one path for
 * all of them.
 *
 * Command queue (stick-queue=N, default 1). A Bulk-Only (usb-storage) device takes one
 * command at a time: with N = 1 a write is a jump when it does not start where the
 * previous one ended (as before). A UAS drive takes N tagged commands at once and sorts
 * them (as NCQ does). QEMU's scsi-disk writes each SCSI command in 128 KiB pieces, the
 * next piece only after the guest's data for it has arrived, so with several UAS commands
 * in flight the pieces reach the filter round-robin across the commands (seen in the log:
 * every piece a "jump", ~1900 per 256 MiB). A real drive has the whole commands in its
 * queue and writes them in order. So with N > 1 a write is charged as a jump only when it
 * lies outside the reach of the commands in flight: farther than N x 512 KiB (the most uas
 * sends per command) from the previous write. Pieces of commands in flight together cost
 * no jump; a jump to the FAT, a directory or another file, and the jump back, still do
 * (a short hop, e.g. from one FAT copy to the next, is free in this model).
 *
 * Yank: when the file stick-yank-file=PATH exists (the lab's controller creates it on
 * the guest's request; checked before every write), or on a 4 KiB read of block
 * YANK_BLOCK (200) of the marker area (in-band, but it queues behind the guest's writes:
 * up to a second late), the device stops accepting writes at that instant, as if pulled: every later write and write-zeroes is dropped (not
 * applied; acknowledged at once, so the guest does not hang in error handling until it is
 * device_del'ed) and counted. The image then holds exactly what the device had when it
 * was pulled. A read of block UNYANK_BLOCK (201), or a new NBD connection (the drive
 * plugged in again, which also removes the yank file), makes it accept writes again.
 *
 * The request log (stick-log=FILE) has one line per write and marker lines:
 *   W <time_s> <offset> <bytes> <discontinuous 0|1> <charged_ms> [<merge_ms>]
 *     (merge_ms: the part of charged_ms that was merges, with the flash model on)
 *   M <index> <time_s> <writes> <bytes> <discontinuities> <busy_s>   (running totals)
 *   Y <time_s> <writes> <bytes>                     (yanked; totals up to then)
 *   U <time_s> <dropped_writes> <dropped_bytes>     (accepting writes again)
 *   S writes=.. bytes=.. discontinuities=.. small=.. flushes=.. busy_s=.. dropped=..
 *     merges=.. merge_s=..  (at exit)
 * A marker is a 4 KiB read of block N (N < 128) of the marker area, which starts
 * 1 MiB before the end of the disk (stick-marks=0 turns this off): a guest delimits a
 * run by reading block 2k before and 2k+1 after it, with O_DIRECT, and subtracts totals.
 *
 * The write journal (stick-journal=FILE, off by default) keeps the data of every write the
 * device applied, so that the image at any instant of the session can be rebuilt offline
 * from the image at the start (a pull replayed at any moment of a copy, without pulling:
 * bench/lib/pull_replay.py). One record per applied write or write-zeroes, in the order
 * the device applied them:
 *   "VSJ1" <kind u8: 'W' data follows | 'Z' zeroes> <3 bytes 0> <time_s f64> <offset u64>
 *   <bytes u32> <4 bytes 0> [<bytes> of data]                  (little-endian, 32-byte header)
 * time_s is the same clock and the same instant as the request log's W line: when the
 * write's charged time had passed (the device had it). A write dropped after a yank is
 * not in the journal. Trims pass the filter unrecorded (no lab file system discards).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nbdkit-filter.h>

#define MARK_AREA_FROM_END (1024 * 1024)
#define MARK_BLOCK 4096
#define MARK_COUNT 128
#define YANK_BLOCK 200
#define UNYANK_BLOCK 201
#define MAX_QUEUE 64
#define UAS_MAX_COMMAND (512 * 1024)
#define MAX_OPEN_AUS 16

/* parameters */
static int64_t bw = 20 * 1000 * 1000;  /* bytes per second */
static double cmd_ms = 0.5, seek_ms = 20, small_ms = 0;
static int64_t small_bytes = 0;
static const char *log_path, *yank_file, *journal_path;
static bool marks = true;
static int queue_depth = 1;
/* flash translation (see above); au_bytes 0 = off */
static int64_t au_bytes = 0, random_bytes = 0, random_small_bytes = 0, gc_bw = 0;
static int open_aus = 1;
static double gc_ms = 0;

/* state, all under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static FILE *journal_file;
static struct timespec t_start;
static uint64_t last_end = UINT64_MAX;
static uint64_t n_writes, n_bytes, n_discont, n_small, n_flushes;
static double busy_s;
static bool yanked;
static uint64_t n_dropped, n_dropped_bytes;
static uint64_t last_start = UINT64_MAX;
static uint64_t n_merges;
static double merge_s;
struct au
{
  bool used;
  uint64_t index;     /* AU number (offset / au_bytes) */
  uint64_t wp;        /* next offset in the AU that continues it */
  uint64_t written;   /* bytes written into it since it was opened */
  uint64_t lru;       /* last use, for eviction */
};
static struct au aus[MAX_OPEN_AUS];
static uint64_t au_clock;

static double
seconds_since (const struct timespec *t0)
{
  struct timespec now;
  clock_gettime (CLOCK_MONOTONIC, &now);
  return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

static int
parse_ms (const char *key, const char *value, double *out)
{
  char *end;
  double v;

  errno = 0;
  v = strtod (value, &end);
  if (errno != 0 || end == value || *end != '\0' || v < 0 || v > 60000)
    {
      nbdkit_error ("%s: expected milliseconds (0 to 60000), got '%s'", key, value);
      return -1;
    }
  *out = v;
  return 0;
}

static int
parse_size_key (const char *key, const char *value, int64_t *out)
{
  int64_t v = nbdkit_parse_size (value);
  if (v < 0)
    {
      nbdkit_error ("%s: expected a size in bytes, got '%s'", key, value);
      return -1;
    }
  *out = v;
  return 0;
}

static int
parse_int_key (const char *key, const char *value, long lo, long hi, int *out)
{
  char *end;
  long v;
  errno = 0;
  v = strtol (value, &end, 10);
  if (errno != 0 || end == value || *end != '\0' || v < lo || v > hi)
    {
      nbdkit_error ("%s: expected %ld to %ld, got '%s'", key, lo, hi, value);
      return -1;
    }
  *out = v;
  return 0;
}

/* The flash-translation keys of a lab profile (KEY=VALUE lines, # comments). */
static int
read_profile (const char *path)
{
  static const struct { const char *conf, *key; } keys[] = {
    { "au_bytes", "stick-au-bytes" }, { "open_aus", "stick-open-aus" },
    { "random_bytes", "stick-random-bytes" }, { "random_small_bytes", "stick-random-small-bytes" },
    { "gc_ms", "stick-gc-ms" },
    { "gc_bw", "stick-gc-bw" },
  };
  char line[512];
  FILE *f = fopen (path, "r");
  int r = 0;

  if (f == NULL)
    {
      nbdkit_error ("stick-profile: %s: %m", path);
      return -1;
    }
  while (r == 0 && fgets (line, sizeof line, f))
    {
      char *eq, *nl;
      size_t i;
      if (line[0] == '#' || (eq = strchr (line, '=')) == NULL)
        continue;
      *eq = '\0';
      if ((nl = strchr (eq + 1, '\n')) != NULL)
        *nl = '\0';
      for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp (line, keys[i].conf) == 0)
          {
            if (strcmp (keys[i].conf, "gc_ms") == 0)
              r = parse_ms (keys[i].key, eq + 1, &gc_ms);
            else if (strcmp (keys[i].conf, "open_aus") == 0)
              r = parse_int_key (keys[i].key, eq + 1, 1, MAX_OPEN_AUS, &open_aus);
            else
              r = parse_size_key (keys[i].key, eq + 1,
                                  strcmp (keys[i].conf, "au_bytes") == 0 ? &au_bytes :
                                  strcmp (keys[i].conf, "random_bytes") == 0 ? &random_bytes :
                                  strcmp (keys[i].conf, "random_small_bytes") == 0 ? &random_small_bytes :
                                  &gc_bw);
          }
    }
  fclose (f);
  return r;
}

static int
stick_config (nbdkit_next_config *next, nbdkit_backend *nxdata,
              const char *key, const char *value)
{
  if (strcmp (key, "stick-bw") == 0)
    {
      bw = nbdkit_parse_size (value);
      if (bw <= 0)
        {
          nbdkit_error ("stick-bw: expected bytes per second > 0, got '%s'", value);
          return -1;
        }
      return 0;
    }
  if (strcmp (key, "stick-cmd-ms") == 0)
    return parse_ms (key, value, &cmd_ms);
  if (strcmp (key, "stick-seek-ms") == 0)
    return parse_ms (key, value, &seek_ms);
  if (strcmp (key, "stick-small-ms") == 0)
    return parse_ms (key, value, &small_ms);
  if (strcmp (key, "stick-small-bytes") == 0)
    {
      small_bytes = nbdkit_parse_size (value);
      return small_bytes < 0 ? -1 : 0;
    }
  if (strcmp (key, "stick-queue") == 0)
    {
      char *end;
      long v;
      errno = 0;
      v = strtol (value, &end, 10);
      if (errno != 0 || end == value || *end != '\0' || v < 1 || v > MAX_QUEUE)
        {
          nbdkit_error ("stick-queue: expected a queue depth 1 to %d, got '%s'", MAX_QUEUE, value);
          return -1;
        }
      queue_depth = v;
      return 0;
    }
  if (strcmp (key, "stick-au-bytes") == 0)
    return parse_size_key (key, value, &au_bytes);
  if (strcmp (key, "stick-random-bytes") == 0)
    return parse_size_key (key, value, &random_bytes);
  if (strcmp (key, "stick-random-small-bytes") == 0)
    return parse_size_key (key, value, &random_small_bytes);
  if (strcmp (key, "stick-gc-bw") == 0)
    return parse_size_key (key, value, &gc_bw);
  if (strcmp (key, "stick-gc-ms") == 0)
    return parse_ms (key, value, &gc_ms);
  if (strcmp (key, "stick-open-aus") == 0)
    return parse_int_key (key, value, 1, MAX_OPEN_AUS, &open_aus);
  if (strcmp (key, "stick-profile") == 0)
    return read_profile (value);
  if (strcmp (key, "stick-yank-file") == 0)
    {
      yank_file = value;
      return 0;
    }
  if (strcmp (key, "stick-journal") == 0)
    {
      journal_path = value;
      return 0;
    }
  if (strcmp (key, "stick-log") == 0)
    {
      log_path = value;
      return 0;
    }
  if (strcmp (key, "stick-marks") == 0)
    {
      int r = nbdkit_parse_bool (value);
      if (r < 0)
        return -1;
      marks = r;
      return 0;
    }
  return next (nxdata, key, value);
}

/* One request at a time, in the order QEMU sent them: QEMU may keep several NBD writes
 * of one guest request in flight, and parallel handling could let them take the device
 * lock out of order and show up as jumps that the guest never made (a precaution). */
static int
stick_thread_model (void)
{
  return NBDKIT_THREAD_MODEL_SERIALIZE_REQUESTS;
}

static int
stick_get_ready (int thread_model)
{
  clock_gettime (CLOCK_MONOTONIC, &t_start);
  if (journal_path)
    {
      journal_file = fopen (journal_path, "w");
      if (journal_file == NULL)
        {
          nbdkit_error ("stick-journal: %s: %m", journal_path);
          return -1;
        }
    }
  if (log_path)
    {
      log_file = fopen (log_path, "w");
      if (log_file == NULL)
        {
          nbdkit_error ("stick-log: %s: %m", log_path);
          return -1;
        }
      fprintf (log_file,
               "# nbd-stick bw=%" PRId64 " cmd_ms=%g seek_ms=%g small_bytes=%" PRId64
               " small_ms=%g queue=%d au_bytes=%" PRId64 " open_aus=%d random_bytes=%" PRId64
               " random_small_bytes=%" PRId64 " gc_ms=%g gc_bw=%" PRId64 "\n"
               "# W time_s offset bytes discontinuous charged_ms\n"
               "# M index time_s writes bytes discontinuities busy_s\n",
               bw, cmd_ms, seek_ms, small_bytes, small_ms, queue_depth,
               au_bytes, open_aus, random_bytes, random_small_bytes, gc_ms, gc_bw);
      fflush (log_file);
    }
  return 0;
}

static void
stick_unload (void)
{
  if (journal_file)
    {
      fclose (journal_file);
      journal_file = NULL;
    }
  if (log_file == NULL)
    return;
  fprintf (log_file,
           "S writes=%" PRIu64 " bytes=%" PRIu64 " discontinuities=%" PRIu64
           " small=%" PRIu64 " flushes=%" PRIu64 " busy_s=%.3f dropped=%" PRIu64
           " merges=%" PRIu64 " merge_s=%.3f\n",
           n_writes, n_bytes, n_discont, n_small, n_flushes, busy_s, n_dropped,
           n_merges, merge_s);
  fclose (log_file);
  log_file = NULL;
}

/* Pull the device now (lock held). */
static void
do_yank (void)
{
  if (yanked)
    return;
  yanked = true;
  n_dropped = n_dropped_bytes = 0;
  if (log_file)
    {
      fprintf (log_file, "Y %.6f %" PRIu64 " %" PRIu64 "\n",
               seconds_since (&t_start), n_writes, n_bytes);
      fflush (log_file);
    }
}

/* Is a write at OFFSET a jump? (lock held) */
static bool
is_jump (uint64_t offset)
{
  uint64_t reach = (uint64_t) queue_depth * UAS_MAX_COMMAND;

  if (queue_depth == 1 || last_end == UINT64_MAX)
    return offset != last_end;
  return !(offset + reach >= last_start && offset <= last_end + reach);
}

/* Seconds of merge work to close AU A (lock held). */
static double
au_close (struct au *a)
{
  double cost = 0;
  if (a->used && a->written < (uint64_t) au_bytes)
    {
      cost = gc_ms / 1000;
      if (gc_bw > 0)
        cost += (double) ((uint64_t) au_bytes - a->written) / gc_bw;
      n_merges++;
    }
  a->used = false;
  return cost;
}

/* The flash translation's extra cost of a write (lock held): see the top of the file. */
static double
au_cost (uint32_t count, uint64_t offset)
{
  uint64_t pos = offset, end = offset + count;
  double cost = 0;

  if (au_bytes <= 0 || end <= (uint64_t) random_bytes || count < (uint64_t) random_small_bytes)
    return 0;
  if (pos < (uint64_t) random_bytes)
    pos = random_bytes;
  while (pos < end)
    {
      uint64_t idx = pos / au_bytes, au_end = (idx + 1) * au_bytes;
      uint64_t seg_end = end < au_end ? end : au_end;
      struct au *a = NULL, *victim = NULL;
      int i;

      for (i = 0; i < open_aus; i++)
        if (aus[i].used && aus[i].index == idx)
          a = &aus[i];
      if (a != NULL && pos < a->wp)
        {                                 /* going back in an open AU: rewrite it */
          cost += au_close (a);
          victim = a;
          a = NULL;
        }
      if (a == NULL)
        {
          if (victim == NULL)
            for (i = 0; i < open_aus; i++)
              if (!aus[i].used)
                {
                  victim = &aus[i];
                  break;
                }
          if (victim == NULL)
            {
              victim = &aus[0];
              for (i = 1; i < open_aus; i++)
                if (aus[i].lru < victim->lru)
                  victim = &aus[i];
              cost += au_close (victim);
            }
          a = victim;
          a->used = true;
          a->index = idx;
          a->written = 0;
        }
      a->written += seg_end - pos;
      a->wp = seg_end;
      a->lru = ++au_clock;
      if (a->wp == au_end && a->written >= (uint64_t) au_bytes)
        a->used = false;                  /* written to its end: closed for free */
      pos = seg_end;
    }
  return cost;
}

/* One journal record (lock held): header, then the data unless BUF is NULL (zeroes). A
 * journal that cannot be written is a lab failure: nbdkit stops rather than leave a
 * replay with a hole. */
static void
journal_write (double t, uint64_t offset, uint32_t count, const void *buf)
{
  unsigned char h[32] = { 'V', 'S', 'J', '1' };
  uint64_t t_bits;

  if (journal_file == NULL)
    return;
  h[4] = buf ? 'W' : 'Z';
  memcpy (&t_bits, &t, sizeof t_bits);
  for (int i = 0; i < 8; i++)
    {
      h[8 + i] = (unsigned char) (t_bits >> (8 * i));
      h[16 + i] = (unsigned char) (offset >> (8 * i));
    }
  for (int i = 0; i < 4; i++)
    h[24 + i] = (unsigned char) (count >> (8 * i));
  if (fwrite (h, sizeof h, 1, journal_file) != 1
      || (buf && count && fwrite (buf, count, 1, journal_file) != 1))
    {
      nbdkit_error ("stick-journal: write failed: %m");
      abort ();
    }
}

/* Charge one write of COUNT bytes at OFFSET; DO_IO performs it. Holds the lock until
 * the charged time has passed, so device time is serialised. */
static int
charged_write (uint32_t count, uint64_t offset, const void *buf,
               int (*do_io) (void *), void *io_arg)
{
  struct timespec t0, deadline;
  bool discont;
  double cost, merge, t_done;
  int r;

  pthread_mutex_lock (&lock);
  if (!yanked && yank_file && access (yank_file, F_OK) == 0)
    do_yank ();
  if (yanked)
    {
      n_dropped++;
      n_dropped_bytes += count;
      pthread_mutex_unlock (&lock);
      return 0;
    }
  clock_gettime (CLOCK_MONOTONIC, &t0);
  discont = is_jump (offset);
  cost = (double) count / bw + cmd_ms / 1000;
  if (discont)
    cost += seek_ms / 1000;
  if (count < small_bytes)
    {
      cost += small_ms / 1000;
      n_small++;
    }
  merge = au_cost (count, offset);
  cost += merge;
  merge_s += merge;
  r = do_io (io_arg);
  deadline.tv_sec = t0.tv_sec + (time_t) cost;
  deadline.tv_nsec = t0.tv_nsec + (long) ((cost - (time_t) cost) * 1e9);
  if (deadline.tv_nsec >= 1000000000)
    {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000;
    }
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR)
    ;
  last_end = offset + count;
  last_start = offset;
  n_writes++;
  n_bytes += count;
  n_discont += discont;
  busy_s += cost;
  t_done = seconds_since (&t_start);
  if (r == 0)
    journal_write (t_done, offset, count, buf);
  if (log_file)
    {
      if (au_bytes > 0)
        fprintf (log_file, "W %.6f %" PRIu64 " %" PRIu32 " %d %.3f %.3f\n",
                 t_done, offset, count, discont, cost * 1000, merge * 1000);
      else
        fprintf (log_file, "W %.6f %" PRIu64 " %" PRIu32 " %d %.3f\n",
                 t_done, offset, count, discont, cost * 1000);
      fflush (log_file);
    }
  pthread_mutex_unlock (&lock);
  return r;
}

/* A new NBD connection is a new plug of the device: it accepts writes again. */
static void *
stick_open (nbdkit_next_open *next, nbdkit_context *context, int readonly,
            const char *exportname, int is_tls)
{
  if (next (context, readonly, exportname) == -1)
    return NULL;
  pthread_mutex_lock (&lock);
  if (yank_file)
    unlink (yank_file);
  if (yanked)
    {
      yanked = false;
      if (log_file)
        {
          fprintf (log_file, "U %.6f %" PRIu64 " %" PRIu64 "\n",
                   seconds_since (&t_start), n_dropped, n_dropped_bytes);
          fflush (log_file);
        }
    }
  pthread_mutex_unlock (&lock);
  return NBDKIT_HANDLE_NOT_NEEDED;
}

struct io
{
  nbdkit_next *next;
  const void *buf;
  uint32_t count;
  uint64_t offset;
  uint32_t flags;
  int *err;
};

static int
io_pwrite (void *arg)
{
  struct io *io = arg;
  return io->next->pwrite (io->next, io->buf, io->count, io->offset, io->flags, io->err);
}

static int
io_zero (void *arg)
{
  struct io *io = arg;
  return io->next->zero (io->next, io->count, io->offset, io->flags, io->err);
}

static int
stick_pwrite (nbdkit_next *next, void *handle, const void *buf, uint32_t count,
              uint64_t offset, uint32_t flags, int *err)
{
  struct io io = { next, buf, count, offset, flags, err };
  return charged_write (count, offset, buf, io_pwrite, &io);
}

static int
stick_zero (nbdkit_next *next, void *handle, uint32_t count, uint64_t offset,
            uint32_t flags, int *err)
{
  struct io io = { next, NULL, count, offset, flags, err };
  return charged_write (count, offset, NULL, io_zero, &io);
}

static int
stick_flush (nbdkit_next *next, void *handle, uint32_t flags, int *err)
{
  pthread_mutex_lock (&lock);
  n_flushes++;
  pthread_mutex_unlock (&lock);
  return next->flush (next, flags, err);
}

static int
stick_pread (nbdkit_next *next, void *handle, void *buf, uint32_t count,
             uint64_t offset, uint32_t flags, int *err)
{
  if (marks && log_file && count == MARK_BLOCK && offset % MARK_BLOCK == 0)
    {
      int64_t size = next->get_size (next);
      if (size >= 2 * MARK_AREA_FROM_END)
        {
          uint64_t area = (uint64_t) size - MARK_AREA_FROM_END;
          uint64_t block = offset >= area ? (offset - area) / MARK_BLOCK : UINT64_MAX;
          if (block == YANK_BLOCK || block == UNYANK_BLOCK)
            {
              pthread_mutex_lock (&lock);
              if (block == YANK_BLOCK)
                do_yank ();
              else if (block == UNYANK_BLOCK && yanked)
                {
                  yanked = false;
                  fprintf (log_file, "U %.6f %" PRIu64 " %" PRIu64 "\n",
                           seconds_since (&t_start), n_dropped, n_dropped_bytes);
                }
              fflush (log_file);
              pthread_mutex_unlock (&lock);
            }
          else if (offset >= area && offset < area + MARK_COUNT * MARK_BLOCK)
            {
              pthread_mutex_lock (&lock);
              fprintf (log_file, "M %" PRIu64 " %.6f %" PRIu64 " %" PRIu64 " %" PRIu64 " %.6f\n",
                       (offset - area) / MARK_BLOCK, seconds_since (&t_start),
                       n_writes, n_bytes, n_discont, busy_s);
              fflush (log_file);
              pthread_mutex_unlock (&lock);
            }
        }
    }
  return next->pread (next, buf, count, offset, flags, err);
}

static struct nbdkit_filter filter = {
  .name = "stick",
  .longname = "vfat-smart lab USB storage cost model",
  .config = stick_config,
  .config_help =
    "stick-bw=BYTES/S         sequential write bandwidth (default 20M)\n"
    "stick-cmd-ms=MS          cost of every write command (default 0.5)\n"
    "stick-seek-ms=MS         extra cost of a write that does not continue the last (20)\n"
    "stick-small-bytes=SIZE   writes shorter than this pay stick-small-ms (default 0)\n"
    "stick-small-ms=MS        small-write penalty (default 0)\n"
    "stick-queue=N            commands in flight: 1 (Bulk-Only, default) or up to 64 (UAS;\n"
    "                         writes within N x 512 KiB of the previous are no jumps)\n"
    "stick-au-bytes=SIZE      flash allocation unit; 0 (default): no flash translation model\n"
    "stick-open-aus=N         AUs open for writing at once (default 1)\n"
    "stick-random-bytes=SIZE  the start of the disk that is exempt (FAT area; default 0)\n"
    "stick-random-small-bytes=SIZE  writes shorter than this are exempt too (default 0)\n"
    "stick-gc-ms=MS           fixed cost of a merge (closing an AU not written to its end)\n"
    "stick-gc-bw=BYTES/S      copy rate of a merge for the AU's unwritten rest (0: none)\n"
    "stick-profile=FILE       read au_bytes, open_aus, random_bytes, random_small_bytes,\n"
    "                         gc_ms, gc_bw from FILE\n"
    "stick-journal=FILE       the data of every applied write, for replays\n"
    "stick-yank-file=PATH     when PATH exists, the device takes no more writes (a pull)\n"
    "stick-log=FILE           request log with markers and a summary\n"
    "stick-marks=BOOL         count 4K reads in the last MiB as markers (default true)",
  .thread_model = stick_thread_model,
  .get_ready = stick_get_ready,
  .open = stick_open,
  .unload = stick_unload,
  .pread = stick_pread,
  .pwrite = stick_pwrite,
  .zero = stick_zero,
  .flush = stick_flush,
};

NBDKIT_REGISTER_FILTER (filter)
