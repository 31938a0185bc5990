/*
 * combined: one window, half in memory and half on storage.
 *
 * With storage_alloc_factor=0.5 (and the default order memory_first) the
 * window is one contiguous range of addresses: its first half is ordinary
 * anonymous memory, its second half maps the file. The program shows this
 * from the kernel's point of view (/proc/self/maps), prints the effective
 * hints that MPI_Win_get_info returns, and checks that
 *   - the window starts in memory and ends in the file, split on a page
 *     boundary within one page of half the window;
 *   - an MPI_Put across the split lands in both parts;
 *   - after MPI_Win_sync the file holds exactly the storage half.
 *
 * Run: mpiexec -n 1 ./combined      (more ranks work too: one file per rank)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "example_util.h" /* rank, dir, CHECK, check_mpi, ... */

/* One line of /proc/self/maps that overlaps the window. */
struct region {
  uintptr_t lo, hi;         /* clipped to the window */
  unsigned long long off;   /* file offset of lo (file mappings) */
  unsigned long inode;      /* 0 for anonymous memory */
  char path[256];
};

/* Collects the mappings that cover [base, base+len), in address order. */
static int window_regions(uintptr_t base, size_t len, struct region *out, int max)
{
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return -1;
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f) && n < max) {
    unsigned long lo, hi, inode;
    unsigned long long off;
    char perms[8];
    int pos = 0;
    if (sscanf(line, "%lx-%lx %7s %llx %*x:%*x %lu %n", &lo, &hi, perms, &off, &inode, &pos) < 5)
      continue;
    if (hi <= base || lo >= base + len)
      continue;
    struct region *r = &out[n++];
    r->lo = lo < base ? base : lo;
    r->hi = hi > base + len ? base + len : hi;
    r->off = off + (r->lo - lo);
    r->inode = inode;
    line[strcspn(line, "\n")] = '\0';
    snprintf(r->path, sizeof r->path, "%s", pos > 0 ? line + pos : "");
  }
  fclose(f);
  return n;
}

