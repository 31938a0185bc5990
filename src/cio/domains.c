/* Stage 2: file domains as ROMIO computes them. The accessed range [lo, hi]
 * of all ranks is cut into k domains of ceil(len / k) bytes (at least
 * min_fd_size); with a striping unit every inner boundary moves to the
 * nearer multiple of it (so two aggregators never share a lock unit of a
 * parallel file system) and the last domain ends at hi. Domains that start
 * past hi are empty; the last non-empty one is cut at hi. */
#include "cio/engine.h"

static MPI_Offset to_nearest_unit(MPI_Offset off, MPI_Offset unit) {
  MPI_Offset below = off % unit, above = unit - below;
  return below < above ? off - below : off + above;
}

void mpisw_cio_domains(MPI_Offset lo, MPI_Offset hi, int k, MPI_Offset min_fd_size,
                       MPI_Offset striping_unit, MPI_Offset *start, MPI_Offset *end) {
  MPI_Offset size = (hi - lo + 1 + k - 1) / k;
  if (size < min_fd_size) size = min_fd_size;
  for (int d = 0; d < k; d++) {
    start[d] = d == 0 ? lo : end[d - 1] + 1;
    MPI_Offset stop = lo + size * (d + 1); /* one past the domain, unaligned */
    if (striping_unit > 0) stop = to_nearest_unit(stop, striping_unit);
    end[d] = stop - 1;
  }
  if (striping_unit > 0) end[k - 1] = hi;
  for (int d = 0; d < k; d++) {
    if (start[d] > hi) start[d] = end[d] = -1;
    else if (end[d] > hi) end[d] = hi;
    /* alignment can leave a domain with no byte: empty too */
    if (start[d] >= 0 && end[d] < start[d]) start[d] = end[d] = -1;
  }
}

int mpisw_cio_domain_of(const MPI_Offset *start, const MPI_Offset *end, int k, MPI_Offset off) {
  int lo = 0, hi = k - 1, found = -1;
  /* domains are in file order; empty ones (-1) are skipped by the search */
  while (lo <= hi) {
    int mid = (lo + hi) / 2, d = mid;
    while (d <= hi && start[d] < 0) d++;
    if (d > hi) {
      hi = mid - 1;
      continue;
    }
    if (off < start[d]) hi = mid - 1;
    else if (off > end[d]) lo = d + 1;
    else {
      found = d;
      break;
    }
  }
  return found;
}
