# Targets of bench/calls.sh (the per-call overhead benchmark): the workload built with and
# without -finstrument-functions, and the floor hook library. Included from bench/CMakeLists.txt.
foreach(variant calls-work calls-work-plain)
	add_executable(${variant} ${CMAKE_CURRENT_SOURCE_DIR}/calls-work.c)
	fxt_set_flags(${variant})
	target_compile_options(${variant} PRIVATE -O2 -g)
	target_link_options(${variant} PRIVATE -pthread)
endforeach()
target_compile_options(calls-work PRIVATE -finstrument-functions)

add_library(calls-floor SHARED ${CMAKE_CURRENT_SOURCE_DIR}/calls-floor.c)
fxt_set_flags(calls-floor)
target_compile_options(calls-floor PRIVATE -O2 -fno-instrument-functions)
