# Tests of <fxt/trace.h> (hand instrumentation) and preload/events/api.c: tests/progs/api-all.c and
# api-all.cpp use every macro; each is also built with NTRACE and with the macros stripped
# (tests/api/strip-trace.pl). Without the tracer all builds must print the same; NTRACE builds
# must reference no tracer symbol. With libfxtauto.so preloaded, tests/api/api-check compares
# the archive with tests/api/*.expect (registered once fxtauto and fxt_reader exist).
find_package(Threads REQUIRED)
find_program(PERL perl REQUIRED)
find_program(BASH bash REQUIRED)

# api_prog(target source [defines...]): one build of a test program.
function(api_prog tgt src)
	add_executable(${tgt} ${src})
	fxt_set_flags(${tgt})
	target_compile_definitions(${tgt} PRIVATE ${ARGN})
	target_link_libraries(${tgt} PRIVATE Threads::Threads)
endfunction()

foreach(lang c cpp)
	set(name api-all)
	if(lang STREQUAL cpp)
		set(name api-all-cpp)
	endif()
	set(src ${CMAKE_CURRENT_SOURCE_DIR}/progs/api-all.${lang})
	set(stripped ${CMAKE_CURRENT_BINARY_DIR}/${name}-stripped.${lang})
	add_custom_command(OUTPUT ${stripped}
		COMMAND ${PERL} ${CMAKE_CURRENT_SOURCE_DIR}/api/strip-trace.pl ${src} > ${stripped}
		DEPENDS ${src} ${CMAKE_CURRENT_SOURCE_DIR}/api/strip-trace.pl VERBATIM)
	api_prog(${name} ${src})
	api_prog(${name}-ntrace ${src} NTRACE)
	api_prog(${name}-stripped ${stripped})

	add_test(NAME api-${lang}-untraced-output COMMAND ${BASH}
		${CMAKE_CURRENT_SOURCE_DIR}/api/same-output.sh $<TARGET_FILE:${name}-stripped>
		$<TARGET_FILE:${name}> $<TARGET_FILE:${name}-ntrace>)
	add_test(NAME api-${lang}-ntrace-no-symbols COMMAND ${BASH}
		${CMAKE_CURRENT_SOURCE_DIR}/api/no-tracer-symbols.sh ${CMAKE_NM}
		$<TARGET_FILE:${name}-ntrace>)
	# The same check must fail on the normal build, or it proves nothing.
	add_test(NAME api-${lang}-symbols-check-can-fail COMMAND ${BASH}
		${CMAKE_CURRENT_SOURCE_DIR}/api/no-tracer-symbols.sh ${CMAKE_NM}
		$<TARGET_FILE:${name}>)
	set_tests_properties(api-${lang}-symbols-check-can-fail PROPERTIES WILL_FAIL TRUE)
endforeach()
api_prog(api-limits progs/api-limits.c)
api_prog(api-mixed progs/api-mixed.c)
api_prog(api-threads progs/api-threads.c)
target_compile_options(api-mixed PRIVATE -finstrument-functions)

# ---- traced runs: need the reader (for api-check) and the tracer ----
if(NOT TARGET fxt_reader)
	return()
endif()
add_executable(api-check api/api-check.c)
fxt_set_flags(api-check)
target_include_directories(api-check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
target_link_libraries(api-check PRIVATE fxt_reader)
if(NOT TARGET fxtauto)
	return()
endif()

set(api_env FXTAUTO=$<TARGET_FILE:fxtauto> API_CHECK=$<TARGET_FILE:api-check>)
if(TARGET fxt)
	list(APPEND api_env FXT=$<TARGET_FILE:fxt>)
endif()
# api_traced(test expected-file [VAR=value...] program): preloaded run checked by api-check.
function(api_traced test expected)
	add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E env ${api_env} ${BASH}
		${CMAKE_CURRENT_SOURCE_DIR}/api/run-traced.sh
		${CMAKE_CURRENT_SOURCE_DIR}/api/${expected} ${ARGN})
	# An ASan build cannot be preloaded into a program (the ASan runtime must come first).
	set_tests_properties(${test} PROPERTIES LABELS "e2e;nosan" TIMEOUT 60)
endfunction()
api_traced(api-c-traced api-all-c.expect $<TARGET_FILE:api-all>)
api_traced(api-cpp-traced api-all-cpp.expect $<TARGET_FILE:api-all-cpp>)
api_traced(api-c-categories api-all-c-categories.expect FXT_CATEGORIES=api
	$<TARGET_FILE:api-all>)
api_traced(api-cpp-categories api-all-cpp-categories.expect FXT_CATEGORIES=api
	$<TARGET_FILE:api-all-cpp>)
api_traced(api-c-categories-none api-none.expect FXT_CATEGORIES=none $<TARGET_FILE:api-all>)
api_traced(api-c-categories-glob api-glob.expect FXT_CATEGORIES=nothing,api.ex*
	$<TARGET_FILE:api-all>)
api_traced(api-mixed api-mixed.expect $<TARGET_FILE:api-mixed>)
api_traced(api-threads api-threads.expect COUNTS=1 $<TARGET_FILE:api-threads>)
api_traced(api-limits api-limits.expect
	CHILD_EXPECTED=${CMAKE_CURRENT_SOURCE_DIR}/api/api-limits-child.expect
	$<TARGET_FILE:api-limits>)

# Recorded by the trace manager (fxtrun = fxt record) rather than a plain preload.
if(TARGET fxt)
	# Each case: test name; golden file; settings...; program target.
	foreach(case "api-fxtrun-c;api-all-c.expect;api-all"
			"api-fxtrun-cpp;api-all-cpp.expect;api-all-cpp"
			"api-fxtrun-categories;api-all-c-categories.expect;FXT_CATEGORIES=api;api-all"
			"api-fxtrun-categories-option;api-all-c-categories.expect;--categories=api;api-all")
		list(POP_FRONT case test expected)
		list(POP_BACK case prog)
		add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E env ${api_env} ${BASH}
			${CMAKE_CURRENT_SOURCE_DIR}/api/run-fxtrun.sh
			${CMAKE_CURRENT_SOURCE_DIR}/api/${expected} ${case} $<TARGET_FILE:${prog}>)
		set_tests_properties(${test} PROPERTIES LABELS "e2e;nosan" TIMEOUT 60)
	endforeach()
endif()
