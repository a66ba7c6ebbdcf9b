# The benchmark suite's smoke test: every bench/ workload runs once at tiny sizes through
# spmdrun and its baselines (JAX, NumPy, multiprocessing.Pool). No network is needed; where
# JAX is not importable its side reports "skipped: JAX not installed" and the test passes.
# Full numbers come from bench/run (see BENCHMARKS.md), not from CTest.
add_test(NAME bench_smoke
         COMMAND ${CMAKE_SOURCE_DIR}/bench/run --smoke --spmdrun $<TARGET_FILE:spmdrun>)
set_tests_properties(bench_smoke PROPERTIES TIMEOUT 300 LABELS bench)
