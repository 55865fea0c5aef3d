# End-to-end tests of libfxtauto.so: the tests/progs/s-* programs (one behaviour each) built
# by gcc and clang at -O0 and -O2, and the examples, each run untraced and traced by run-prog.sh,
# which compares outputs and checks the archive with `fxt check` and fxt-calls against a golden
# file in tests/e2e/expect/. preload.bats covers the environment options. Registered only once
# the targets they need exist (fxt_reader, fxtauto, fxt).
find_program(FXT_CLANG clang)
find_program(BASH bash REQUIRED)
set(FXT_PROGS_DIR ${CMAKE_CURRENT_BINARY_DIR}/progs)
set(FXT_PROG_FLAGS -finstrument-functions -g -pthread)
# The compiler x optimization matrix (as uftrace's runtest.py): at -O2 callees are inlined into
# their callers' frames and still call the hooks, which the tracer must nest correctly.
set(FXT_E2E_COMPILERS gcc gcc-O2)
if(FXT_CLANG)
	list(APPEND FXT_E2E_COMPILERS clang clang-O2)
endif()

# fxt_prog(name source): builds tests/progs/<source> as progs/<variant>/<name> for each
# variant of FXT_E2E_COMPILERS: gcc* with the project's compilers (gcc in CI), clang* with clang.
function(fxt_prog name source)
	foreach(variant ${FXT_E2E_COMPILERS})
		set(opt -O0)
		if(variant MATCHES "-O2$")
			set(opt -O2)
		endif()
		set(tgt prog-${variant}-${name})
		if(variant MATCHES "^gcc")
			add_executable(${tgt} progs/${source})
			target_compile_options(${tgt} PRIVATE ${FXT_PROG_FLAGS} ${opt} -Wall -Wextra
				$<$<BOOL:${FXT_WERROR}>:-Werror>)
			target_link_options(${tgt} PRIVATE -pthread)
			set_target_properties(${tgt} PROPERTIES OUTPUT_NAME ${name}
				RUNTIME_OUTPUT_DIRECTORY ${FXT_PROGS_DIR}/${variant})
			continue()
		endif()
		set(out ${FXT_PROGS_DIR}/${variant}/${name})
		set(cc ${FXT_CLANG})
		if(source MATCHES "\\.cpp$")
			set(cc ${FXT_CLANG}++)
		endif()
		set(san)
		if(FXT_SANITIZE)
			set(san -fsanitize=${FXT_SANITIZE} -fno-omit-frame-pointer)
		endif()
		add_custom_command(OUTPUT ${out}
			COMMAND ${CMAKE_COMMAND} -E make_directory ${FXT_PROGS_DIR}/${variant}
			COMMAND ${cc} ${FXT_PROG_FLAGS} ${opt} ${san} -Wall -Wextra -Werror
				-o ${out} ${CMAKE_CURRENT_SOURCE_DIR}/progs/${source}
			DEPENDS progs/${source} VERBATIM)
		add_custom_target(${tgt} ALL DEPENDS ${out})
	endforeach()
endfunction()

foreach(src s-longjmp.c s-throw.cpp s-signal.c s-fork.c s-pthread-exit.c s-cancel.c s-deep.c
		s-exit.c s-crash.c s-threads.c s-sigstress.c s-term.c s-exec.c s-wait.c s-recurse.c
		s-waves.c s-jmpinline.c)
	string(REGEX REPLACE "\\.c(pp)?$" "" name ${src})
	fxt_prog(${name} ${src})
endforeach()

if(TARGET fxt_reader)
	add_executable(fxt-calls e2e/fxt-calls.c)
	fxt_set_flags(fxt-calls)
	target_link_libraries(fxt-calls PRIVATE fxt_reader)
endif()

if(NOT (TARGET fxtauto AND TARGET fxt AND TARGET fxt-calls))
	return()
endif()

set(FXT_E2E_ENV FXT=$<TARGET_FILE:fxt> FXT_CALLS=$<TARGET_FILE:fxt-calls>
	FXTAUTO=$<TARGET_FILE:fxtauto> EXPECT_DIR=${CMAKE_CURRENT_SOURCE_DIR}/e2e/expect)

# fxt_e2e(test-name golden program args...): one traced-vs-untraced run checked against
# tests/e2e/expect/<golden>.txt. Under ASan the gcc-built programs run too (run-prog.sh lets
# the preloaded library precede the ASan runtime); not the clang ones (clang links its own
# static ASan runtime, a second one beside the library's) nor the crashes (ASan's own SEGV
# report, with pids in it, replaces the signal).
function(fxt_e2e test golden)
	add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E env ${FXT_E2E_ENV}
		${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/run-prog.sh ${golden} ${ARGN})
	set(labels e2e)
	if(test MATCHES "-clang|-crash-")
		list(APPEND labels nosan)
	endif()
	set_tests_properties(${test} PROPERTIES LABELS "${labels}" TIMEOUT 120)
endfunction()

# fxt_e2e_cases(prefix dir cases...): one fxt_e2e per case written GOLDEN=PROGRAM ARGS (cases
# that end the same way share a golden file); PROGRAM is dir/PROGRAM, or with dir empty the
# target of that name (skipped while it does not exist).
function(fxt_e2e_cases prefix dir)
	foreach(case ${ARGN})
		string(REGEX REPLACE "=.*" "" golden "${case}")
		string(REGEX REPLACE "^[^=]*=" "" cmd "${case}")
		separate_arguments(argv UNIX_COMMAND "${cmd}")
		string(REPLACE " " "-" test "${cmd}")
		list(POP_FRONT argv prog)
		if(dir)
			set(exe ${dir}/${prog})
		elseif(TARGET ${prog})
			set(exe $<TARGET_FILE:${prog}>)
		else()
			continue()
		endif()
		fxt_e2e(${prefix}-${test} ${golden} ${exe} ${argv})
	endforeach()
