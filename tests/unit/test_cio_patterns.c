/* unit_cio_patterns (no MPI): the communication matrices C of the collective
 * I/O benchmarks' two patterns (bench/cio_pattern.c: the 3-D cube and NAS
 * BT-IO's block-tridiagonal cells) and the aggregator strategies on them
 * (src/core/cb_assign.c):
 *
 *  - every element of the file belongs to exactly one process, C's rows sum
 *    to what each process writes and its columns to ROMIO's file domains;
 *    BT-IO's cells are NPB's (the source document's example: of 9
 *    processes, process 6 has row 2 column 0 in slice 0, row 1 column 1 in
 *    slice 1);
 *  - on clusters of 2 to 8 nodes in a two-level switch tree (hops: 1 inside
 *    a node, 2 under one leaf, 4 across the core), processes packed,
 *    scattered round robin and shuffled, ROMIO's candidates (the first
 *    process of each node, cb_nodes of them): TATP's hop-bytes equal the
 *    optimum found by enumerating every assignment (<= 8 domains); TATP <=
 *    OTP and <= LATP; LATP moves no more bytes than OTP. With the engine's
 *    rules (src/cio/assign.c: LATP and TATP may choose any process) the
 *    same, TATP's optimum checked by enumeration where there are at most
 *    2e6 assignments. Prints each configuration's hop-bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio_pattern.h"
#include "core/cb_assign.h"

static int failures;
#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      failures++;                                                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                \
      fprintf(stderr, __VA_ARGS__);                                                       \
      fprintf(stderr, "\n");                                                              \
    }                                                                                     \
  } while (0)

/* Every element owned once; C's sums. */
static void check_pattern(const struct cio_pattern *pt, int m) {
  long F = cio_pattern_file_bytes(pt), elems = F / pt->elem;
  unsigned char *owner = calloc((size_t)elems, 1);
  long total = 0;
  struct cio_box b[CIO_MAX_CELLS];
  for (int r = 0; r < pt->nprocs; r++) {
    int n = cio_pattern_boxes(pt, r, b);
    for (int i = 0; i < n; i++)
      for (long z = b[i].lo[0]; z < b[i].lo[0] + b[i].n[0]; z++)
        for (long y = b[i].lo[1]; y < b[i].lo[1] + b[i].n[1]; y++)
          for (long x = b[i].lo[2]; x < b[i].lo[2] + b[i].n[2]; x++)
            owner[(z * pt->g[1] + y) * pt->g[2] + x]++;
    total += cio_pattern_rank_bytes(pt, r);
  }
  long once = 0;
  for (long i = 0; i < elems; i++) once += owner[i] == 1;
  CHECK(once == elems && total == F, "%s P=%d: %ld of %ld elements owned once, %ld of %ld bytes",
        pt->kind == CIO_CUBE ? "cube" : "btio", pt->nprocs, once, elems, total, F);
  free(owner);
  double *C = malloc(sizeof *C * (size_t)pt->nprocs * (size_t)m);
  cio_pattern_comm_matrix(pt, m, C);
  long fd = (F + m - 1) / m;
  for (int r = 0; r < pt->nprocs; r++) {
    double s = 0;
    for (int d = 0; d < m; d++) s += C[r * m + d];
    CHECK(s == (double)cio_pattern_rank_bytes(pt, r), "row %d of C sums to %.0f", r, s);
  }
  for (int d = 0; d < m; d++) {
    double s = 0, want = (double)((d + 1) * fd < F ? fd : (F - d * fd > 0 ? F - d * fd : 0));
    for (int r = 0; r < pt->nprocs; r++) s += C[r * m + d];
    CHECK(s == want, "column %d of C sums to %.0f, domain has %.0f bytes", d, s, want);
  }
  free(C);
}

/* ---- brute force: the least hop-bytes over every injective assignment
 * (with the problem's node rule: one aggregator a node at most) ---- */
