# Golden tests: the spec's example programs (tests/spec, copied verbatim from
# shared/spec/examples) run through their own checker, the error cases, and the dumps.
set(SPEC_DIR ${CMAKE_SOURCE_DIR}/tests/spec)
set(SPMDRUN $<TARGET_FILE:spmdrun>)

# Examples whose feature is still open are registered but DISABLED, so CTest lists them as
# "Not Run (Disabled)" in its summary instead of hiding them. Remove a name from this list
# when its issue lands.
set(PENDING_EXAMPLES)

file(GLOB SPEC_PROGRAMS RELATIVE ${SPEC_DIR} CONFIGURE_DEPENDS ${SPEC_DIR}/*.spmd)
foreach(f ${SPEC_PROGRAMS})
  string(REGEX REPLACE "\\.spmd$" "" name ${f})
  add_test(NAME example_${name} COMMAND ${SPEC_DIR}/check-all ${SPMDRUN} ${name})
  add_test(NAME dump_${name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/dumps-succeed.sh ${SPMDRUN} ${SPEC_DIR}/${f})
  add_test(NAME ptx_${name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/ptx-assembles.sh ${SPMDRUN} ${SPEC_DIR}/${f})
  set_tests_properties(ptx_${name} PROPERTIES SKIP_RETURN_CODE 77)
  if(name IN_LIST PENDING_EXAMPLES)
    set_tests_properties(example_${name} PROPERTIES DISABLED TRUE)
  endif()
endforeach()
add_test(NAME example_errors COMMAND ${SPEC_DIR}/check-all ${SPMDRUN} errors)

# The project's own golden tests: tests/golden/*.spmd with a .out beside them (or an
# expected error in a header comment, see tests/golden/run.sh).
file(GLOB GOLDEN RELATIVE ${CMAKE_SOURCE_DIR}/tests/golden CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/golden/*.spmd)
foreach(f ${GOLDEN})
  string(REGEX REPLACE "\\.spmd$" "" name ${f})
  add_test(NAME golden_${name} COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/run.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR}/tests/golden/${f})
  # 77: a '# host:' golden on the other kind of host (Note [Host-dependent goldens]).
  set_tests_properties(golden_${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()

# Transform tests as files: tests/transforms/*.spmd, each with the IR it must dump after
# the passes its header names in a .ir beside it (tests/transforms/README.md).
file(GLOB TRANSFORM_TESTS RELATIVE ${CMAKE_SOURCE_DIR}/tests/transforms CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/transforms/*.spmd)
foreach(f ${TRANSFORM_TESTS})
  string(REGEX REPLACE "\\.spmd$" "" name ${f})
  add_test(NAME transform_${name} COMMAND ${CMAKE_SOURCE_DIR}/tests/transforms/run.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR}/tests/transforms/${f})
endforeach()

# The shard_map examples, whose .out files examples/shard_map_jax.py writes with JAX.
foreach(name shard_matmul shard_scatter_gather shard_normalize)
  add_test(NAME example_${name} COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/run.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR}/examples/${name}.spmd)
endforeach()

# run.sh's time limit: a golden program that never ends fails, saying so.
add_test(NAME golden_time_limit COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/timeout.sh ${SPMDRUN})
# The command line: exit codes for misuse.
add_test(NAME cli_usage COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/cli.sh ${SPMDRUN} ${SPEC_DIR})
# Ctrl-C: SIGINT stops a running script (exit 130) and a REPL input (the session goes on).
add_test(NAME interrupt_script COMMAND ${CMAKE_SOURCE_DIR}/tests/interrupt/script.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR})
add_test(NAME interrupt_repl COMMAND ${CMAKE_SOURCE_DIR}/tests/interrupt/repl.sh ${SPMDRUN})
set_tests_properties(interrupt_script interrupt_repl PROPERTIES TIMEOUT 600)
# Generated long and deeply nested programs, dynamic indices into empty arrays: an answer
# or a clear error on CPU devices and through --split-kernels, never a crash.
add_test(NAME robustness COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/robustness.sh ${SPMDRUN})
# Collectives over tuples mixing vmap and pmap axes lower to collectives over the pmap
# axes that move only what they must (the IR, checked).
add_test(NAME mixed_axes_ir COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/mixed_axes_ir.sh ${SPMDRUN})
# The on-disk object cache: hits, misses, corrupt entries, --no-cache.
add_test(NAME object_cache COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/cache.sh ${SPMDRUN})
include(${CMAKE_SOURCE_DIR}/tests/repl/repl.cmake)
# Note [Packed relocations] in CMakeLists.txt: the relative relocations are packed (DT_RELR).
if(SPMD_RELR)
  add_test(NAME packed_relocations COMMAND sh -c "readelf -d \"$0\" | grep -q '(RELR)'" ${SPMDRUN})
endif()
add_test(NAME vector_code COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/vector_code.sh ${SPMDRUN} ${SPEC_DIR} ${CMAKE_SOURCE_DIR}/tests/stats)
add_test(NAME stats_sharded COMMAND ${CMAKE_SOURCE_DIR}/tests/stats/check.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR}/tests/stats)
include(${CMAKE_SOURCE_DIR}/tests/bench_smoke.cmake)
include(${CMAKE_SOURCE_DIR}/tests/difftest/difftest.cmake)

# The GPU backend: every program on cuda:1 and cuda:8 against cpu:1 and cpu:8 (label gpu;
# skipped, saying why, where no GPU is usable). The same programs run through the GPU's
# device-program/kernel split on CPU devices (--split-kernels) everywhere, so CI checks
# the split without a GPU.
add_test(NAME gpu_programs COMMAND ${CMAKE_SOURCE_DIR}/tests/gpu/check.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR})
set_tests_properties(gpu_programs PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
add_test(NAME split_kernels COMMAND ${CMAKE_SOURCE_DIR}/tests/gpu/check.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR} split)
# Under ASan (./x sanitize) each program runs split on one device count, 8 and 1 in turn
# down the list (CHECK_CYCLE), so both counts' paths run instrumented; every program on
# 1, 8 and, with collectives, 2 and 3 devices runs in the plain build. split_kernels was
# the sanitize run's longest test by far (1,100 of 1,145 s of its CTest wall on the loaded
# 2-core host of session 18, the rest of the tests on the other core).
if(SPMD_SANITIZE)
  set_tests_properties(split_kernels PROPERTIES ENVIRONMENT "CHECK_EXTRA_COUNTS=;CHECK_CYCLE=1")
endif()
# The GPU benchmark harness (bench/run --gpu) without a GPU: arguments, the clean failure,
# the ctypes loaders, the --stats parser on every GPU workload (cpu:8), the report from
# synthetic results (tests/gpu/bench_harness.py; /usr/bin/python3, no JAX needed).
add_test(NAME gpu_bench_harness
         COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/gpu/bench_harness.py ${SPMDRUN} ${CMAKE_SOURCE_DIR})
set_tests_properties(gpu_bench_harness PROPERTIES TIMEOUT 600 LABELS bench)
foreach(f ${GOLDEN})
  string(REGEX REPLACE "\\.spmd$" "" name ${f})
  add_test(NAME ptx_golden_${name}
           COMMAND ${CMAKE_SOURCE_DIR}/tests/golden/ptx-assembles.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR}/tests/golden/${f})
  set_tests_properties(ptx_golden_${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
include(${CMAKE_SOURCE_DIR}/tests/mpi/mpi.cmake)
# More CPU devices than cores, on one core: collectives must not stall (tests/stress).
# Large generated scripts: the front end's memory stays bounded (tests/stress/front_memory.py).
add_test(NAME front_memory COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/stress/front_memory.py ${SPMDRUN})
set_tests_properties(front_memory PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
if(SPMD_SANITIZE)  # its bounds are the plain build's (it skips and says so)
  set_tests_properties(front_memory PROPERTIES ENVIRONMENT "FRONT_MEMORY_SANITIZED=1")
endif()
add_test(NAME one_core_collectives COMMAND ${CMAKE_SOURCE_DIR}/tests/stress/one_core.sh ${SPMDRUN} ${CMAKE_SOURCE_DIR}/tests/stress)
set_tests_properties(one_core_collectives PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
# Scheduling hints for `ctest -j`: CTest starts tests in decreasing COST, and without a
# Testing/Temporary/CTestCostData.txt (a fresh clone: CI) every cost is 0 and tests start
# in the order above, so split_kernels, the mpi tests and one_core_collectives, among the
# longest, started last and ran on alone at the end of a 2-core run. Rough CPU seconds;
# only the order matters, and CTest replaces these by measured times after a first run.
foreach(tc "split_kernels 200" "robustness 60" "bench_smoke 60" "gpu_bench_harness 40"
           "mpi_programs_4x2 60" "mpi_programs_2x3 60" "one_core_collectives 40"
           "unit_runtime 30" "unit_codegen 25" "repl_goldens_pipe 25"
           "difftest_corpus_0 20" "difftest_corpus_1 20" "difftest_corpus_2 20" "difftest_corpus_3 20"
           "golden_xla_sum_fused 10" "golden_xla_sum_order 10" "golden_eager_integer_pow 10"
           "object_cache 8" "tutorial 8" "cli_usage 8" "stats_sharded 8" "interrupt_script 8")
  separate_arguments(tc)
  list(GET tc 0 name)
  list(GET tc 1 cost)
  if(TEST ${name})
    set_tests_properties(${name} PROPERTIES COST ${cost})
  endif()
endforeach()
