/* What a collective call of the engine did: one MPISW_REPORT line per call
 * (rank 0 of the file's communicator; times are the slowest rank's) and the
 * mpisw_cb_* keys MPI_File_get_info adds for the last call (times are this
 * rank's). docs/COLLECTIVE_IO.md "Hints and report" lists them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cio/engine.h"
#include "pmpi/pmpi.h"

/* "0,3,5": the aggregators in domain order, cut with "..." to fit len. */
static void agg_list(const struct cio_report *r, char *out, size_t len) {
  size_t n = 0;
  out[0] = 0;
  for (int d = 0; d < r->ndomains; d++) {
    char one[24];
    int k = snprintf(one, sizeof one, "%s%d", d ? "," : "", r->agg[d]);
    if (n + (size_t)k + 4 >= len) {
      snprintf(out + n, len - n, ",...");
      return;
    }
    memcpy(out + n, one, (size_t)k + 1);
    n += (size_t)k;
  }
}

void mpisw_cio_report_call(struct cio_file *f) {
  if (!mpisw_report_enabled()) return;
  const struct cio_report *r = &f->last;
  double t[4] = {r->t_meta, r->t_assign, r->t_shuffle, r->t_io}, tmax[4];
  PMPI_Reduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, f->comm);
  if (f->rank != 0) return;
  char aggs[512];
  agg_list(r, aggs, sizeof aggs);
  if (r->independent) {
    fprintf(stderr,
            "mpisw: collective I/O: %s on %s: strategy=%s independent (no interleaving) "
            "bytes=%.0f time_metadata=%.6f time_shuffle=%.6f time_io=%.6f\n",
            r->call, f->path, mpisw_cio_strategy_name[r->strategy], r->bytes, tmax[0], tmax[2],
            tmax[3]);
    fflush(stderr);
    return;
  }
  fprintf(stderr,
          "mpisw: collective I/O: %s on %s: strategy=%s cb_nodes=%d%s aggregators=%s "
          "bytes=%.0f rounds=%d hopbytes=%.0f hopbytes_otp=%.0f hopbytes_latp=%.0f "
          "hopbytes_tatp=%.0f max_link_load=%llu time_metadata=%.6f time_assign=%.6f "
          "time_shuffle=%.6f time_io=%.6f matrix=%s\n",
          r->call, f->path, mpisw_cio_strategy_name[r->strategy], r->ndomains,
          r->cb_nodes_auto ? "(auto)" : "", r->ndomains ? aggs : "none", r->bytes, r->rounds,
          r->hopbytes, r->hop[CIO_OTP], r->hop[CIO_LATP], r->hop[CIO_TATP],
          (unsigned long long)r->max_link, tmax[0], tmax[1], tmax[2], tmax[3],
          r->matrix_guessed ? "with-agreement" : "own-gather");
  fflush(stderr);
}

static void set_num(MPI_Info info, const char *key, const char *fmt, double v) {
  char text[64];
  snprintf(text, sizeof text, fmt, v);
  PMPI_Info_set(info, key, text);
}

void mpisw_cio_report_info(struct cio_file *f, MPI_Info info) {
  const struct cio_report *r = &f->last;
  PMPI_Info_set(info, "mpisw_cb_strategy", mpisw_cio_strategy_name[f->h.strategy]);
  set_num(info, "mpisw_cb_calls", "%.0f", (double)f->calls);
  if (!f->calls) return;
  char aggs[MPI_MAX_INFO_VAL < 1024 ? MPI_MAX_INFO_VAL : 1024];
  agg_list(r, aggs, sizeof aggs);
  PMPI_Info_set(info, "mpisw_cb_call", r->call);
  PMPI_Info_set(info, "mpisw_cb_mode", r->independent ? "independent" : "two-phase");
  set_num(info, "mpisw_cb_domains", "%.0f", r->ndomains);
  PMPI_Info_set(info, "mpisw_cb_aggregators", r->ndomains ? aggs : "none");
  set_num(info, "mpisw_cb_bytes", "%.0f", r->bytes);
  set_num(info, "mpisw_cb_rounds", "%.0f", r->rounds);
  set_num(info, "mpisw_cb_rounds_behind", "%.0f", r->rounds_behind);
  set_num(info, "mpisw_cb_rounds_direct", "%.0f", r->rounds_direct);
  set_num(info, "mpisw_cb_rounds_placed", "%.0f", r->rounds_placed);
  if (!r->independent && r->ndomains)
    PMPI_Info_set(info, "mpisw_cb_matrix", r->matrix_guessed ? "with-agreement" : "own-gather");
  set_num(info, "mpisw_cb_hopbytes", "%.0f", r->hopbytes);
  set_num(info, "mpisw_cb_hopbytes_otp", "%.0f", r->hop[CIO_OTP]);
  set_num(info, "mpisw_cb_hopbytes_latp", "%.0f", r->hop[CIO_LATP]);
  set_num(info, "mpisw_cb_hopbytes_tatp", "%.0f", r->hop[CIO_TATP]);
  set_num(info, "mpisw_cb_max_link_load", "%.0f", (double)r->max_link);
  set_num(info, "mpisw_cb_time_metadata", "%.9f", r->t_meta);
  set_num(info, "mpisw_cb_time_assign", "%.9f", r->t_assign);
  set_num(info, "mpisw_cb_time_shuffle", "%.9f", r->t_shuffle);
  set_num(info, "mpisw_cb_time_io", "%.9f", r->t_io);
}

void mpisw_cio_report_free(struct cio_report *r) {
  free(r->agg);
  r->agg = NULL;
}
