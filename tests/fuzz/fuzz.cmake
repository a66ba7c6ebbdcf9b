# libFuzzer targets (SPMD_FUZZ=ON; ./x fuzz builds and runs them: tests/fuzz/README.md).
foreach(t fuzz_front fuzz_codegen)
  add_executable(${t} ${CMAKE_SOURCE_DIR}/tests/fuzz/${t}.cpp)
  target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz)
  target_compile_options(${t} PRIVATE ${WARNINGS})
  target_link_options(${t} PRIVATE -fsanitize=fuzzer,address,undefined)
endforeach()
target_link_libraries(fuzz_front PRIVATE spmdcore)
target_link_libraries(fuzz_codegen PRIVATE spmdcodegen)
