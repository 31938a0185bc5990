# mpisw_kv: the key-value store on windows (cache and naive backends).
add_executable(t_kv mpi/t_kv.c)
target_link_libraries(t_kv PRIVATE mpisw_testlib mpisw m)
foreach(c ops limits evict compact reopen torn errors naive syncerr)
  mpisw_mpi_test(kv_${c} PROG t_kv ARGS ${c} NP 1 2 LABELS kv)
endforeach()
