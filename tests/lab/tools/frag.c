/* frag - fragment the guest's free memory the way a long-used desktop has it.
 *
 * Usage: frag MIB READY-FILE
 * Faults in MIB MiB of anonymous memory, then gives back every other 4 KiB page and
 * holds the rest until killed. Page-cache pages allocated afterwards are physically
 * scattered, so the block layer cannot merge a file's pages into bios above ~1 MiB
 * (see LAB-NOTES: without this, a fresh TCG guest builds unrealistically big bios).
 * Creates READY-FILE once the memory is in place. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  size_t len, off;
  char *mem;
  FILE *ready;

  if (argc != 3 || atol (argv[1]) <= 0)
    {
      fprintf (stderr, "usage: frag MIB READY-FILE\n");
      return 2;
    }
  len = (size_t) atol (argv[1]) << 20;
  mem = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    {
      perror ("frag: mmap");
      return 1;
    }
  madvise (mem, len, MADV_NOHUGEPAGE);
  for (off = 0; off < len; off += 4096)
    mem[off] = 1;
  for (off = 0; off < len; off += 8192)
    madvise (mem + off, 4096, MADV_DONTNEED);
  ready = fopen (argv[2], "w");
  if (ready == NULL)
    {
      perror ("frag: ready file");
      return 1;
    }
  fclose (ready);
  for (;;)
    pause ();
}
