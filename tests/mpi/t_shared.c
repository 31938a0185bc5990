/*
 * MPI_Win_allocate_shared on storage: one file per node.
 *   t_shared contig        segments contiguous in rank order, at storage_alloc_offset in the file;
 *                          then unlink=true and directory-mode shared windows
 *   t_shared contig100     the same layout at the unaligned storage_alloc_offset 100
 *   t_shared noncontig     alloc_shared_noncontig=true: page-aligned segments
 *   t_shared zero0         rank 0 has size 0: MPI_PROC_NULL query gives rank 1's segment
 *   t_shared hints0        rank 0's hints decide the file (other ranks name other files)
 *   t_shared multinode N   run over N simulated nodes: file node-%h per node (tests/tools/simhost.sh)
 * Every mode: direct load/store into other ranks' segments visible after
 * MPI_Win_sync + barrier, MPI_Put into the window, the bytes in the file
 * after MPI_Win_sync and after MPI_Win_free, flavor MPI_WIN_FLAVOR_SHARED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

static MPI_Comm node;
static int nrank, nsize;

static size_t seg_size(const char *mode, int r) {
  if (!strcmp(mode, "zero0") && r == 0) return 0;
  return 10000 + 3000 * (size_t)r;
}

static void sync_all(MPI_Win win) {
  CHECK_MPI(MPI_Win_sync(win));
  CHECK_MPI(MPI_Barrier(node));
  CHECK_MPI(MPI_Win_sync(win));
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "contig";
  int want_nodes = argc > 2 ? atoi(argv[2]) : 1;
  int multinode = !strcmp(mode, "multinode");
  int noncontig = !strcmp(mode, "noncontig");
  int hints0 = !strcmp(mode, "hints0");
  int c100 = !strcmp(mode, "contig100");
  if (strcmp(mode, "contig") && !c100 && !noncontig && strcmp(mode, "zero0") && !hints0 && !multinode)
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  tl_scratch();
  char host[256] = "";
  CHECK(gethostname(host, sizeof host - 1) == 0, "gethostname");

  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, tl_rank, MPI_INFO_NULL, &node));
  CHECK_MPI(MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN));
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);
  int nodes = tl_allsum(nrank == 0);
  CHECK(nodes == want_nodes, "%d nodes (MPI_COMM_TYPE_SHARED), expected %d", nodes, want_nodes);
  if (!strcmp(mode, "zero0") && nsize < 2) tl_skip("zero0 needs 2 ranks on a node");

  /* hosts: every node leader must have a different host name in multinode mode */
  if (multinode) {
    char *all = calloc((size_t)tl_size, 256);
    CHECK_MPI(MPI_Allgather(host, 256, MPI_CHAR, all, 256, MPI_CHAR, MPI_COMM_WORLD));
    int *lead = calloc((size_t)tl_size, sizeof(int));
    int me0 = nrank == 0;
    CHECK_MPI(MPI_Allgather(&me0, 1, MPI_INT, lead, 1, MPI_INT, MPI_COMM_WORLD));
    for (int a = 0; a < tl_size; a++)
      for (int b = a + 1; b < tl_size; b++)
        if (lead[a] && lead[b])
          CHECK(strcmp(all + 256 * a, all + 256 * b) != 0,
                "ranks %d and %d lead different nodes but both have host name '%s' (simhost.sh not used?)", a, b,
                all + 256 * a);
    free(all);
    free(lead);
  }

  const off_t off = c100 ? 100 : 4096;
  char fn[PATH_MAX], tmpl[PATH_MAX];
  if (multinode) {
    snprintf(tmpl, sizeof tmpl, "%s/node-%%h", tl_scratch());
    snprintf(fn, sizeof fn, "%s/node-%s", tl_scratch(), host);
  } else {
    snprintf(tmpl, sizeof tmpl, "%s/node.dat", tl_scratch());
    snprintf(fn, sizeof fn, "%s", tmpl);
  }
  MPI_Info info;
  if (hints0 && nrank != 0) {
    char other[PATH_MAX];
    snprintf(other, sizeof other, "%s/other-%d", tl_scratch(), nrank);
    info = tl_sinfo(other, "storage_alloc_offset=0", NULL);
  } else {
    info = tl_sinfo(tmpl, c100 ? "storage_alloc_offset=100" : "storage_alloc_offset=4096", NULL);
  }
  if (noncontig) CHECK_MPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  size_t my = seg_size(mode, nrank);
  void *base = NULL;
  MPI_Win win;
  int rc = MPI_Win_allocate_shared((MPI_Aint)my, 1, info, node, &base, &win);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_allocate_shared: %s", tl_errstr(rc));
  tl_win_errors_return(win);
  CHECK(tl_win_flavor(win) == MPI_WIN_FLAVOR_SHARED, "flavor %d, expected MPI_WIN_FLAVOR_SHARED (%d)",
        tl_win_flavor(win), MPI_WIN_FLAVOR_SHARED);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  /* one file per node, nothing else */
  CHECK(tl_exists(fn), "node file %s does not exist", fn);
  int files = tl_count_dir(tl_scratch(), NULL);
  CHECK(files == nodes, "scratch directory holds %d files, expected %d (one per node)", files, nodes);

  /* segments */
  char **ptr = calloc((size_t)nsize, sizeof(char *));
  size_t *prefix = calloc((size_t)nsize + 1, sizeof(size_t));
  MPI_Aint *qsize = calloc((size_t)nsize, sizeof(MPI_Aint));
  for (int q = 0; q < nsize; q++) {
    MPI_Aint sz = -1;
    int du = -1;
    void *p = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, q, &sz, &du, &p));
    MPI_Aint want = (MPI_Aint)seg_size(mode, q);
