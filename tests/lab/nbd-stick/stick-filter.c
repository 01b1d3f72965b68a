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
 * The request log (stick-log=FILE) has one line per write and marker lines:
 *   W <time_s> <offset> <bytes> <discontinuous 0|1> <charged_ms>
 *   M <index> <time_s> <writes> <bytes> <discontinuities> <busy_s>   (running totals)
 *   S writes=.. bytes=.. discontinuities=.. small=.. flushes=.. busy_s=..   (at exit)
 * A marker is a 4 KiB read of block N (N < 128) of the marker area, which starts
 * 1 MiB before the end of the disk (stick-marks=0 turns this off): a guest delimits a
 * run by reading block 2k before and 2k+1 after it, with O_DIRECT, and subtracts totals.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nbdkit-filter.h>

#define MARK_AREA_FROM_END (1024 * 1024)
#define MARK_BLOCK 4096
#define MARK_COUNT 128

/* parameters */
static int64_t bw = 20 * 1000 * 1000;  /* bytes per second */
static double cmd_ms = 0.5, seek_ms = 20, small_ms = 0;
static int64_t small_bytes = 0;
static const char *log_path;
static bool marks = true;

/* state, all under lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static struct timespec t_start;
static uint64_t last_end = UINT64_MAX;
static uint64_t n_writes, n_bytes, n_discont, n_small, n_flushes;
static double busy_s;

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
               " small_ms=%g\n"
               "# W time_s offset bytes discontinuous charged_ms\n"
               "# M index time_s writes bytes discontinuities busy_s\n",
               bw, cmd_ms, seek_ms, small_bytes, small_ms);
      fflush (log_file);
    }
  return 0;
}

static void
stick_unload (void)
{
  if (log_file == NULL)
    return;
  fprintf (log_file,
           "S writes=%" PRIu64 " bytes=%" PRIu64 " discontinuities=%" PRIu64
           " small=%" PRIu64 " flushes=%" PRIu64 " busy_s=%.3f\n",
           n_writes, n_bytes, n_discont, n_small, n_flushes, busy_s);
  fclose (log_file);
  log_file = NULL;
}

/* Charge one write of COUNT bytes at OFFSET; DO_IO performs it. Holds the lock until
 * the charged time has passed, so device time is serialised. */
static int
charged_write (uint32_t count, uint64_t offset,
               int (*do_io) (void *), void *io_arg)
{
  struct timespec t0, deadline;
  bool discont;
  double cost;
  int r;

  pthread_mutex_lock (&lock);
  clock_gettime (CLOCK_MONOTONIC, &t0);
  discont = offset != last_end;
  cost = (double) count / bw + cmd_ms / 1000;
  if (discont)
    cost += seek_ms / 1000;
  if (count < small_bytes)
    {
      cost += small_ms / 1000;
      n_small++;
    }
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
  n_writes++;
  n_bytes += count;
  n_discont += discont;
  busy_s += cost;
  if (log_file)
    {
      fprintf (log_file, "W %.6f %" PRIu64 " %" PRIu32 " %d %.3f\n",
               seconds_since (&t_start), offset, count, discont, cost * 1000);
      fflush (log_file);
    }
  pthread_mutex_unlock (&lock);
  return r;
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
  return charged_write (count, offset, io_pwrite, &io);
}

static int
stick_zero (nbdkit_next *next, void *handle, uint32_t count, uint64_t offset,
            uint32_t flags, int *err)
{
  struct io io = { next, NULL, count, offset, flags, err };
  return charged_write (count, offset, io_zero, &io);
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
          if (offset >= area && offset < area + MARK_COUNT * MARK_BLOCK)
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
    "stick-log=FILE           request log with markers and a summary\n"
    "stick-marks=BOOL         count 4K reads in the last MiB as markers (default true)",
  .thread_model = stick_thread_model,
  .get_ready = stick_get_ready,
  .unload = stick_unload,
  .pread = stick_pread,
  .pwrite = stick_pwrite,
  .zero = stick_zero,
  .flush = stick_flush,
};

NBDKIT_REGISTER_FILTER (filter)