static double best;
static unsigned char node_used[64];
static void enumerate(const struct mpisw_cb_problem *pb, const long *rows, int nrows, int d,
                      long *agg, unsigned char *used) {
  if (d == (int)pb->ndomains) {
    double h = mpisw_cb_hopbytes(pb, agg);
    if (h < best) best = h;
    return;
  }
  for (int i = 0; i < nrows; i++) {
    int node = pb->node_of ? pb->node_of[rows[i]] : -1;
    if (used[i] || (node >= 0 && node_used[node])) continue;
    used[i] = 1;
    if (node >= 0) node_used[node] = 1;
    agg[d] = rows[i];
    enumerate(pb, rows, nrows, d + 1, agg, used);
    used[i] = 0;
    if (node >= 0) node_used[node] = 0;
  }
}

static double brute(const struct mpisw_cb_problem *pb, const long *rows, int nrows) {
  long agg[16];
  unsigned char used[64] = {0};
  best = 1e300;
  enumerate(pb, rows, nrows, 0, agg, used);
  return best;
}

/* Hops between nodes a and b: leaves of 2 nodes under one core switch. */
static double node_hops(int a, int b) { return a == b ? 1 : (a / 2 == b / 2 ? 2 : 4); }

static int cases, latp_le_otp, latp_gt_otp, tatp_lt_latp, any_checked, node_checked;

