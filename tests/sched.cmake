# Scheduling records (preload/sampling/sched.c, fxtrun --sched): c-sched's threads spin, sleep, block on
# a mutex and on a pipe; run.sh checks the archive (fxt check), the on-CPU fractions fxt report
# computes against the threads' CPU clocks, and the switch counts against /proc. LABELS nosan:
# the fractions need an unsanitized workload, and perf_event must be allowed (paranoid <= 2).
if(NOT TARGET fxtauto OR NOT TARGET fxt)
	return()
endif()
find_program(S_PYTHON3 python3)
if(NOT S_PYTHON3)
	return()
endif()
find_package(Threads REQUIRED)
add_executable(c-sched ${CMAKE_CURRENT_SOURCE_DIR}/progs/c-sched.c)
target_compile_options(c-sched PRIVATE -O2 -g -finstrument-functions -fno-inline)
target_link_libraries(c-sched PRIVATE Threads::Threads)
# s-exit: a main thread that calls pthread_exit while its other thread runs on.
add_executable(sched-s-exit ${CMAKE_CURRENT_SOURCE_DIR}/progs/s-exit.c)
target_compile_options(sched-s-exit PRIVATE -O0 -g -finstrument-functions)
target_link_libraries(sched-s-exit PRIVATE Threads::Threads)
# Preloaded after libfxtauto.so by sched.bats: sentinels at the parent's perf ring addresses in
# a fork child, which the tracer's fork handler must leave alone (progs/lib-fork-sentinel.c).
add_library(fork-sentinel MODULE ${CMAKE_CURRENT_SOURCE_DIR}/progs/lib-fork-sentinel.c)
target_compile_options(fork-sentinel PRIVATE -Wall -Wextra)
target_link_libraries(fork-sentinel PRIVATE Threads::Threads)
set(s_out ${CMAKE_CURRENT_BINARY_DIR}/sched-out)
file(MAKE_DIRECTORY ${s_out})
set(s_run ${CMAKE_CURRENT_SOURCE_DIR}/sched/run.sh $<TARGET_FILE:fxtauto> $<TARGET_FILE:fxt>
	$<TARGET_FILE:c-sched>)
add_test(NAME sched-preload COMMAND ${s_run} ${s_out}/preload.fxt)
add_test(NAME sched-fxtrun COMMAND ${s_run} ${s_out}/fxtrun.fxt)
set_tests_properties(sched-fxtrun PROPERTIES ENVIRONMENT FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun)
set_tests_properties(sched-preload sched-fxtrun PROPERTIES LABELS nosan TIMEOUT 60)
find_program(S_BATS bats)
if(S_BATS)
	add_test(NAME sched-bats COMMAND ${CMAKE_COMMAND} -E env LIB=$<TARGET_FILE:fxtauto>
		FXT=$<TARGET_FILE:fxt> FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun PROG=$<TARGET_FILE:c-sched>
		SENTINEL=$<TARGET_FILE:fork-sentinel> EXIT_PROG=$<TARGET_FILE:sched-s-exit>
		${S_BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/sched.bats)
	set_tests_properties(sched-bats PROPERTIES LABELS nosan TIMEOUT 120)
endif()
