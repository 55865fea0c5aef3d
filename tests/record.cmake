# fxtrun / fxt record tests: the tests/progs/r-* programs (built with -finstrument-functions into
# rprogs/), run by tests/bats/fxtrun.bats through fxtrun with every option and mode; archives
# are checked with `fxt check`, `fxt dump` and tests/e2e/fxt-calls (the project's reader).
find_program(BASH bash REQUIRED)
set(FXT_RPROGS_DIR ${CMAKE_CURRENT_BINARY_DIR}/rprogs)
foreach(name r-leaf r-tree r-count r-phases r-spin r-slow r-exit-busy r-spawn-exit r-forks
		r-scribble r-daemon r-clock)
	add_executable(rprog-${name} progs/${name}.c)
	target_compile_options(rprog-${name} PRIVATE -finstrument-functions -O0 -g -pthread -Wall
		-Wextra $<$<BOOL:${FXT_WERROR}>:-Werror>)
	target_link_options(rprog-${name} PRIVATE -pthread)
	set_target_properties(rprog-${name} PROPERTIES OUTPUT_NAME ${name}
		RUNTIME_OUTPUT_DIRECTORY ${FXT_RPROGS_DIR})
endforeach()

target_include_directories(rprog-r-scribble PRIVATE ${PROJECT_SOURCE_DIR}	# writer/buffer.h
	${PROJECT_SOURCE_DIR}/include)	# fxt/format.h, which writer/fields.h includes

# The circular and streaming chunk policies of preload/transport/provider.c, without a manager.
fxt_unit_test(test-provider unit/test-provider.c ${PROJECT_SOURCE_DIR}/preload/transport/provider.c
	${PROJECT_SOURCE_DIR}/preload/transport/grow.c ${PROJECT_SOURCE_DIR}/preload/base/fd.c
	${PROJECT_SOURCE_DIR}/preload/base/real.c
	${PROJECT_SOURCE_DIR}/common/options.c
	LIBS fxt_writer)
add_test(NAME test-provider-streaming COMMAND test-provider streaming)
# Backing a file-backed buffer (preload/transport/grow.c): takers' steps and the grower's, populated whole.
fxt_unit_test(test-grow unit/test-grow.c ${PROJECT_SOURCE_DIR}/preload/transport/grow.c
	${PROJECT_SOURCE_DIR}/preload/base/fd.c ${PROJECT_SOURCE_DIR}/preload/base/real.c LIBS fxt_writer)
set_tests_properties(test-provider test-provider-streaming test-grow PROPERTIES LABELS tsan)

# r-leaf linked statically: LD_PRELOAD cannot reach it, fxtrun must say so (sanitizer runtimes
# do not link statically: not built then).
if(NOT FXT_SANITIZE)
	add_executable(rprog-r-leaf-static progs/r-leaf.c)
	target_link_options(rprog-r-leaf-static PRIVATE -static)
	set_target_properties(rprog-r-leaf-static PROPERTIES OUTPUT_NAME r-leaf-static
		RUNTIME_OUTPUT_DIRECTORY ${FXT_RPROGS_DIR})
endif()

if(BATS AND TARGET fxt AND TARGET fxtauto AND TARGET fxt-calls)
	add_test(NAME fxtrun-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FXTAUTO=$<TARGET_FILE:fxtauto>
		FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun FXT_CALLS=$<TARGET_FILE:fxt-calls>
		RPROGS=${FXT_RPROGS_DIR} PROGS=${FXT_PROGS_DIR}/gcc
		SAMPLE_PROG=${CMAKE_CURRENT_BINARY_DIR}/m-split
		${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxtrun.bats)
	set_tests_properties(fxtrun-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 600)
	add_test(NAME completeness-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun FXTAUTO=$<TARGET_FILE:fxtauto>
		RPROGS=${FXT_RPROGS_DIR} ${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/completeness.bats)
	set_tests_properties(completeness-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 600)
	add_test(NAME fxtrun-trust-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun RPROGS=${FXT_RPROGS_DIR}
		${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxtrun-trust.bats)
	set_tests_properties(fxtrun-trust-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 300)
	add_test(NAME outpath-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun FXTAUTO=$<TARGET_FILE:fxtauto>
		RPROGS=${FXT_RPROGS_DIR} ${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/outpath.bats)
	set_tests_properties(outpath-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 300)
	add_test(NAME fxtrun-limits-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun FXTAUTO=$<TARGET_FILE:fxtauto>
		RPROGS=${FXT_RPROGS_DIR} ${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxtrun-limits.bats)
	set_tests_properties(fxtrun-limits-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 300)
	# Random SIGKILLs of the program and of fxtrun (tests/soak.sh; `tests/soak.sh 100` by hand).
	add_test(NAME soak COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun FXTAUTO=$<TARGET_FILE:fxtauto>
		RPROGS=${FXT_RPROGS_DIR} bash ${CMAKE_CURRENT_SOURCE_DIR}/soak.sh 20)
	set_tests_properties(soak PROPERTIES LABELS "e2e;nosan" TIMEOUT 300)
endif()
