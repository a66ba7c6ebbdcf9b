# The differential-testing corpus (tests/difftest/corpus, README.md there): generated
# programs with JAX's output (CPU, 8 host devices) saved beside them, run through spmdrun
# and compared by compare.py (pure Python: /usr/bin/python3, no NumPy or JAX needed).
# Four shards so that `ctest -j` spreads them; label difftest.
set(DIFFTEST_PYTHON /usr/bin/python3 CACHE FILEPATH "Python 3 that runs tests/difftest/compare.py")
set(DIFFTEST_SHARDS 4)
math(EXPR _last "${DIFFTEST_SHARDS} - 1")
foreach(k RANGE ${_last})
  add_test(NAME difftest_corpus_${k}
           COMMAND ${DIFFTEST_PYTHON} ${CMAKE_SOURCE_DIR}/tests/difftest/compare.py $<TARGET_FILE:spmdrun>
                   ${CMAKE_SOURCE_DIR}/tests/difftest/corpus -j 1 --shard ${k}/${DIFFTEST_SHARDS})
  set_tests_properties(difftest_corpus_${k} PROPERTIES LABELS difftest)
endforeach()