int main(int argc, char **argv)
{
  example_name = "combined";
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  /* A fresh directory for the window files, shared by all ranks. */
  make_scratch_dir("mpisw-combined");

  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t size = 16 * page;

  char filename[512];
  snprintf(filename, sizeof filename, "%s/combined-%%r.dat", dir);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_type", "storage");
  MPI_Info_set(info, "storage_alloc_filename", filename);
  MPI_Info_set(info, "storage_alloc_factor", "0.5");
  MPI_Info_set(info, "storage_alloc_order", "memory_first");
  MPI_Info_set(info, "storage_alloc_unlink", "true");
  /* The kernel's view below shows the file mapping, which is the mmap
   * backend's (the default here: the window fits in memory); named, so that
   * MPISW_HINTS=storage_backend=pager cannot swap in the pager, whose
   * storage half is its own anonymous memory. */
  MPI_Info_set(info, "storage_backend", "mmap");

  unsigned char *base = NULL;
  MPI_Win win;
  check_mpi(MPI_Win_allocate((MPI_Aint)size, 1, info, MPI_COMM_WORLD, &base, &win),
            "MPI_Win_allocate");
  MPI_Info_free(&info);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  const int storage = storage_active(); /* without it: one memory window, no split */

  /* 1. What the library says it did. */
  MPI_Info got;
  check_mpi(MPI_Win_get_info(win, &got), "MPI_Win_get_info");
  int nkeys = 0;
  MPI_Info_get_nkeys(got, &nkeys);
  char used[MPI_MAX_INFO_VAL + 1] = "", factor[MPI_MAX_INFO_VAL + 1] = "",
       type[MPI_MAX_INFO_VAL + 1] = "";
  int others = 0;
  if (rank == 0)
    printf("MPI_Win_get_info of a %zu-byte window (the storage hints):\n", size);
  for (int k = 0; k < nkeys; k++) {
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get_nthkey(got, k, key);
    MPI_Info_get(got, key, MPI_MAX_INFO_VAL, val, &flag);
    if (!flag)
      continue;
    int ours = !strcmp(key, "alloc_type") || !strncmp(key, "storage_", 8) ||
               !strcmp(key, "access_style") || !strcmp(key, "file_perm");
    if (!ours) {
      others++;
      continue;
    }
    if (rank == 0)
      printf("  %-24s = %s\n", key, val);
    if (!strcmp(key, "storage_alloc_filename"))
      snprintf(used, sizeof used, "%s", val);
    else if (!strcmp(key, "storage_alloc_factor"))
      snprintf(factor, sizeof factor, "%s", val);
    else if (!strcmp(key, "alloc_type"))
      snprintf(type, sizeof type, "%s", val);
  }
  MPI_Info_free(&got);
  if (rank == 0)
    printf("  (and %d keys of the MPI library itself)\n", others);
  CHECK(!storage || !strcmp(type, "storage"), "alloc_type is '%s', not 'storage'", type);
  CHECK(!storage || used[0] != '\0', "no storage_alloc_filename in MPI_Win_get_info");
  CHECK(!storage || (factor[0] && strtod(factor, NULL) == 0.5),
        "storage_alloc_factor is '%s', not 0.5", factor);
  if (!storage)
    used[0] = '\0'; /* no file, whatever the MPI says about keys it does not know */

  /* 2. What the kernel says: memory first, then the file. */
  struct stat st;
  memset(&st, 0, sizeof st);
  CHECK(used[0] == '\0' || stat(used, &st) == 0, "stat %s: %s", used, strerror(errno));
  struct region reg[16];
  int n = storage ? window_regions((uintptr_t)base, size, reg, 16) : 0;
  CHECK(!storage || n > 0, "the window is not in /proc/self/maps");
  size_t mem_len = 0, sto_len = 0;
  int seen_file = 0, order_ok = 1;
  if (rank == 0)
    printf("/proc/self/maps over the window at %p:\n", (void *)base);
  for (int i = 0; i < n; i++) {
    int is_file = reg[i].inode != 0 && reg[i].inode == (unsigned long)st.st_ino;
    size_t from = reg[i].lo - (uintptr_t)base, to = reg[i].hi - (uintptr_t)base;
    if (rank == 0) {
      if (is_file)
        printf("  window bytes [%7zu, %7zu): storage, %s at file offset %llu\n", from, to,
               reg[i].path, reg[i].off);
      else
        printf("  window bytes [%7zu, %7zu): memory (anonymous)\n", from, to);
    }
    if (is_file) {
      if (!seen_file)
        CHECK(reg[i].off == 0, "the storage part starts at file offset %llu, not 0",
              reg[i].off);
      seen_file = 1;
      sto_len += to - from;
    } else {
      if (seen_file)
        order_ok = 0;
      CHECK(reg[i].inode == 0, "window bytes [%zu, %zu) map another file: %s", from, to,
            reg[i].path);
      mem_len += to - from;
    }
  }
  if (storage) {
    CHECK(order_ok, "memory follows storage, but the order is memory_first");
    CHECK(mem_len + sto_len == size, "the maps cover %zu of %zu bytes", mem_len + sto_len, size);
    CHECK(mem_len % page == 0, "the split at %zu is not on a page boundary", mem_len);
    CHECK(mem_len + page > size / 2 && mem_len < size / 2 + page,
          "%zu bytes in memory, expected about %zu", mem_len, size / 2);
    CHECK((size_t)st.st_size >= sto_len, "the file has %lld bytes, the storage part %zu",
          (long long)st.st_size, sto_len);
    if (rank == 0)
      printf("%zu bytes in memory, %zu bytes on storage\n", mem_len, sto_len);
  } else {
    mem_len = size / 2; /* no split: the puts below still go across the middle */
  }

  /* 3. One window: fill it, put two pages across the split, sync. */
  check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win), "MPI_Win_lock");
  for (size_t i = 0; i < size; i++)
    base[i] = (unsigned char)(i % 251);
  check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");

  unsigned char *src = malloc(2 * page);
  for (size_t i = 0; i < 2 * page; i++)
    src[i] = (unsigned char)(0x80 | (i % 127));
  /* Two pages around the split (kept inside the window whatever the split). */
  size_t split = mem_len < page ? page : mem_len > size - page ? size - page : mem_len;
  MPI_Aint at = (MPI_Aint)(split - page);
  check_mpi(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win), "MPI_Win_lock");
  check_mpi(MPI_Put(src, (int)(2 * page), MPI_BYTE, rank, at, (int)(2 * page), MPI_BYTE, win),
            "MPI_Put");
  check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");

  check_mpi(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), "MPI_Win_lock");
  check_mpi(MPI_Win_sync(win), "MPI_Win_sync");
  int bad = 0;
  for (size_t i = 0; i < size; i++) {
    unsigned char want = (i >= (size_t)at && i < (size_t)at + 2 * page)
                             ? src[i - (size_t)at]
                             : (unsigned char)(i % 251);
    if (base[i] != want)
      bad++;
  }
  CHECK(bad == 0, "%d bytes of the window are wrong after the put", bad);

  /* The file holds the storage part, byte for byte. */
  if (used[0] && sto_len > 0) {
    unsigned char *file = malloc(sto_len);
    int fd = open(used, O_RDONLY);
    CHECK(fd >= 0, "open %s: %s", used, strerror(errno));
    if (fd >= 0) {
      ssize_t got_n = pread(fd, file, sto_len, 0);
      CHECK(got_n == (ssize_t)sto_len, "short read from %s", used);
      if (got_n == (ssize_t)sto_len)
        CHECK(memcmp(file, base + mem_len, sto_len) == 0,
              "the file differs from the storage part of the window");
      close(fd);
    }
    free(file);
  }
  check_mpi(MPI_Win_unlock(rank, win), "MPI_Win_unlock");
  free(src);

  check_mpi(MPI_Win_free(&win), "MPI_Win_free");
  CHECK(used[0] == '\0' || stat(used, &st) != 0, "%s still exists after MPI_Win_free", used);

  int status = example_result(); /* collective: all ranks' failures */
  MPI_Finalize();
  return status;
}