static void check_assign(const struct cio_pattern *pt, const int *node_of, int nnodes,
                         int cb_nodes, const char *placement) {
  int P = pt->nprocs;
  long cand[64];
  int m = 0;
  for (int r = 0; r < P; r++) {
    int first = 1;
    for (int q = 0; q < r; q++) first &= node_of[q] != node_of[r];
    if (first) cand[m++] = r;
  }
  if (cb_nodes && cb_nodes < m) m = cb_nodes;
  double *C = malloc(sizeof *C * (size_t)P * (size_t)m);
  double *D = malloc(sizeof *D * (size_t)P * (size_t)P);
  cio_pattern_comm_matrix(pt, m, C);
  for (int i = 0; i < P; i++)
    for (int j = 0; j < P; j++) D[i * P + j] = i == j ? 0 : node_hops(node_of[i], node_of[j]);
  struct mpisw_cb_problem pb = {(size_t)P, (size_t)m, C, D, cand, (size_t)m, NULL, 0};
  long otp[16], latp[16], tatp[16], tany[16];
  CHECK(!mpisw_cb_otp(&pb, otp) && !mpisw_cb_latp(&pb, latp) && !mpisw_cb_tatp(&pb, 0, NULL, tatp),
        "an assignment failed");
  double ho = mpisw_cb_hopbytes(&pb, otp), hl = mpisw_cb_hopbytes(&pb, latp),
         ht = mpisw_cb_hopbytes(&pb, tatp), opt = brute(&pb, cand, m);
  const char *kind = pt->kind == CIO_CUBE ? "cube" : "btio";
  CHECK(ht == opt, "%s P=%d %s cb_nodes=%d: TATP %.0f, brute force %.0f", kind, P, placement,
        cb_nodes, ht, opt);
  CHECK(ht <= ho && ht <= hl, "%s P=%d %s: TATP %.0f > OTP %.0f or LATP %.0f", kind, P,
        placement, ht, ho, hl);
  CHECK(mpisw_cb_moved_bytes(&pb, latp) <= mpisw_cb_moved_bytes(&pb, otp),
        "%s P=%d %s: LATP moves more than OTP", kind, P, placement);
  /* The engine's rules (src/cio/assign.c): LATP over every rank, TATP over
   * every rank (any_process); brute force where P!/(P-m)! <= 2e6. */
  long all[64], latp_all[16];
  for (int r = 0; r < P; r++) all[r] = r;
  struct mpisw_cb_problem pall = {(size_t)P, (size_t)m, C, D, all, (size_t)P, NULL, 0};
  CHECK(!mpisw_cb_tatp(&pb, 1, NULL, tany) && !mpisw_cb_latp(&pall, latp_all),
        "TATP or LATP over every rank failed");
  double ha = mpisw_cb_hopbytes(&pb, tany), hla = mpisw_cb_hopbytes(&pall, latp_all);
  CHECK(ha <= ht && ha <= hla && ha <= ho, "%s P=%d %s: TATP over every rank %.0f above "
        "TATP %.0f, LATP %.0f or OTP %.0f", kind, P, placement, ha, ht, hla, ho);
  CHECK(mpisw_cb_moved_bytes(&pall, latp_all) <= mpisw_cb_moved_bytes(&pb, otp),
        "%s P=%d %s: LATP over every rank moves more than OTP", kind, P, placement);
  double count = 1;
  for (int i = 0; i < m; i++) count *= P - i;
  if (count <= 2e6) {
    double opta = brute(&pb, all, P);
    CHECK(ha == opta, "%s P=%d %s any_process: TATP %.0f, brute force %.0f", kind, P, placement,
          ha, opta);
    any_checked++;
  }
  /* The engine's node rule (m <= nodes here: one domain a node): TATP is
   * the optimum among assignments with one aggregator a node, below LATP's
   * under the same rule and OTP's (which keeps it) */
  struct mpisw_cb_problem pnode = pall;
  pnode.node_of = node_of;
  pnode.nnodes = (size_t)nnodes;
  long tnode[16], lnode[16];
  CHECK(!mpisw_cb_tatp(&pnode, 1, NULL, tnode) && !mpisw_cb_latp(&pnode, lnode),
        "TATP or LATP with one aggregator a node failed");
  for (int d = 0; d < m; d++)
    for (int e = 0; e < d; e++)
      CHECK(node_of[tnode[d]] != node_of[tnode[e]] && node_of[lnode[d]] != node_of[lnode[e]],
            "%s P=%d %s: two aggregators on one node under the node rule", kind, P, placement);
  double hn = mpisw_cb_hopbytes(&pnode, tnode), hln = mpisw_cb_hopbytes(&pnode, lnode);
  CHECK(hn >= ha && hn <= hln && hn <= ho, "%s P=%d %s node rule: TATP %.0f, LATP %.0f, OTP "
        "%.0f, TATP over every rank %.0f", kind, P, placement, hn, hln, ho, ha);
  if (count <= 2e6) {
    double optn = brute(&pnode, all, P);
    CHECK(hn == optn, "%s P=%d %s node rule: TATP %.0f, brute force %.0f", kind, P, placement,
          hn, optn);
    node_checked++;
  }
  cases++;
  latp_le_otp += hl <= ho;
  latp_gt_otp += hl > ho;
  tatp_lt_latp += ht < hl;
  printf("%-4s P=%-2d nodes=%d %-9s cb_nodes=%d domains=%d  hop-bytes OTP %-9.0f LATP %-9.0f "
         "TATP %-9.0f (brute force %.0f); over every rank LATP %-9.0f TATP %.0f; one a node "
         "LATP %-9.0f TATP %.0f\n",
         kind, P, nnodes, placement, cb_nodes, m, ho, hl, ht, opt, hla, ha, hln, hn);
  free(C);
  free(D);
}

static void placements(const struct cio_pattern *pt, int nnodes, unsigned seed) {
  int P = pt->nprocs, node_of[64];
  for (int cbn = 0; cbn <= 2; cbn += 2) {
    for (int r = 0; r < P; r++) node_of[r] = r * nnodes / P; /* packed */
    check_assign(pt, node_of, nnodes, cbn, "packed");
    for (int r = 0; r < P; r++) node_of[r] = r % nnodes; /* scattered */
    check_assign(pt, node_of, nnodes, cbn, "scattered");
    for (int r = 0; r < P; r++) node_of[r] = r % nnodes; /* shuffled */
    for (int r = P - 1; r > 0; r--) {
      seed = seed * 1103515245u + 12345u;
      int j = (int)((seed >> 8) % (unsigned)(r + 1)), t = node_of[r];
      node_of[r] = node_of[j];
      node_of[j] = t;
    }
    check_assign(pt, node_of, nnodes, cbn, "shuffled");
  }
}

