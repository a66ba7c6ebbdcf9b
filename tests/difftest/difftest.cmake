# The differential-testing corpus (tests/difftest/corpus, README.md there): generated
# programs with JAX's output (CPU, 8 host devices) saved beside them, run through spmdrun
# and compared by compare.py (pure Python: /usr/bin/python3, no NumPy or JAX needed).
# Four shards so that `ctest -j` spreads them; label difftest. Under ASan (./x sanitize)
# only the first shard runs, a quarter of the programs and every class (the corpus is
# the same code paths many times over; all four shards took 197 of the sanitize run's 790
# CPU-seconds); the plain build runs all four.
set(DIFFTEST_PYTHON /usr/bin/python3 CACHE FILEPATH "Python 3 that runs tests/difftest/compare.py")
set(DIFFTEST_SHARDS 4)
math(EXPR _last "${DIFFTEST_SHARDS} - 1")
if(SPMD_SANITIZE)
  set(_last 0)
endif()
foreach(k RANGE ${_last})
  add_test(NAME difftest_corpus_${k}
           COMMAND ${DIFFTEST_PYTHON} ${CMAKE_SOURCE_DIR}/tests/difftest/compare.py $<TARGET_FILE:spmdrun>
                   ${CMAKE_SOURCE_DIR}/tests/difftest/corpus -j 1 --shard ${k}/${DIFFTEST_SHARDS})
  set_tests_properties(difftest_corpus_${k} PROPERTIES LABELS difftest)
endforeach()