#ifdef OPEN_MPI /* as its memory windows answer (t_zeroseg.c compares them) */
    if (noncontig && nsize > 1) want = (want + (MPI_Aint)tl_page - 1) / (MPI_Aint)tl_page * (MPI_Aint)tl_page;
#endif
    CHECK(sz == want, "shared_query(%d): size %lld, expected %lld", q, (long long)sz, (long long)want);
    CHECK(du == 1, "shared_query(%d): disp_unit %d", q, du);
    ptr[q] = p;
    qsize[q] = sz;
    prefix[q + 1] = prefix[q] + seg_size(mode, q);
  }
  CHECK(ptr[nrank] == base || my == 0, "shared_query of my rank gives %p, MPI_Win_allocate_shared gave %p",
        (void *)ptr[nrank], base);
  {
    MPI_Aint sz;
    int du;
    void *p = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
    int first = 0;
    while (first < nsize && seg_size(mode, first) == 0) first++;
    CHECK(p == ptr[first] && sz == qsize[first],
          "shared_query(MPI_PROC_NULL) gave %p size %lld, expected rank %d's segment %p", p, (long long)sz, first,
          (void *)ptr[first]);
  }
  int first = 0; /* first rank with a non-empty segment */
  while (first < nsize - 1 && seg_size(mode, first) == 0) first++;
  off_t *foff = calloc((size_t)nsize, sizeof(off_t));
  for (int q = 0; q < nsize; q++) {
    if (seg_size(mode, q) == 0) continue;
    if (noncontig)
      CHECK(((uintptr_t)ptr[q] % tl_page) == 0, "alloc_shared_noncontig: segment of rank %d at %p is not page-aligned",
            q, (void *)ptr[q]);
    else
      CHECK(ptr[q] == ptr[first] + (prefix[q] - prefix[first]),
            "contiguous: segment of rank %d at %p, expected %p (rank %d's segment + %zu)", q, (void *)ptr[q],
            (void *)(ptr[first] + (prefix[q] - prefix[first])), first, prefix[q] - prefix[first]);
    char perms[5];
    int k = tl_backing(ptr[q], fn, &foff[q], perms);
    CHECK(k == TL_FILE, "segment of rank %d is not mapped from %s (kind %d)", q, fn, k);
    CHECK(perms[3] == 's', "segment of rank %d mapped '%s', expected shared", q, perms);
    if (!noncontig)
      CHECK(foff[q] == off + (off_t)prefix[q], "segment of rank %d at file offset %lld, expected %lld", q,
            (long long)foff[q], (long long)(off + (off_t)prefix[q]));
    k = tl_backing(ptr[q] + seg_size(mode, q) - 1, fn, NULL, NULL);
    CHECK(k == TL_FILE, "last byte of rank %d's segment is not file-backed", q);
  }
  if (noncontig) {
    off_t prev_end = off;
    for (int q = 0; q < nsize; q++) {
      if (seg_size(mode, q) == 0) continue;
      CHECK(foff[q] >= prev_end, "noncontig: rank %d's segment at file offset %lld overlaps the previous (ends %lld)",
            q, (long long)foff[q], (long long)prev_end);
      if (q == first) CHECK(foff[q] == off, "rank %d's segment at file offset %lld, expected %lld", q,
                            (long long)foff[q], (long long)off);
      prev_end = foff[q] + (off_t)seg_size(mode, q);
    }
  }

  CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  /* phase 1: own segment, read everybody's */
  tl_fill(base, my, 300 + nrank, 0);
  sync_all(win);
  for (int q = 0; q < nsize; q++) {
    long bad = tl_verify(ptr[q], seg_size(mode, q), 300 + q, 0);
    CHECK(bad < 0, "load from rank %d's segment: byte %ld not what rank %d stored", q, bad, q);
  }
  sync_all(win);
  /* phase 2: store into the next rank's segment */
  int nx = (nrank + 1) % nsize, pv = (nrank + nsize - 1) % nsize;
  tl_fill(ptr[nx], seg_size(mode, nx), 400 + nrank, 0);
  sync_all(win);
  CHECK(tl_verify(base, my, 400 + pv, 0) < 0, "direct store by rank %d into my segment not visible", pv);
  CHECK_MPI(MPI_Win_unlock_all(win));
  /* phase 3: MPI_Put into the next rank's segment */
  char *src = malloc(seg_size(mode, nx) + 1);
  tl_fill(src, seg_size(mode, nx), 500 + nrank, 0);
  CHECK_MPI(MPI_Win_fence(0, win));
  if (seg_size(mode, nx))
    CHECK_MPI(MPI_Put(src, (int)seg_size(mode, nx), MPI_BYTE, nx, 0, (int)seg_size(mode, nx), MPI_BYTE, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  {
    long bad = tl_verify(base, my, 500 + pv, 0);
    CHECK(bad < 0, "MPI_Put by rank %d into my segment (%zu bytes) not visible: byte %ld on holds %s", pv, my, bad,
          bad < 0 ? "" : tl_describe((char *)base + bad, my - (size_t)bad, (size_t)bad));
  }
  free(src);
  TL_SYNC(win);
  CHECK_MPI(MPI_Barrier(node));
  /* the file holds every segment at its offset */
  if (nrank == 0)
    for (int q = 0; q < nsize; q++)
      if (seg_size(mode, q))
        CHECK_FILE_PATTERN(fn, foff[q], seg_size(mode, q), 500 + (q + nsize - 1) % nsize, 0);
  CHECK_MPI(MPI_Barrier(node));
  rc = MPI_Win_free(&win);
  if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "MPI_Win_free: %s", tl_errstr(rc));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(tl_exists(fn), "node file %s removed at free (named file, unlink defaults to false)", fn);
  if (nrank == 0) {
    CHECK(tl_file_size(fn) >= off + (off_t)prefix[nsize], "node file is %lld bytes, expected >= %lld",
          (long long)tl_file_size(fn), (long long)(off + (off_t)prefix[nsize]));
    for (int q = 0; q < nsize; q++)
      if (seg_size(mode, q))
        CHECK_FILE_PATTERN(fn, foff[q], seg_size(mode, q), 500 + (q + nsize - 1) % nsize, 0);
    unsigned char head[4096];
    CHECK(tl_pread(fn, 0, head, (size_t)off) == off, "short read");
    for (int i = 0; i < off; i++) CHECK(head[i] == 0, "byte %d before storage_alloc_offset is 0x%02x", i, head[i]);
  }
  files = tl_count_dir(tl_scratch(), NULL);
  CHECK(files == nodes, "after free the scratch directory holds %d files, expected %d", files, nodes);
  if (multinode && tl_rank == 0) tl_log("%d nodes, one file each: ok", nodes);
  if (!strcmp(mode, "contig")) {
    /* storage_alloc_unlink=true: the node file goes at free */
    const char *u = tl_path("unlinked-node");
    info = tl_sinfo(u, "storage_alloc_unlink=true", NULL);
    rc = MPI_Win_allocate_shared(8192, 1, info, node, &base, &win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "shared window with unlink=true: %s", tl_errstr(rc));
    CHECK(tl_exists(u), "%s not created", u);
    memset(base, 1, 8192);
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(!tl_exists(u), "storage_alloc_unlink=true: shared window file %s kept", u);
    /* directory form: one unique node file without a name (it goes with
     * the job), the same file in every process */
    const char *d = tl_path("shdir");
    if (tl_rank == 0) CHECK(mkdir(d, 0700) == 0, "mkdir");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    info = tl_sinfo(d, NULL);
    rc = MPI_Win_allocate_shared(8192, 1, info, node, &base, &win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) tl_fail(__FILE__, __LINE__, "shared window in a directory: %s", tl_errstr(rc));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(tl_count_dir(d, NULL) == 0, "shared window in a directory: %d names, expected none",
          tl_count_dir(d, NULL));
    const char *v = tl_win_info(win, "storage_alloc_filename");
    const char *fdp = tl_file_of(base);
    CHECK(v && !strncmp(v, d, strlen(d)) && fdp && tl_backing(base, fdp, NULL, NULL) == TL_FILE,
          "shared directory window '%s' not mapped from a file this process holds", v ? v : "(absent)");
    struct stat st;
    CHECK(stat(fdp, &st) == 0, "stat %s", fdp);
    long ino = (long)st.st_ino, lo = 0, hi = 0;
    CHECK_MPI(MPI_Allreduce(&ino, &lo, 1, MPI_LONG, MPI_MIN, node));
    CHECK_MPI(MPI_Allreduce(&ino, &hi, 1, MPI_LONG, MPI_MAX, node));
    CHECK(lo == hi, "the ranks of a shared directory window map different files");
    CHECK_MPI(MPI_Win_free(&win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(tl_count_dir(d, NULL) == 0, "shared window's unique file not removed at free");
  }
  free(ptr);
  free(qsize);
  free(prefix);
  free(foff);
  MPI_Comm_free(&node);
  return tl_finish();
}