int main(void) {
  char why[256];
  struct cio_pattern pt;
  /* The source document's BT-IO example: 9 processes, process 6. */
  long g9[3] = {9, 9, 9};
  CHECK(!cio_pattern_init(&pt, CIO_BTIO, g9, 9, why, sizeof why), "%s", why);
  struct cio_box b[CIO_MAX_CELLS];
  CHECK(cio_pattern_boxes(&pt, 6, b) == 3, "BT-IO at 9: 3 cells");
  CHECK(b[0].lo[0] == 0 && b[0].lo[1] == 6 && b[0].lo[2] == 0, "process 6 slice 0: row 2 col 0");
  CHECK(b[1].lo[0] == 3 && b[1].lo[1] == 3 && b[1].lo[2] == 3, "process 6 slice 1: row 1 col 1");
  CHECK(b[2].lo[0] == 6 && b[2].lo[1] == 0 && b[2].lo[2] == 6, "process 6 slice 2: row 0 col 2");
  CHECK(cio_pattern_init(&pt, CIO_BTIO, g9, 8, why, sizeof why) == -1 && strstr(why, "square"),
        "BT-IO refuses 8 processes");
  /* ROMIO's interleaving test: 2 slabs do not interleave, 8 boxes and
   * BT-IO's cells do. */
  long g16[3] = {16, 16, 16};
  CHECK(!cio_pattern_init(&pt, CIO_CUBE, g16, 2, why, sizeof why) &&
            !cio_pattern_interleaved(&pt), "cube at 2: slabs, no interleaving");
  CHECK(!cio_pattern_init(&pt, CIO_CUBE, g16, 8, why, sizeof why) &&
            cio_pattern_interleaved(&pt), "cube at 8 interleaves");
  CHECK(!cio_pattern_init(&pt, CIO_BTIO, g16, 4, why, sizeof why) &&
            cio_pattern_interleaved(&pt), "BT-IO at 4 interleaves");
  int dims[3];
  cio_dims3(12, dims);
  CHECK(dims[0] == 3 && dims[1] == 2 && dims[2] == 2, "dims of 12: %d %d %d", dims[0], dims[1],
        dims[2]);
  cio_dims3(16, dims);
  CHECK(dims[0] == 4 && dims[1] == 2 && dims[2] == 2, "dims of 16");
  cio_dims3(7, dims);
  CHECK(dims[0] == 7 && dims[1] == 1 && dims[2] == 1, "dims of 7");

  struct { enum cio_kind kind; long g[3]; int P, nodes; } cfg[] = {
      {CIO_CUBE, {16, 16, 16}, 4, 2},  {CIO_CUBE, {24, 20, 18}, 8, 4},
      {CIO_CUBE, {17, 16, 15}, 8, 8},  {CIO_CUBE, {20, 20, 20}, 16, 8},
      {CIO_CUBE, {18, 18, 18}, 12, 6}, {CIO_BTIO, {12, 12, 12}, 4, 4},
      {CIO_BTIO, {13, 13, 13}, 9, 4},  {CIO_BTIO, {12, 12, 12}, 9, 5},
      {CIO_BTIO, {16, 16, 16}, 16, 8}, {CIO_BTIO, {17, 17, 17}, 16, 4},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof *cfg; i++) {
    CHECK(!cio_pattern_init(&pt, cfg[i].kind, cfg[i].g, cfg[i].P, why, sizeof why), "%s", why);
    check_pattern(&pt, cfg[i].nodes);
    check_pattern(&pt, 3);
    placements(&pt, cfg[i].nodes, 12345u + (unsigned)i);
  }
  printf("%d cases (%d also over all processes, %d with one aggregator a node): LATP <= OTP "
         "hop-bytes in %d, > in %d; "
         "TATP < LATP in %d\n",
         cases, any_checked, node_checked, latp_le_otp, latp_gt_otp, tatp_lt_latp);
  if (failures) fprintf(stderr, "%d failures\n", failures);
  return failures ? 1 : 0;
}
