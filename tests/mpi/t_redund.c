/* The PARTNER and XOR levels of checkpoints (src/ckpt/redund.h) on
 * simulated nodes (tests/tools/redund_nodes.sh: every node its own host
 * name, so its own LOCAL directory <scratch>/local/<host>). Images are files
 * this test writes (pattern bytes, sizes differing by rank and version);
 * a node is lost by removing its LOCAL directory between two opens, as a
 * job restarted on a fresh node would find it.
 *   t_redund partner    store 3 versions (the last larger: the partner
 *                       windows grow), lose a node, rebuild byte-exact;
 *                       a damaged copy is refused, nothing written
 *   t_redund xor [K [skew]]  groups of K (4) on distinct nodes: parity <=
 *                       1/(K-1) of the data, lose a node, rebuild byte-exact;
 *                       skew: an empty image and one larger than the rest
 *                       together (parity = that image), which is lost
 *   t_redund xor2lost   two nodes of one group lost: a clear error, nothing
 *                       written
 *   t_redund onenode    every rank on one node: PARTNER and XOR refused
 *   t_redund nospace    LOCAL full while the partner windows must grow: a
 *                       clear error, the stored copies intact
 *   t_redund killstore DIR SEED / killcheck DIR   (tests/tools/redund_kill.sh)
 *                       kill -9 of the job during PARTNER stores, then a
 *                       node lost: the last promised copy rebuilt */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt/redund.h"
#include "core/path.h"
#include "testlib.h"

#define NAME "ck"

static char host[256];
static char (*hosts)[256];

static void hosts_init(void) {
  mpisw_path_hostname(host, sizeof host);
  hosts = calloc((size_t)tl_size, sizeof *hosts);
  CHECK(hosts, "no memory");
  CHECK_MPI(MPI_Allgather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, MPI_COMM_WORLD));
}

/* The LOCAL directory as the checkpoint core expands it: <root>/%h, root
 * <scratch>/local (or a small file system's, mode nospace). */
static char root[4096];
static const char *local_dir(void) {
  static char dir[4096];
  char pattern[4200];
  struct mpisw_error e;
  if (!root[0]) snprintf(root, sizeof root, "%s", tl_path("local"));
  snprintf(pattern, sizeof pattern, "%s/%%h", root);
  if (!dir[0])
    CHECK(mpisw_path_expand(pattern, tl_rank, host, dir, sizeof dir, &e) == 0, "expand: %s",
          e.msg);
  return dir;
}
static const char *lpath(const char *what) {
  char *b = malloc(8192);
  CHECK(b, "no memory");
  snprintf(b, 8192, "%s/%s", local_dir(), what);
  return b;
}

/* Images differ by rank and version, in size and bytes. */
/* skew (mode xor 4 skew): an empty image and one three times the others. */
static int skew;
static size_t img_size(int rank, int v, size_t base) {
  if (skew && rank % 4 == 0) return 0;
  if (skew && rank % 4 == 1) return 3 * base + 17 + (size_t)v;
  return base + (size_t)rank * 1000 + (size_t)v * 10 + (size_t)rank % 3;
}
static unsigned img_seed(int rank, int v) { return (unsigned)(rank * 1000 + v + 1); }
static const char *img_path(int v) {
  char rel[64];
  snprintf(rel, sizeof rel, "img/r%d.v%d", tl_rank, v);
  return lpath(rel);
}
static const char *window_file(void) {
  char rel[256];
  snprintf(rel, sizeof rel, "%s.partner.r%d", NAME, tl_rank);
  return lpath(rel);
}

static void write_image(int v, size_t base) {
  mkdir(root, 0700);
  mkdir(local_dir(), 0700);
  mkdir(lpath("img"), 0700);
  tl_write_pattern_file(img_path(v), 0, img_size(tl_rank, v, base), img_seed(tl_rank, v), 0600);
}

static void check_image(int v, size_t base) {
  size_t n = img_size(tl_rank, v, base);
  CHECK(tl_file_size(img_path(v)) == (off_t)n, "image v%d: %lld bytes, want %zu", v,
        (long long)tl_file_size(img_path(v)), n);
  CHECK_FILE_PATTERN(img_path(v), 0, n, img_seed(tl_rank, v), 0);
}

