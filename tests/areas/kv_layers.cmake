# The key-value store's files call each other without a circle (issue 14):
# a check of the objects' symbols. ctest -L kv
find_program(MPISW_KV_LAYERS_PYTHON3 NAMES python3)
find_program(MPISW_KV_LAYERS_NM NAMES nm)
if(MPISW_KV_LAYERS_PYTHON3 AND MPISW_KV_LAYERS_NM)
  add_test(NAME kv_layers_acyclic
           COMMAND ${MPISW_KV_LAYERS_PYTHON3} ${PROJECT_SOURCE_DIR}/tests/tools/kv_layers.py
                   ${MPISW_KV_LAYERS_NM} "$<TARGET_OBJECTS:mpisw_objs>")
  set_tests_properties(kv_layers_acyclic PROPERTIES TIMEOUT 30 LABELS "kv")
endif()
