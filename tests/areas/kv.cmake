# mpisw_kv: the key-value store on windows (cache and naive backends).
add_executable(t_kv mpi/t_kv.c)
target_link_libraries(t_kv PRIVATE mpisw_testlib mpisw m)
foreach(c ops limits evict compact reopen torn errors naive syncerr)
  mpisw_mpi_test(kv_${c} PROG t_kv ARGS ${c} NP 1 2 LABELS kv)
endforeach()
# Damaged files and stores in use (issue 13): t_kv_damage.c.
add_executable(t_kv_damage mpi/t_kv_damage.c)
target_link_libraries(t_kv_damage PRIVATE mpisw_testlib mpisw m)
mpisw_mpi_test(kv_damage_bitflip PROG t_kv_damage ARGS bitflip NP 1 LABELS kv)
foreach(c crash super naive lock)
  mpisw_mpi_test(kv_damage_${c} PROG t_kv_damage ARGS ${c} NP 1 2 LABELS kv)
endforeach()