/* The lowest rank on each lost host removes that host's LOCAL directory. */
static void lose_hosts(const char *h1, const char *h2) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int first = 1;
  for (int i = 0; i < tl_rank; i++)
    if (!strcmp(hosts[i], host)) first = 0;
  if (first && (!strcmp(host, h1) || (h2 && !strcmp(host, h2)))) {
    tl_rm_rf(local_dir());
    tl_log("lost node %s: removed %s", host, local_dir());
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

static int lost_host(const char *h1, const char *h2) {
  return !strcmp(host, h1) || (h2 && !strcmp(host, h2));
}

static struct mpisw_redund *open_level(int level, uint64_t image_max) {
  struct mpisw_redund_opts o = {level, 4, 2, image_max};
  struct mpisw_redund *r = NULL;
  CHECK_MPI(mpisw_redund_open(NAME, MPI_COMM_WORLD, local_dir(), &o, &r));
  return r;
}

static void check_versions(struct mpisw_redund *r, int level, int n, int v0, int v1) {
  int v[8], cnt = -1;
  CHECK_MPI(mpisw_redund_versions(r, level, v, 8, &cnt));
  CHECK(cnt == n, "%d versions rebuildable, want %d", cnt, n);
  if (n > 0) CHECK(v[0] == v0, "newest rebuildable version %d, want %d", v[0], v0);
  if (n > 1) CHECK(v[1] == v1, "second rebuildable version %d, want %d", v[1], v1);
}

/* Flips one byte inside the copy of (rank, v) in the window file path holds,
 * found by its first bytes (the layout is the library's business). */
static int damage_copy(const char *path, int rank, int v, size_t base) {
  off_t n = tl_file_size(path);
  CHECK(n > 0, "no partner window file %s", path);
  char *buf = malloc((size_t)n), want[256];
  CHECK(buf, "no memory");
  CHECK(tl_pread(path, 0, buf, (size_t)n) == n, "cannot read %s", path);
  tl_fill(want, sizeof want, img_seed(rank, v), 0);
  char *at = memmem(buf, (size_t)n, want, sizeof want);
  off_t off = at ? (at - buf) + (off_t)img_size(rank, v, base) / 2 : -1;
  free(buf);
  if (off < 0) return 0;
  FILE *f = fopen(path, "r+");
  CHECK(f, "open %s: %s", path, strerror(errno));
  fseeko(f, off, SEEK_SET);
  int c = fgetc(f);
  fseeko(f, off, SEEK_SET);
  fputc(c ^ 0x5a, f);
  fclose(f);
  return 1;
}

static void partner(void) {
  const size_t base = 100000, big = 300000;
  struct mpisw_redund *r = open_level(MPISW_REDUND_PARTNER, img_size(tl_rank, 1, base));
  int p = -1, nodes = 0;
  mpisw_redund_layout(r, &p, NULL, NULL, &nodes);
  CHECK(nodes >= 2, "%d nodes seen, the driver made more", nodes);
  CHECK(p >= 0 && p != tl_rank && strcmp(hosts[p], host) != 0,
        "partner %d (host %s) is not on another node than %s", p, p >= 0 ? hosts[p] : "-", host);
  for (int v = 1; v <= 3; v++) {
    write_image(v, v == 3 ? big : base);   /* v3 outgrows the slots: windows made again */
    CHECK_MPI(mpisw_redund_store(r, MPISW_REDUND_PARTNER, v, img_path(v)));
  }
  check_versions(r, MPISW_REDUND_PARTNER, 2, 3, 2);   /* KEEP 2 */
  /* an image outside LOCAL: refused on every rank, the copies untouched */
  int rc = mpisw_redund_store(r, MPISW_REDUND_PARTNER, 4,
                              tl_rank == 1 ? "/etc/hostname" : img_path(3));
  EXPECT_ERR(rc, MPISW_ERR_USAGE, "rank 1: image /etc/hostname is not under the LOCAL directory",
             NULL);
  check_versions(r, MPISW_REDUND_PARTNER, 2, 3, 2);
  CHECK(tl_exists(window_file()),
        "no partner window file in the LOCAL directory");
  CHECK_MPI(mpisw_redund_close(&r));

  /* The last rank's node is lost; the job restarts. */
  const char *victim = hosts[tl_size - 1];
  lose_hosts(victim, NULL);
  int lost = lost_host(victim, NULL);
  CHECK(lost == !tl_exists(img_path(3)), "image gone on a node that was not lost, or kept");
  r = open_level(MPISW_REDUND_PARTNER, 0);
  /* the lost node's copies are held on the other node; copies it held are gone */
  int held_by_lost = !strcmp(hosts[p], victim);
  if (lost || !held_by_lost)
    check_versions(r, MPISW_REDUND_PARTNER, 2, 3, 2);
  else
    check_versions(r, MPISW_REDUND_PARTNER, 0, 0, 0);
  char got[4096];
  for (int v = 3; v >= 2; v--) {
    CHECK_MPI(mpisw_redund_rebuild(r, MPISW_REDUND_PARTNER, v, lost, got, sizeof got));
    if (lost) {
      CHECK(!strcmp(got, img_path(v)), "rebuilt %s, want %s", got, img_path(v));
      check_image(v, v == 3 ? big : base);
    } else {
      CHECK(got[0] == 0, "rank that lost nothing got a path '%s'", got);
    }
  }
  if (lost) tl_log("PARTNER: versions 3 and 2 rebuilt byte-exact");

  /* A damaged copy: its holder flips a byte; the rebuild refuses it and
   * leaves no file, not even a temporary one. */
  int *partners = malloc(sizeof(int) * (size_t)tl_size), found = 0, any = 0;
  CHECK_MPI(MPI_Allgather(&p, 1, MPI_INT, partners, 1, MPI_INT, MPI_COMM_WORLD));
  for (int c = 0; c < tl_size; c++)
    if (partners[c] == tl_rank && !strcmp(hosts[c], victim))
      found |= damage_copy(window_file(), c, 2, base);
  CHECK_MPI(MPI_Allreduce(&found, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(any, "no copy of version 2 of the lost node found to damage");
  if (lost) unlink(img_path(2));
  rc = mpisw_redund_rebuild(r, MPISW_REDUND_PARTNER, 2, lost, got, sizeof got);
  EXPECT_ERR(rc, MPISW_ERR_IO, "does not match its checksum", "not restored");
  if (lost) {
    CHECK(!tl_exists(img_path(2)), "a damaged copy was written to %s", img_path(2));
    char pre[32];
    snprintf(pre, sizeof pre, "r%d.", tl_rank);
    CHECK(tl_count_dir(lpath("img"), pre) == 1,
          "files of rank %d left in the image directory besides version 3", tl_rank);
  }
  free(partners);
  CHECK_MPI(mpisw_redund_close(&r));
}

/* want_k: the group size the layout must give (4 on 4 nodes; 5 on 5 nodes
 * of one rank: a group of 4 and the fifth rank joining it). */
static void xor_level(int two_lost, int want_k) {
  const size_t base = 150000;
  struct mpisw_redund *r = open_level(MPISW_REDUND_XOR, 0);
  int k = 0, pos = -1, nodes = 0;
  mpisw_redund_layout(r, NULL, &k, &pos, &nodes);
  CHECK(nodes >= 4 && k == want_k, "%d nodes, XOR groups of %d, want %d", nodes, k, want_k);
  for (int v = 1; v <= 3; v++) {
    write_image(v, base);
    CHECK_MPI(mpisw_redund_store(r, MPISW_REDUND_XOR, v, img_path(v)));
  }
  char px[4096];
  mpisw_redund_xor_path(r, 1, px, sizeof px);
  CHECK(!tl_exists(px), "parity of version 1 kept beyond KEEP 2: %s", px);
  mpisw_redund_xor_path(r, 3, px, sizeof px);
  /* parity bytes (the file less its one-page header) against the data */
  long long mine[3] = {tl_file_size(px) - 4096, (long long)img_size(tl_rank, 3, base),
                       tl_file_size(px)}, sum[3], largest = 0;
  CHECK(mine[2] >= 4096, "parity file %s missing", px);
  CHECK_MPI(MPI_Allreduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(&mine[1], &largest, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD));
  int groups = tl_size / k;
  if (tl_rank == 0)
    tl_log("XOR k=%d: data %lld bytes, parity %lld (%.4f of the data; files with headers "
           "%lld, %.4f)", k, sum[1], sum[0], (double)sum[0] / (double)sum[1], sum[2],
           (double)sum[2] / (double)sum[1]);
  if (!skew) {
    /* 1/(k-1) (1/3 at k=4), rounded up to a whole byte per group */
    CHECK((k - 1) * sum[0] <= sum[1] + (k - 1) * groups, "parity %lld bytes > 1/%d of %lld "
          "data bytes", sum[0], k - 1, sum[1]);
  } else {
    /* one group whose largest image is more than 1/(k-1) of its data: the
     * parity is that image's size, no more */
    CHECK(groups == 1 && sum[0] == largest && 3 * largest > sum[1],
          "parity %lld bytes, largest image %lld, data %lld", sum[0], largest, sum[1]);
  }
  check_versions(r, MPISW_REDUND_XOR, 2, 3, 2);
  CHECK_MPI(mpisw_redund_close(&r));

  /* Node of rank 0 lost (and, for xor2lost, the next node too: one group
   * holds a rank of each node). */
  const char *v1 = hosts[skew ? 1 : 0], *v2 = NULL;   /* skew: the largest image's node */
  for (int i = 1; i < tl_size && two_lost && !v2; i++)
    if (strcmp(hosts[i], v1)) v2 = hosts[i];
  lose_hosts(v1, v2);
  int lost = lost_host(v1, v2);
  r = open_level(MPISW_REDUND_XOR, 0);
  char got[4096];
  if (!two_lost) {
    /* "could be rebuilt if lost now": the lost member's versions are held by
     * every other member; a survivor's are not (the lost member is gone) */
    if (lost)
      check_versions(r, MPISW_REDUND_XOR, 2, 3, 2);
    else
      check_versions(r, MPISW_REDUND_XOR, 0, 0, 0);
    double t0 = MPI_Wtime();
    CHECK_MPI(mpisw_redund_rebuild(r, MPISW_REDUND_XOR, 3, lost, got, sizeof got));
    double dt = MPI_Wtime() - t0;
    if (lost) {
      CHECK(!strcmp(got, img_path(3)), "rebuilt %s, want %s", got, img_path(3));
      check_image(3, base);
      CHECK(tl_exists(px), "the lost member's parity %s was not rebuilt", px);
      tl_log("XOR: version 3 rebuilt byte-exact in %.3f s", dt);
    } else {
      CHECK(got[0] == 0, "rank that lost nothing got a path '%s'", got);
    }
    /* the rebuilt parity serves a later loss: version 3 is whole everywhere
     * again (version 2 everywhere but on the member that was lost) */
    if (lost)
      check_versions(r, MPISW_REDUND_XOR, 2, 3, 2);
    else
      check_versions(r, MPISW_REDUND_XOR, 1, 3, 0);
    /* The first rank of the last node (in the lost first rank's group in
     * every layout run here) rewrites its version-2 image in place, as LOCAL
     * reuses a slot: version 2 is no longer rebuildable in that group, and
     * asking anyway is a clear error that writes nothing there. */
    int writer = -1, victim = -1, local = 0;
    for (int i = 0; i < tl_size; i++) {
      if (writer < 0 && !strcmp(hosts[i], hosts[tl_size - 1])) writer = i;
      if (victim < 0 && !strcmp(hosts[i], v1)) victim = i;
      if (i < tl_rank && !strcmp(hosts[i], host)) local++;
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (tl_rank == writer) {
      usleep(10000);   /* a new modification time even on a coarse clock */
      tl_write_pattern_file(img_path(2), 100, 1, 77, 0600);
    }
    int affected = local == 0;   /* groups follow the local index here */
    if (lost && !affected)
      check_versions(r, MPISW_REDUND_XOR, 2, 3, 2);
    else
      check_versions(r, MPISW_REDUND_XOR, 1, 3, 0);
    if (lost) unlink(img_path(2));
    char lr[64];
    snprintf(lr, sizeof lr, "lost ranks %d and %d", victim, writer);
    int rc = mpisw_redund_rebuild(r, MPISW_REDUND_XOR, 2, lost, got, sizeof got);
    EXPECT_ERR(rc, MPISW_ERR_IO, lr, "nothing was written");
    if (lost && affected)
      CHECK(!tl_exists(img_path(2)), "a version-2 image was written from bad data");
  } else {
    int rc = mpisw_redund_rebuild(r, MPISW_REDUND_XOR, 3, lost, got, sizeof got);
    EXPECT_ERR(rc, MPISW_ERR_IO, "XOR rebuilds one lost member per group", "nothing was written");
    CHECK(got[0] == 0, "a failed rebuild named a file '%s'", got);
    if (lost) {
      CHECK(!tl_exists(img_path(3)), "a lost image was written: %s", img_path(3));
      CHECK(!tl_exists(local_dir()) || tl_count_dir(local_dir(), NULL) == 0,
            "files were written on a lost node");
    }
  }
  CHECK_MPI(mpisw_redund_close(&r));
}

/* LOCAL on an 8 MiB file system (mountdrv.sh tmpfs8m), 2 nodes of one rank:
 * an image that outgrows the partner slots when the windows cannot grow is
 * a clear MPISW_ERR_NOSPACE, and the copies stored before are intact. */
static void nospace(void) {
  const char *mnt = getenv("MPISW_TEST_MNT");
  CHECK(mnt && *mnt, "MPISW_TEST_MNT not set (run under mountdrv.sh tmpfs8m)");
  snprintf(root, sizeof root, "%s/local", mnt);
  const size_t small = 512 * 1024, large = 1536 * 1024;
  struct mpisw_redund *r = open_level(MPISW_REDUND_PARTNER, img_size(tl_rank, 1, small));
  for (int v = 1; v <= 3; v++) {
    if (v > 1) unlink(img_path(v - 1));   /* LOCAL keeps the current image only */
    write_image(v, v == 3 ? large : small);
    int rc = mpisw_redund_store(r, MPISW_REDUND_PARTNER, v, img_path(v));
    if (v < 3) {
      CHECK_MPI(rc);
      continue;
    }
    /* the windows would need 2 x 3 MiB more on a file system with ~3 MiB free */
    EXPECT_ERR(rc, MPISW_ERR_NOSPACE, "cannot make the partner windows", "no space");
  }
  char got[4096];
  EXPECT_ERR(mpisw_redund_rebuild(r, MPISW_REDUND_PARTNER, 2, 1, got, sizeof got),
             MPISW_ERR_USAGE, "no partner window", "create it again");
  CHECK_MPI(mpisw_redund_close(&r));
  unlink(img_path(3));
  r = open_level(MPISW_REDUND_PARTNER, 0);
  check_versions(r, MPISW_REDUND_PARTNER, 2, 2, 1);
  CHECK_MPI(mpisw_redund_rebuild(r, MPISW_REDUND_PARTNER, 2, 1, got, sizeof got));
  CHECK(!strcmp(got, img_path(2)), "rebuilt %s, want %s", got, img_path(2));
  check_image(2, small);
  CHECK_MPI(mpisw_redund_close(&r));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (tl_rank == 0) tl_rm_rf(root);
}

/* kill -9 of the whole job at a random instant while PARTNER copies are
 * stored (killstore, killed by tests/tools/redund_kill.sh), then a new job
 * (killcheck) loses node 1 and rebuilds: the newest copy listed is at least
 * the last version whose store returned, and it comes back byte-exact.
 * dir: the driver's directory, kept between the jobs. */
static void killstore(const char *dir) {
  const size_t base = 1 << 20;
  snprintf(root, sizeof root, "%s/local", dir);
  struct mpisw_redund *r = open_level(MPISW_REDUND_PARTNER, img_size(tl_rank, 200, base));
  for (int v = 1; v <= 200; v++) {
    if (v > 2) unlink(img_path(v - 2));
    write_image(v, base);
    CHECK_MPI(mpisw_redund_store(r, MPISW_REDUND_PARTNER, v, img_path(v)));
    if (tl_rank == 1) {   /* the store returned: version v is a promise */
      char tmp[4200], fin[4200];
      snprintf(fin, sizeof fin, "%s/stored", dir);
      snprintf(tmp, sizeof tmp, "%s/stored.tmp", dir);
      FILE *f = fopen(tmp, "w");
      CHECK(f, "cannot write %s", tmp);
      fprintf(f, "%d\n", v);
      fflush(f);
      fsync(fileno(f));
      fclose(f);
      CHECK(rename(tmp, fin) == 0, "rename %s", fin);
    }
  }
  tl_fail(__FILE__, __LINE__, "not killed after 200 versions");
}

static void killcheck(const char *dir) {
  const size_t base = 1 << 20;
  snprintf(root, sizeof root, "%s/local", dir);
  int promised = 0;
  char fin[4200];
  snprintf(fin, sizeof fin, "%s/stored", dir);
  FILE *f = fopen(fin, "r");
  if (f) {
    CHECK(fscanf(f, "%d", &promised) == 1, "unreadable %s", fin);
    fclose(f);
  }
  if (tl_rank == 1) tl_rm_rf(local_dir());   /* node 1 is lost */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  struct mpisw_redund *r = open_level(MPISW_REDUND_PARTNER, 0);
  int v[8], n = 0;
  CHECK_MPI(mpisw_redund_versions(r, MPISW_REDUND_PARTNER, v, 8, &n));
  int newest = n > 0 ? v[0] : 0, want = 0;
  if (tl_rank == 1) {
    CHECK(newest >= promised, "newest copy %d, but the store of %d had returned", newest,
          promised);
    want = newest;
  }
  CHECK_MPI(MPI_Bcast(&want, 1, MPI_INT, 1, MPI_COMM_WORLD));
  char got[4096];
  if (want > 0) {
    CHECK_MPI(mpisw_redund_rebuild(r, MPISW_REDUND_PARTNER, want, tl_rank == 1, got, sizeof got));
    if (tl_rank == 1) {
      check_image(want, base);
      tl_log("killed after %d stores returned: version %d rebuilt byte-exact", promised, want);
    }
  }
  CHECK_MPI(mpisw_redund_close(&r));
}

static void onenode(void) {
  int levels[2] = {MPISW_REDUND_PARTNER, MPISW_REDUND_XOR};
  for (int i = 0; i < 2; i++) {
    struct mpisw_redund_opts o = {levels[i], 4, 2, 0};
    struct mpisw_redund *r = NULL;
    int rc = mpisw_redund_open(NAME, MPI_COMM_WORLD, local_dir(), &o, &r);
    EXPECT_ERR(rc, MPISW_ERR_USAGE, "needs ranks on two nodes or more",
               i ? "XOR level" : "PARTNER level");
    CHECK(r == NULL, "a handle was returned with the error");
  }
  CHECK(tl_count_dir(local_dir(), NAME) == 0, "files made in the LOCAL directory");
  struct mpisw_redund_opts o = {MPISW_REDUND_PARTNER, 4, 2, 0};
  struct mpisw_redund *r = NULL;
  EXPECT_ERR(mpisw_redund_open("a/b", MPI_COMM_WORLD, local_dir(), &o, &r), MPISW_ERR_USAGE,
             "checkpoint name 'a/b'", "[A-Za-z0-9_.-]");
  o.keep = 0;
  EXPECT_ERR(mpisw_redund_open(NAME, MPI_COMM_WORLD, local_dir(), &o, &r), MPISW_ERR_HINT,
             "ckpt_keep 0", NULL);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  hosts_init();
  if (!strcmp(mode, "partner"))
    partner();
  else if (!strcmp(mode, "xor")) {
    skew = argc > 3 && !strcmp(argv[3], "skew");
    xor_level(0, argc > 2 ? atoi(argv[2]) : 4);
  }
  else if (!strcmp(mode, "xor2lost"))
    xor_level(1, 4);
  else if (!strcmp(mode, "onenode"))
    onenode();
  else if (!strcmp(mode, "nospace"))
    nospace();
  else if (!strcmp(mode, "killstore") && argc > 2)
    killstore(argv[2]);
  else if (!strcmp(mode, "killcheck") && argc > 2)
    killcheck(argv[2]);
  else
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  free(hosts);
  return tl_finish();
}