endfunction()

foreach(cc ${FXT_E2E_COMPILERS})
	fxt_e2e_cases(e2e-${cc} ${FXT_PROGS_DIR}/${cc}
		"s-longjmp=s-longjmp" "s-throw=s-throw" "s-signal=s-signal" "s-fork=s-fork"
		"s-pthread-exit=s-pthread-exit" "s-cancel=s-cancel" "s-deep=s-deep"
		"s-threads=s-threads" "s-waves=s-waves" "s-exit-nested=s-exit exit" "s-exit-return=s-exit return"
		"s-exit-nested=s-exit _exit" "s-exit-thread=s-exit thread"
		"s-exit-pthread=s-exit pthread_exit" "s-crash=s-crash segv"
		"s-crash=s-crash abort" "s-crash=s-crash fpe" "s-crash=s-crash ill"
		"s-recurse=s-recurse" "s-jmpinline=s-jmpinline")
	# Recursion whose exit hooks are tail-jumped to, and exceptions caught in recursion with
	# alloca, under fxtrun too (its own buffers).
	foreach(prog s-recurse s-throw)
		fxt_e2e(e2e-${cc}-${prog}-fxtrun ${prog} ${FXT_PROGS_DIR}/${cc}/${prog})
		set_tests_properties(e2e-${cc}-${prog}-fxtrun PROPERTIES
			ENVIRONMENT FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun)
	endforeach()
endforeach()
# A load address reused by another library: s-dlreuse loads liba, libb (same layout, other
# names: same address) and liba again, built beside it in each gcc variant.
fxt_prog(s-dlreuse s-dlreuse.c)
foreach(variant ${FXT_E2E_COMPILERS})
	if(NOT variant MATCHES "^gcc")
		continue()
	endif()
	set(opt -O0)
	if(variant MATCHES "-O2$")
		set(opt -O2)
	endif()
	foreach(lib a b)
		set(tgt prog-${variant}-s-dlreuse-lib${lib})
		add_library(${tgt} MODULE progs/s-dlreuse-lib.c)
		target_compile_options(${tgt} PRIVATE ${FXT_PROG_FLAGS} ${opt} -Wall -Wextra)
		target_compile_definitions(${tgt} PRIVATE LIB=${lib}_)
		set_target_properties(${tgt} PROPERTIES OUTPUT_NAME s-dlreuse-${lib} PREFIX lib
			LIBRARY_OUTPUT_DIRECTORY ${FXT_PROGS_DIR}/${variant})
	endforeach()
endforeach()

# Signals landing anywhere in the hooks (tests/e2e/sigstress.sh: exact counts the program
# prints), with LD_PRELOAD alone for every variant and under fxtrun for gcc.
foreach(cc ${FXT_E2E_COMPILERS})
	set(modes preload)
	if(cc STREQUAL "gcc")
		list(APPEND modes fxtrun)
	endif()
	foreach(mode ${modes})
		set(test e2e-${cc}-s-sigstress-${mode})
		add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E env ${FXT_E2E_ENV}
			FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun
			${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/sigstress.sh ${mode}
			${FXT_PROGS_DIR}/${cc}/s-sigstress)
		set(labels e2e)
		if(cc MATCHES "^clang")
			list(APPEND labels nosan)
		endif()
		set_tests_properties(${test} PROPERTIES LABELS "${labels}" TIMEOUT 300)
	endforeach()
endforeach()
foreach(cc gcc gcc-O2)
	fxt_e2e(e2e-${cc}-s-dlreuse s-dlreuse ${FXT_PROGS_DIR}/${cc}/s-dlreuse
		${FXT_PROGS_DIR}/${cc}/libs-dlreuse-a.so ${FXT_PROGS_DIR}/${cc}/libs-dlreuse-b.so)
endforeach()
# fxt report --edges equals fxt-calls on programs whose threads write interleaved runs (signal
# handlers' levels), in both modes.
foreach(cc ${FXT_E2E_COMPILERS})
	foreach(mode preload fxtrun)
		set(test e2e-${cc}-edges-s-signal-${mode})
		add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -E env ${FXT_E2E_ENV}
			FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun
			${BASH} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/edges.sh ${mode}
			${FXT_PROGS_DIR}/${cc}/s-signal)
		set_tests_properties(${test} PROPERTIES LABELS "e2e;nosan" TIMEOUT 120)
	endforeach()
endforeach()
# The examples (examples/CMakeLists.txt, built like the project), with the calls their top
# comments list.
fxt_e2e_cases(e2e-example "" "c-demo=c-demo" "c-demo-usage=c-demo x" "cpp-demo=cpp-demo"
	"dlopen-demo=dlopen-demo")

# A fork child held until its parent has ended (progs/lib-fork-orphan.c): preload.bats.
add_library(fork-orphan MODULE ${CMAKE_CURRENT_SOURCE_DIR}/progs/lib-fork-orphan.c)
target_compile_options(fork-orphan PRIVATE -Wall -Wextra)
target_link_libraries(fork-orphan PRIVATE Threads::Threads)

if(BATS)
	add_test(NAME preload-bats COMMAND ${CMAKE_COMMAND} -E env ${FXT_E2E_ENV}
		PROGS=${FXT_PROGS_DIR}/gcc ORPHAN=$<TARGET_FILE:fork-orphan>
		${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/preload.bats)
	set_tests_properties(preload-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 300)
endif()
