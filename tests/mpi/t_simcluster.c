/* Checks a job on the simulated cluster of tests/tools/simcluster.sh.
 *
 *   t_simcluster NAME PER_LEAF NODE_BPS CORE_BPS BYTES REPS [packed:PPN|scatter:NODES|map:K0,K1,...]
 *
 * Every rank: its processor name is NAME-n<k> and it runs in that node's
 * network namespace (/proc/self/ns/net is /run/netns/mpisw-sc-NAME-n<k>);
 * with a placement, k is the node the placement puts the rank on; the
 * ranks that share memory (MPI_COMM_TYPE_SHARED) are exactly those of its
 * node. Then a ping-pong (BYTES one way, 1 byte back, best of REPS) between
 * two ranks of one node, of two nodes of one leaf switch and of two leaves:
 * the bandwidth between nodes is at most 1.2 x the shaped rate of the path
 * (NODE_BPS node<->leaf, CORE_BPS leaf<->core, bytes per second), the
 * sender's eth0 sent at least BYTES per message; on one node it is at least
 * 4 x faster than the slowest link and eth0 stays quiet. Then two flows at
 * once from two nodes of one leaf to two nodes of another: together at most
 * 1.2 x the leaf uplink's rate (they share it). Prints one line per
 * pair ("simcluster: ...") and a JSON record of it, and exits 1 on any
 * failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static int failures;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "t_simcluster: FAIL: " __VA_ARGS__);                 \
      fputc('\n', stderr);                                                 \
      failures++;                                                          \
    }                                                                      \
  } while (0)

/* Bytes this node's eth0 sent (tx) or received (rx); -1 if unreadable. */
static long long eth0_bytes(const char *dir) {
  char path[128];
  snprintf(path, sizeof path, "/sys/class/net/eth0/statistics/%s_bytes", dir);
  FILE *f = fopen(path, "r");
  long long v = -1;
  if (f) {
    if (fscanf(f, "%lld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

/* Node number k of a host name NAME-n<k>, or -1. */
static int node_of(const char *name, const char *host) {
  size_t n = strlen(name);
  if (strncmp(host, name, n) != 0 || strncmp(host + n, "-n", 2) != 0) return -1;
  char *end;
  long k = strtol(host + n + 2, &end, 10);
  return (*end || end == host + n + 2) ? -1 : (int)k;
}

/* Ranks not in a measurement wait here without busy-polling the 2 cores the
 * transfers need (MPICH spins in a blocking barrier). */
static void quiet_barrier(void) {
  MPI_Request r;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  while (!done) {
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
}

/* One ping-pong measurement between ranks a and b (collective). Returns
 * the best bandwidth (bytes/s) at a, and a's eth0 bytes sent per message. */
static void pingpong(int a, int b, char *buf, long bytes, int reps, double *best_bps,
                     double *tx_per_msg) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  double best = 0, tx = 0;
  if (me == a || me == b) {
    int peer = me == a ? b : a;
    char ack = 0;
    /* connection set-up outside the timing */
    MPI_Sendrecv(&ack, 1, MPI_CHAR, peer, 0, &ack, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    long long tx0 = eth0_bytes("tx");
    for (int i = 0; i < reps; i++) {
      if (me == a) {
        double t = MPI_Wtime();
        MPI_Send(buf, (int)bytes, MPI_CHAR, b, 1, MPI_COMM_WORLD);
        MPI_Recv(&ack, 1, MPI_CHAR, b, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t;
        if (bytes / t > best) best = bytes / t;
      } else {
        MPI_Recv(buf, (int)bytes, MPI_CHAR, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&ack, 1, MPI_CHAR, a, 2, MPI_COMM_WORLD);
      }
    }
    tx = (double)(eth0_bytes("tx") - tx0) / reps;
  }
  quiet_barrier();
  MPI_Bcast(&best, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
  MPI_Bcast(&tx, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
  *best_bps = best;
  *tx_per_msg = tx;
}

/* Two flows at once, a1 -> b1 and a2 -> b2 (collective): the best over
 * REPS of 2 x BYTES / the slower flow's time, in bytes/s. */
static double two_flows(int a1, int b1, int a2, int b2, char *buf, long bytes, int reps) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int peer = me == a1 ? b1 : me == b1 ? a1 : me == a2 ? b2 : me == b2 ? a2 : -1;
  int sender = me == a1 || me == a2;
  char ack = 0;
  if (peer >= 0) /* connection set-up outside the timing */
    MPI_Sendrecv(&ack, 1, MPI_CHAR, peer, 0, &ack, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  double best = 0;
  for (int i = 0; i < reps; i++) {
    quiet_barrier(); /* the start line */
    double t = MPI_Wtime();
    if (peer >= 0 && sender) {
      MPI_Send(buf, (int)bytes, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
      MPI_Recv(&ack, 1, MPI_CHAR, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (peer >= 0) {
      MPI_Recv(buf, (int)bytes, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&ack, 1, MPI_CHAR, peer, 4, MPI_COMM_WORLD);
    }
    t = peer >= 0 && sender ? MPI_Wtime() - t : 0;
    double slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (2.0 * bytes / slowest > best) best = 2.0 * bytes / slowest;
  }
  return best;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  if (argc < 7) {
    if (me == 0)
      fprintf(stderr, "usage: t_simcluster NAME PER_LEAF NODE_BPS CORE_BPS BYTES REPS "
                      "[packed:PPN|scatter:NODES|map:K0,K1,...]\n");
    MPI_Finalize();
    return 2;
  }
  const char *name = argv[1];
  int per_leaf = atoi(argv[2]);
  double node_bps = atof(argv[3]), core_bps = atof(argv[4]);
  long bytes = atol(argv[5]);
  int reps = atoi(argv[6]);
  const char *place = argc > 7 ? argv[7] : NULL;

  /* 1. host name, namespace, placement */
  char host[MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(host, &len);
  int k = node_of(name, host);
  CHECK(k >= 0, "rank %d: processor name '%s' is not a node of cluster '%s'", me, host, name);
  char nspath[512];
  snprintf(nspath, sizeof nspath, "/run/netns/mpisw-sc-%s", host);
  struct stat mine, theirs;
  CHECK(stat("/proc/self/ns/net", &mine) == 0 && stat(nspath, &theirs) == 0 &&
            mine.st_ino == theirs.st_ino && mine.st_dev == theirs.st_dev,
        "rank %d on '%s' is not in the network namespace %s", me, host, nspath);
  if (place) {
    int want = -1, v = atoi(strchr(place, ':') ? strchr(place, ':') + 1 : "0");
    if (!strncmp(place, "packed:", 7) && v > 0) want = me / v;
    if (!strncmp(place, "scatter:", 8) && v > 0) want = me % v;
    if (!strncmp(place, "map:", 4)) { /* map:K0,K1,...: rank r on node Kr */
      const char *p = place + 4;
      for (int r = 0; r < me && p; r++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
      if (p) want = atoi(p);
    }
    CHECK(want >= 0 && k == want, "rank %d is on node %d, placement %s puts it on node %d",
          me, k, place, want);
  }
  int *nodes = malloc(sizeof(int) * (size_t)np);
  MPI_Allgather(&k, 1, MPI_INT, nodes, 1, MPI_INT, MPI_COMM_WORLD);
  /* shared memory only inside a node */
  MPI_Comm shm;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
  int shm_size, same = 0;
  MPI_Comm_size(shm, &shm_size);
  for (int r = 0; r < np; r++) same += nodes[r] == k;
  CHECK(shm_size == same, "rank %d on '%s' shares memory with %d ranks, its node has %d", me,
        host, shm_size, same);
  MPI_Comm_free(&shm);

  /* 2. the three kinds of pair, found from the node numbers */
  int pair[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}}; /* same node, same leaf, two leaves */
  for (int i = 0; i < np; i++)
    for (int j = 0; j < np; j++) {
      if (i == j || nodes[i] < 0 || nodes[j] < 0) continue;
      int kind = nodes[i] == nodes[j] ? 0 : nodes[i] / per_leaf == nodes[j] / per_leaf ? 1 : 2;
      if (pair[kind][0] < 0) pair[kind][0] = i, pair[kind][1] = j;
    }
  char *buf = calloc(1, (size_t)bytes);
  static const char *kinds[3] = {"same-node", "same-leaf", "cross-leaf"};
  double path_bps[3] = {0, node_bps, node_bps < core_bps ? node_bps : core_bps};
  double slowest = path_bps[2];
  for (int kind = 0; kind < 3; kind++) {
    int a = pair[kind][0], b = pair[kind][1];
    if (a < 0) continue;
    double bps, tx;
    pingpong(a, b, buf, bytes, reps, &bps, &tx);
    if (me != 0) continue;
    printf("simcluster: %-10s rank %d (%s-n%d) -> rank %d (%s-n%d): %ld B, best of %d: "
           "%.1f MB/s (shaped path %.1f MB/s, %.2f x), eth0 sent %.0f B per message\n",
           kinds[kind], a, name, nodes[a], b, name, nodes[b], bytes, reps, bps / 1e6,
           path_bps[kind] / 1e6, kind ? bps / path_bps[kind] : bps / slowest, tx);
    /* the same, as a record for the benchmark driver (bench/suite_simcluster.py) */
    printf("{\"bench\": \"simcluster\", \"path\": \"%s\", \"bytes\": %ld, \"reps\": %d, "
           "\"ranks\": %d, \"bw_Bps\": %.0f, \"shaped_Bps\": %.0f, \"ratio\": %.4f, "
           "\"eth0_tx_per_msg\": %.0f}\n",
           kinds[kind], bytes, reps, np, bps, kind ? path_bps[kind] : slowest,
           kind ? bps / path_bps[kind] : bps / slowest, tx);
    if (kind == 0) {
      CHECK(bps >= 4 * slowest, "same-node %.1f MB/s is not 4 x faster than the links' %.1f MB/s",
            bps / 1e6, slowest / 1e6);
      CHECK(tx < bytes / 4.0, "same-node messages went out on eth0 (%.0f B per message)", tx);
    } else {
      CHECK(bps <= 1.2 * path_bps[kind], "%s %.1f MB/s is above 1.2 x the shaped %.1f MB/s",
            kinds[kind], bps / 1e6, path_bps[kind] / 1e6);
      CHECK(tx >= bytes, "%s: eth0 of the sender sent %.0f B per message of %ld B",
            kinds[kind], tx, bytes);
    }
  }
  /* Two flows between the leaves at once, from two nodes of one leaf to two
   * of another: they share the leaf's uplink, so together they get at most
   * its rate (in a flat switch each would get it). */
  int flow[4] = {-1, -1, -1, -1}; /* a1 b1 a2 b2 */
  for (int i = 0; i < np && flow[0] < 0; i++)
    for (int j = 0; j < np && flow[0] < 0; j++)
      for (int x = 0; x < np && flow[0] < 0; x++)
        for (int y = 0; y < np && flow[0] < 0; y++) {
          int ni = nodes[i], nj = nodes[j], nx = nodes[x], ny = nodes[y];
          if (ni < 0 || nj < 0 || nx < 0 || ny < 0) continue;
          if (ni == nx || nj == ny || ni / per_leaf != nx / per_leaf ||
              nj / per_leaf != ny / per_leaf || ni / per_leaf == nj / per_leaf)
            continue;
          flow[0] = i, flow[1] = j, flow[2] = x, flow[3] = y;
        }
  if (flow[0] >= 0) {
    double agg = two_flows(flow[0], flow[1], flow[2], flow[3], buf, bytes, reps);
    double up = core_bps < 2 * node_bps ? core_bps : 2 * node_bps;
    if (me == 0) {
      printf("simcluster: shared-uplink ranks %d -> %d and %d -> %d at once: %ld B each, best of "
             "%d: %.1f MB/s together (the uplink %.1f MB/s, %.2f x)\n",
             flow[0], flow[1], flow[2], flow[3], bytes, reps, agg / 1e6, up / 1e6, agg / up);
      printf("{\"bench\": \"simcluster\", \"path\": \"shared-uplink\", \"bytes\": %ld, "
             "\"reps\": %d, \"ranks\": %d, \"bw_Bps\": %.0f, \"shaped_Bps\": %.0f, "
             "\"ratio\": %.4f}\n",
             bytes, reps, np, agg, up, agg / up);
      CHECK(agg <= 1.2 * up, "two flows through one uplink got %.1f MB/s together, above 1.2 x "
                             "its %.1f MB/s", agg / 1e6, up / 1e6);
    }
  }
  fflush(stdout);
  int all;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf("simcluster: %s (%d ranks)\n", all ? "FAILED" : "ok", np);
  free(buf);
  free(nodes);
  MPI_Finalize();
  return all ? 1 : 0;
}
