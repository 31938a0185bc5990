/* PARTNER and XOR through the public checkpoint API (mpisw.h): a set with
 * ckpt_partner_every / ckpt_xor_every on simulated nodes
 * (tests/tools/redund_nodes.sh), checkpoints of a window and a memory
 * region, one node's LOCAL directory lost, and a new set's restart brings
 * every rank back to the newest version it can have, byte-exact.
 *   t_ckpt_levels partner   2 nodes x 2: PARTNER every checkpoint; the
 *                           lost node's ranks restore v3 from PARTNER
 *   t_ckpt_levels xor       4 nodes x 1: XOR every 2nd checkpoint; the
 *                           lost rank has only v2 (XOR), so all restore v2
 *   t_ckpt_levels onenode   one node: PARTNER refused at create */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define WSIZE(r) (200000 + 3000 * (size_t)(r))   /* the window part differs by rank */
#define MSIZE(r) (50000 + 700 * (size_t)(r))

static char host[256], (*hosts)[256];
static void *wbase, *mem;
static MPI_Win win = MPI_WIN_NULL;

static void fill_state(int v) {
  tl_fill(wbase, WSIZE(tl_rank), (unsigned)(tl_rank * 100 + v), 0);
  tl_fill(mem, MSIZE(tl_rank), (unsigned)(tl_rank * 100 + v + 50), 0);
}

static void check_state(int v) {
  long at = tl_verify(wbase, WSIZE(tl_rank), (unsigned)(tl_rank * 100 + v), 0);
  CHECK(at < 0, "window byte %ld is not version %d's (%s)", at, v,
        tl_describe(wbase, WSIZE(tl_rank), 0));
  at = tl_verify(mem, MSIZE(tl_rank), (unsigned)(tl_rank * 100 + v + 50), 0);
  CHECK(at < 0, "memory byte %ld is not version %d's", at, v);
}

static mpisw_ckpt *make_set(const char *partner, const char *xor_every) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ckpt_local", (char *)tl_path("local/%%h"));
  MPI_Info_set(info, "ckpt_keep", "2");
  MPI_Info_set(info, "ckpt_chunk", "4K");
  MPI_Info_set(info, "ckpt_partner_every", (char *)partner);
  MPI_Info_set(info, "ckpt_xor_every", (char *)xor_every);
  MPI_Info_set(info, "ckpt_xor_size", "4");
  mpisw_ckpt *ck = NULL;
  CHECK_MPI(mpisw_ckpt_create("lv", MPI_COMM_WORLD, info, &ck));
  MPI_Info_free(&info);
  CHECK_MPI(mpisw_ckpt_protect_win(ck, win));
  CHECK_MPI(mpisw_ckpt_protect_mem(ck, mem, MSIZE(tl_rank)));
  return ck;
}

/* The first rank of the lost host removes its LOCAL directory. */
static int lose(const char *victim) {
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  int first = 1;
  for (int i = 0; i < tl_rank; i++)
    if (!strcmp(hosts[i], host)) first = 0;
  if (first && !strcmp(host, victim)) tl_rm_rf(tl_path("local/%s", host));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  return !strcmp(host, victim);
}

static void run(int xor_mode) {
  const char *partner = xor_mode ? "0" : "1", *xor_every = xor_mode ? "2" : "0";
  mpisw_ckpt *ck = make_set(partner, xor_every);
  struct mpisw_ckpt_status st;
  int first = -1;
  for (int i = 0; i < 3; i++) {
    int v = -1;
    fill_state(i);
    CHECK_MPI(mpisw_ckpt_take(ck, &v));
    if (first < 0) first = v;
    CHECK(v == first + i, "version %d, want %d", v, first + i);
    CHECK_MPI(mpisw_ckpt_status(ck, &st));
    int want = MPISW_CKPT_LEVEL_LOCAL | (xor_mode ? (v % 2 == 0 ? MPISW_CKPT_LEVEL_XOR : 0)
                                                  : MPISW_CKPT_LEVEL_PARTNER);
    CHECK(st.last_levels == want, "version %d on levels 0x%x, want 0x%x", v, st.last_levels,
          want);
  }
  CHECK_MPI(mpisw_ckpt_free(&ck));
  int last = first + 2, even = last % 2 == 0 ? last : last - 1;

  /* A node is lost; the state is gone; a new set restarts. */
  int lost = lose(xor_mode ? hosts[0] : hosts[tl_size - 1]);
  memset(wbase, 0, WSIZE(tl_rank));
  memset(mem, 0, MSIZE(tl_rank));
  ck = make_set(partner, xor_every);
  int v = -2;
  CHECK_MPI(mpisw_ckpt_restart(ck, &v));
  CHECK_MPI(mpisw_ckpt_status(ck, &st));
  /* PARTNER holds every version: the newest; XOR only the even ones, and
   * the lost rank has nothing else: all go back to it */
  int want = xor_mode ? even : last;
  CHECK(v == want, "restarted from version %d, want %d", v, want);
  int level = !lost ? MPISW_CKPT_LEVEL_LOCAL
                    : xor_mode ? MPISW_CKPT_LEVEL_XOR : MPISW_CKPT_LEVEL_PARTNER;
  CHECK(st.restored_level == level, "restored from level %d, want %d", st.restored_level, level);
  check_state(want - first);
  if (lost)
    tl_log("restored version %d from %s byte-exact", v, xor_mode ? "XOR" : "PARTNER");
  /* the rebuilt image is LOCAL's again: a later checkpoint goes on from it */
  fill_state(7);
  CHECK_MPI(mpisw_ckpt_take(ck, &v));
  CHECK(v == last + 1, "next version %d, want %d", v, last + 1);
  /* PARTNER: the set is left to MPI_Finalize (its partner windows go with it) */
  if (xor_mode) CHECK_MPI(mpisw_ckpt_free(&ck));
}

static void onenode(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ckpt_local", (char *)tl_path("local/%%h"));
  MPI_Info_set(info, "ckpt_partner_every", "1");
  mpisw_ckpt *ck = NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = mpisw_ckpt_create("lv", MPI_COMM_WORLD, info, &ck);
  EXPECT_ERR(rc, MPISW_ERR_USAGE, "mpisw_ckpt_create: levels: the PARTNER level needs ranks on "
             "two nodes or more", "ckpt_partner_every=0");
  CHECK(ck == NULL, "a set was made");
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  tl_init(&argc, &argv);
  const char *mode = argc > 1 ? argv[1] : "";
  tl_scratch();
  gethostname(host, sizeof host);
  char *dot = strchr(host, '.');
  if (dot) *dot = 0;
  hosts = calloc((size_t)tl_size, sizeof *hosts);
  CHECK_MPI(MPI_Allgather(host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Win_allocate((MPI_Aint)WSIZE(tl_rank), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase,
                             &win));
  mem = malloc(MSIZE(tl_rank));
  CHECK(mem, "no memory");
  if (!strcmp(mode, "partner"))
    run(0);
  else if (!strcmp(mode, "xor"))
    run(1);
  else if (!strcmp(mode, "onenode"))
    onenode();
  else
    tl_fail(__FILE__, __LINE__, "unknown mode '%s'", mode);
  CHECK_MPI(MPI_Win_free(&win));
  free(mem);
  free(hosts);
  return tl_finish();
}
