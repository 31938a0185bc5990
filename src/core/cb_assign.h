/* Which process aggregates which file domain: the three strategies of the
 * collective I/O engine (docs/COLLECTIVE_IO.md "The assignment solver") as
 * pure functions on the matrices the engine builds, and the hop-bytes they
 * cost. MPI-free.
 *
 *   C (bytes)  P x m, row-major: bytes process p holds of file domain d;
 *   D (dist)   P x P, row-major: hop distance between processes (0 to
 *              itself, <= 1 inside a node, switch hops between nodes);
 *   cand       the aggregator candidates (process numbers) in ROMIO's order
 *              (cb_config_list; one per node by default), given by the engine.
 *
 * The workload W = D.C: W[p][d] = sum over q of D[p][q] * C[q][d] is the
 * hop-bytes of shipping domain d's data to process p. Integers below 2^53
 * stay exact in the doubles used here (bytes and hops are integers). */
#ifndef MPISW_CORE_CB_ASSIGN_H
#define MPISW_CORE_CB_ASSIGN_H

#include <stddef.h>

struct mpisw_cb_problem {
  size_t nprocs;        /* P */
  size_t ndomains;      /* m */
  const double *bytes;  /* C, P x m */
  const double *dist;   /* D, P x P */
  const long *cand;     /* ncand candidates, process numbers in ROMIO's order */
  size_t ncand;
  /* Optional (NULL: no rule): the node of each process. With it, and no
   * more domains than nodes, LATP and TATP put one aggregator on a node at
   * most (ROMIO's cb_config_list "*:1"): their optimum among those
   * assignments, so that no node's link carries several domains. */
  const int *node_of;
  size_t nnodes;
};

/* Return values: MPISW_LAP_OK (0) or an enum mpisw_lap_status (core/lap.h);
 * MPISW_LAP_EINVAL also for a bad problem: a candidate outside [0, P) or
 * named twice, fewer candidates than domains, a NULL matrix. agg[m] receives
 * the process that aggregates each domain. */

/* OTP, ROMIO's way: domain d -> cand[d]. */
int mpisw_cb_otp(const struct mpisw_cb_problem *pb, long *agg);

/* LATP, Filgueira et al.'s locality-aware two-phase I/O (the source
 * document's reference [15]): the candidate assignment that keeps the most
 * bytes local, i.e. minimises the bytes that must move, sum over d of
 * (sum over q of C[q][d]) - C[agg(d)][d], solved as a LAP. Each candidate
 * aggregates at most one domain. Among equally local assignments the
 * solver's deterministic choice is taken. */
int mpisw_cb_latp(const struct mpisw_cb_problem *pb, long *agg);

/* TATP, the source document's topology-aware two-phase I/O: the LAP on W
 * restricted to the candidate rows; with any_process, on all P rows instead
 * (then may_aggregate[P], when not NULL, forbids the rows of processes with
 * 0 there: their W entries are +inf). Minimal total hop-bytes. */
int mpisw_cb_tatp(const struct mpisw_cb_problem *pb, int any_process,
                  const unsigned char *may_aggregate, long *agg);

/* Total hop-bytes of an assignment: sum over d of W[agg[d]][d]. */
double mpisw_cb_hopbytes(const struct mpisw_cb_problem *pb, const long *agg);

/* Bytes that cross between processes: sum over d of those of domain d not
 * held by agg[d] (what LATP minimises). */
double mpisw_cb_moved_bytes(const struct mpisw_cb_problem *pb, const long *agg);

/* W rows for the processes rows[0..nrows) (NULL: all P): out[r*m + d]. */
void mpisw_cb_workload(const struct mpisw_cb_problem *pb, const long *rows, size_t nrows,
                       double *out);

/* cb_nodes=auto. For k aggregators (k file domains), the modelled time of
 * one collective call is
 *
 *   T(k) = H(k) / net_bw                        shuffle: hop-bytes of TATP
 *        + B / min(k * agg_bw, fs_bw)           I/O: k streams, up to the FS
 *        + k * agg_cost                          per-aggregator fixed cost
 *
 * H(k): total hop-bytes of the optimal (TATP) assignment with k domains;
 * B: bytes of the call; net_bw: byte-hops per second the network moves in
 * aggregate; agg_bw: bytes per second one aggregator writes; fs_bw: the
 * file system's aggregate limit (0: none); agg_cost: seconds each extra
 * aggregator costs (buffer, lock and request overhead). More aggregators
 * cut hop-bytes and raise I/O parallelism until fs_bw saturates; agg_cost
 * stops the count from growing past what pays. */
struct mpisw_cb_auto_model {
  double net_bw;   /* byte-hops / s, > 0 */
  double agg_bw;   /* bytes / s, > 0 */
  double fs_bw;    /* bytes / s, 0 = unlimited */
  double agg_cost; /* s per aggregator, >= 0 */
};

/* The model's defaults (docs/COLLECTIVE_IO.md): 1 GB/s per hop-byte of the
 * network, 500 MB/s per aggregator, no file system limit, 1 ms each. */
void mpisw_cb_auto_defaults(struct mpisw_cb_auto_model *m);

/* T(k) for hop-bytes h and call bytes b (seconds). */
double mpisw_cb_auto_cost(const struct mpisw_cb_auto_model *m, size_t k, double h, double b);

/* The engine describes the problem with k domains (its file domains for
 * cb_nodes=k and the first k candidates, or all it allows); returns 0 or a
 * status. The problem must stay valid until the next call. */
typedef int (*mpisw_cb_problem_fn)(size_t k, void *ctx, struct mpisw_cb_problem *out);

/* Tries k = 1 .. kmax, TATP on each problem, and returns in *best_k the k of
 * least T(k) (ties: the smaller k); hop[k-1] and cost[k-1] (either may be
 * NULL) receive H(k) and T(k). any_process and may_aggregate as for TATP.
 * b: bytes of the call. */
int mpisw_cb_auto(const struct mpisw_cb_auto_model *m, size_t kmax, double b,
                  mpisw_cb_problem_fn problem, void *ctx, int any_process,
                  const unsigned char *may_aggregate, size_t *best_k, double *hop,
                  double *cost);

#endif
