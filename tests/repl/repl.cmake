# The REPL (through a pipe and in a real terminal), --trace, and the tutorial's snippets.
# Included from tests/tests.cmake.
add_test(NAME repl_pipe COMMAND ${CMAKE_SOURCE_DIR}/tests/repl/pipe.sh $<TARGET_FILE:spmdrun> ${CMAKE_SOURCE_DIR})
add_test(NAME repl_tmux COMMAND ${CMAKE_SOURCE_DIR}/tests/repl/tmux.sh $<TARGET_FILE:spmdrun>)
set_tests_properties(repl_tmux PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME trace_rule30 COMMAND ${CMAKE_SOURCE_DIR}/tests/repl/trace.sh $<TARGET_FILE:spmdrun>
         ${CMAKE_SOURCE_DIR}/tests/spec/rule30.spmd)
add_test(NAME tutorial COMMAND ${CMAKE_SOURCE_DIR}/tests/repl/tutorial.sh $<TARGET_FILE:spmdrun> ${CMAKE_SOURCE_DIR})
add_test(NAME repl_many_defs COMMAND ${CMAKE_SOURCE_DIR}/tests/repl/many_defs.sh $<TARGET_FILE:spmdrun>)
add_test(NAME repl_goldens_pipe COMMAND ${CMAKE_SOURCE_DIR}/tests/repl/goldens_pipe.sh $<TARGET_FILE:spmdrun> ${CMAKE_SOURCE_DIR})
