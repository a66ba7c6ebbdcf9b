# Runs over several processes (label mpi): `mpirun -np P spmdrun --devices cpu:K` against
# one process with cpu:P*K, for P in 1, 2, 4 and K in 1, 2, 3 (tests/mpi/check.sh). Every
# program (the spec examples, the goldens that run pmaps or shard_maps, tests/mpi/spanning.spmd) runs at
# 4 x 2 (the 8 devices the examples are written for) and 2 x 3; a core of collective
# programs runs at the other seven (P, K), and at 1 x 8 and 2 x 4 with every group on the
# cross-process path. Then the faults, --stats, and CUDA under mpirun without a GPU. Skipped (77)
# without mpirun.
set(MPI_CHECK ${CMAKE_SOURCE_DIR}/tests/mpi/check.sh)
set(MPI_CORE mpi/spanning mpi/inplace golden/collectives golden/all_to_all golden/bool_reductions
             golden/pmap_loop_grad golden/shard_map_keys spec/normalize)
foreach(pk "4;2" "2;3")
  list(GET pk 0 P)
  list(GET pk 1 K)
  add_test(NAME mpi_programs_${P}x${K} COMMAND ${MPI_CHECK} ${SPMDRUN} ${CMAKE_SOURCE_DIR} programs ${P} ${K})
  set_tests_properties(mpi_programs_${P}x${K} PROPERTIES LABELS mpi SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()
foreach(pk "1;1" "1;2" "1;3" "2;1" "2;2" "4;1" "4;3")
  list(GET pk 0 P)
  list(GET pk 1 K)
  add_test(NAME mpi_core_${P}x${K} COMMAND ${MPI_CHECK} ${SPMDRUN} ${CMAKE_SOURCE_DIR} programs ${P} ${K} ${MPI_CORE})
  set_tests_properties(mpi_core_${P}x${K} PROPERTIES LABELS mpi SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# The cross-process path of every group, even one inside a process (SPMD_MPI_ALL_GROUPS=1):
# what GPUs under mpirun take, checked here on CPU devices, one and two processes.
foreach(pk "1;8" "2;4")
  list(GET pk 0 P)
  list(GET pk 1 K)
  add_test(NAME mpi_allgroups_${P}x${K} COMMAND ${MPI_CHECK} ${SPMDRUN} ${CMAKE_SOURCE_DIR} programs ${P} ${K} ${MPI_CORE})
  set_tests_properties(mpi_allgroups_${P}x${K} PROPERTIES LABELS mpi SKIP_RETURN_CODE 77 TIMEOUT 600
                       ENVIRONMENT SPMD_MPI_ALL_GROUPS=1)
endforeach()
# ... and through separate staging buffers, as GPUs on the MPI path (SPMD_MPI_STAGE=1).
add_test(NAME mpi_staged_2x4 COMMAND ${MPI_CHECK} ${SPMDRUN} ${CMAKE_SOURCE_DIR} programs 2 4 ${MPI_CORE})
set_tests_properties(mpi_staged_2x4 PROPERTIES LABELS mpi SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "SPMD_MPI_ALL_GROUPS=1;SPMD_MPI_STAGE=1")
foreach(mode faults stats interrupt nogpu)
  add_test(NAME mpi_${mode} COMMAND ${MPI_CHECK} ${SPMDRUN} ${CMAKE_SOURCE_DIR} ${mode})
  set_tests_properties(mpi_${mode} PROPERTIES LABELS mpi SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()
