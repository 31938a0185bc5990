/* Memory/storage split of one range: sizes, page boundaries, offsets. */
#include "check.h"
#include "core/layout.h"

#define P 4096ULL

int main(void) {
  struct mpisw_layout l;
  struct mpisw_error e;

  /* All storage, aligned and unaligned offsets. */
  CHECK(mpisw_layout_compute(10000, 0, 0, 0, P, &l, &e) == 0);
  CHECK(l.sto_len == 10000 && l.mem_len == 0 && l.lead == 0 && l.map_file_len == 3 * P);
  CHECK(mpisw_layout_compute(10000, 0, 0, 100, P, &l, &e) == 0);
  CHECK(l.lead == 100 && l.map_file_off == 0 && l.map_file_len == 3 * P);
  CHECK(mpisw_layout_compute(8192, 0, 0, 4096 + 7, P, &l, &e) == 0);
  CHECK(l.lead == 7 && l.map_file_off == 4096 && l.map_file_len == 3 * P);

  /* All memory. */
  CHECK(mpisw_layout_compute(10000, 10000, 0, 0, P, &l, &e) == 0);
  CHECK(l.mem_len == 10000 && l.sto_len == 0 && l.map_file_len == 0 && l.map_mem_len == 3 * P);

  /* Factor 0.5 of 4 MiB: exactly half, both orders. */
  uint64_t S = 4ULL << 20;
  uint64_t m = mpisw_layout_mem_target(S, 0.5, P);
  CHECK(m == S / 2);
  CHECK(mpisw_layout_compute(S, m, 0, 0, P, &l, &e) == 0);
  CHECK(l.mem_len == S / 2 && l.sto_len == S / 2 && l.map_mem_at == 0 && l.map_file_at == S / 2);
  CHECK(l.map_file_off == 0 && l.reserve_len == S);
  CHECK(mpisw_layout_compute(S, m, 1, 0, P, &l, &e) == 0);
  CHECK(l.sto_len == S / 2 && l.map_file_at == 0 && l.map_mem_at == S / 2 && l.lead == 0);

  /* storage_first with an unaligned offset: the split still lands on a page. */
  CHECK(mpisw_layout_compute(S, m, 1, 100, P, &l, &e) == 0);
  CHECK(l.lead == 100 && (l.lead + l.sto_len) % P == 0 && l.mem_len <= m);
  CHECK(l.mem_len + l.sto_len == S && l.map_mem_at == l.lead + l.sto_len);

  /* memory_first with an unaligned offset cannot split on a page: error. */
  CHECK(mpisw_layout_compute(S, m, 0, 100, P, &l, &e) == -1 && e.kind == MPISW_K_HINT);

  /* The memory part never exceeds the target (auto budgets). */
  CHECK(mpisw_layout_compute(S, 1000000, 0, 0, P, &l, &e) == 0);
  CHECK(l.mem_len <= 1000000 && l.mem_len % P == 0 && l.mem_len > 1000000 - P);
  CHECK(mpisw_layout_compute(S, 1000000, 1, 0, P, &l, &e) == 0);
  CHECK(l.mem_len <= 1000000 && l.mem_len + P > 1000000);

  /* Factors 0 and 1. */
  CHECK(mpisw_layout_mem_target(S, 0.0, P) == S && mpisw_layout_mem_target(S, 1.0, P) == 0);

  /* Overflow of offset + size. */
  CHECK(mpisw_layout_compute(1ULL << 40, 0, 0, UINT64_MAX - 10, P, &l, &e) == -1);

  /* Size 0: nothing to map. */
  CHECK(mpisw_layout_compute(0, 0, 0, 0, P, &l, &e) == 0 && l.reserve_len == 0);
  return check_summary("test_layout");
}
