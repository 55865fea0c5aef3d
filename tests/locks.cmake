# Threads, locks and logs recorded by libfxtauto.so (preload/events/lock.c, log.c, uobj.c): the
# tests/progs/k-* programs run untraced and traced by tests/locks/check.py, which compares
# their output and checks the archive's content through `fxt dump`; plus an unmodified Debian
# threaded binary. Python runs the checks; the programs are built instrumented (gcc -O2).
find_package(Python3 COMPONENTS Interpreter)
if(NOT (TARGET fxtauto AND TARGET fxt AND Python3_FOUND))
	return()
endif()
foreach(name k-sync k-log k-stderr)
	add_executable(${name} progs/${name}.c)
	target_compile_options(${name} PRIVATE -finstrument-functions -g -O2 -Wall -Wextra
		$<$<BOOL:${FXT_WERROR}>:-Werror>)
	target_link_options(${name} PRIVATE -pthread)
endforeach()
set(FXT_LOCKS_ENV FXT=$<TARGET_FILE:fxt> FXTAUTO=$<TARGET_FILE:fxtauto>)
set(FXT_LOCKS_CHECK ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/locks/check.py)
add_test(NAME locks-sync COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV} ${FXT_LOCKS_CHECK}
	sync $<TARGET_FILE:k-sync>)
set_tests_properties(locks-sync PROPERTIES LABELS "e2e" TIMEOUT 60)
# Without the label argument: the userspace object records still name the objects.
add_test(NAME locks-sync-nolabels COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV}
	FXT_LOCK_LABELS=0 ${FXT_LOCKS_CHECK} sync $<TARGET_FILE:k-sync>)
set_tests_properties(locks-sync-nolabels PROPERTIES LABELS "e2e" TIMEOUT 60)
# k-log with the default streams (stderr, syslog), with stdout too, and with none.
foreach(streams "" "stderr,stdout" "none")
	string(REPLACE "," "-" suffix "log-${streams}")
	if(streams STREQUAL "")
		set(suffix log-default)
	endif()
	set(setting FXT_LOG=${streams})
	if(streams STREQUAL "")
		set(setting --unset=FXT_LOG)	# an empty FXT_LOG is refused (common/options.c)
	endif()
	add_test(NAME locks-${suffix} COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV}
		${setting} ${FXT_LOCKS_CHECK} log $<TARGET_FILE:k-log>)
	set_tests_properties(locks-${suffix} PROPERTIES LABELS "e2e" TIMEOUT 60)
endforeach()
add_test(NAME locks-log-noevents COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV}
	FXT_LOG_EVENTS=0 FXT_LOG=stderr ${FXT_LOCKS_CHECK} log $<TARGET_FILE:k-log>)
set_tests_properties(locks-log-noevents PROPERTIES LABELS "e2e" TIMEOUT 60)
# An unmodified Debian binary that uses threads (xz compressing blocks on 2 threads).
find_program(FXT_XZ xz)
if(FXT_XZ)
	add_test(NAME locks-debian-xz COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV}
		${FXT_LOCKS_CHECK} threaded ${FXT_XZ} -T2 --block-size=4096 -3 -c
		${CMAKE_SOURCE_DIR}/preload/events/api.c)
	set_tests_properties(locks-debian-xz PROPERTIES LABELS "e2e;nosan" TIMEOUT 60)
endif()
# glibc's own stderr writers (perror, error, error_at_line, err.h, dprintf: libc-internal
# stdio) and unmodified coreutils binaries reporting errors through error(): each stderr line a
# log record, in order.
add_test(NAME locks-log-glibc COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV}
	${FXT_LOCKS_CHECK} lines $<TARGET_FILE:k-stderr>)
set_tests_properties(locks-log-glibc PROPERTIES LABELS "e2e" TIMEOUT 60)
find_program(FXT_LS ls)
find_program(FXT_PRINTF printf)
if(FXT_LS AND FXT_PRINTF)
	add_test(NAME locks-log-coreutils-ls COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV} LC_ALL=C
		${FXT_LOCKS_CHECK} lines ${FXT_LS} /nonexistent-fxt-a /nonexistent-fxt-b)
	add_test(NAME locks-log-coreutils-printf COMMAND ${CMAKE_COMMAND} -E env ${FXT_LOCKS_ENV}
		LC_ALL=C ${FXT_LOCKS_CHECK} lines ${FXT_PRINTF} %d%d abc 12x)
	set_tests_properties(locks-log-coreutils-ls locks-log-coreutils-printf PROPERTIES
		LABELS "e2e;nosan" TIMEOUT 60)
endif()
