# Tests of <fxt/trace.h> (hand instrumentation) and preload/api.c: tests/progs/api-all.c and
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
