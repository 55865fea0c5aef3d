# Sampled call stacks (preload/sampling/sampler.c, sample-records.c): programs built WITHOUT instrumentation run
# under LD_PRELOAD with FXT_SAMPLE; m-check reads each archive back with the reader (valid,
# raw stacks, slices, and the claims of each test). LABELS nosan: the sampled programs run the
# release library, and the fractions need an unsanitized workload.
if(NOT TARGET fxtauto OR NOT TARGET fxt_reader)
	return()
endif()
find_package(Threads REQUIRED)
add_executable(m-check ${CMAKE_CURRENT_SOURCE_DIR}/sample/m-check.c)
fxt_set_flags(m-check)
target_link_libraries(m-check PRIVATE fxt_reader)

foreach(prog m-split m-threads m-fork m-deep)
	add_executable(${prog} ${CMAKE_CURRENT_SOURCE_DIR}/progs/${prog}.c)
	target_compile_options(${prog} PRIVATE -O2 -g -fno-omit-frame-pointer -fno-inline)
	target_link_libraries(${prog} PRIVATE Threads::Threads)
endforeach()
# The 70/30 split and the threads traced with -finstrument-functions at the same time.
foreach(prog m-split m-threads)
	add_executable(${prog}-traced ${CMAKE_CURRENT_SOURCE_DIR}/progs/${prog}.c)
	target_compile_options(${prog}-traced PRIVATE -O2 -g -finstrument-functions)
	target_link_libraries(${prog}-traced PRIVATE Threads::Threads)
endforeach()

set(m_run ${CMAKE_CURRENT_SOURCE_DIR}/sample/run.sh $<TARGET_FILE:fxtauto> $<TARGET_FILE:m-check>)
set(m_out ${CMAKE_CURRENT_BINARY_DIR}/sample-out)
file(MAKE_DIRECTORY ${m_out})
set(m_split_claims "--total main --frac work_seventy=70 --frac work_thirty=30 --tol 5")
add_test(NAME sample-split COMMAND ${m_run} ${m_out}/split.fxt
	"${m_split_claims} --named spin" $<TARGET_FILE:m-split>)
add_test(NAME sample-split-traced COMMAND ${m_run} ${m_out}/split-traced.fxt
	"${m_split_claims} --calls work_seventy --calls spin" $<TARGET_FILE:m-split-traced>)
add_test(NAME sample-split-10khz COMMAND ${m_run} ${m_out}/split-10k.fxt
	"${m_split_claims}" $<TARGET_FILE:m-split>)
set_tests_properties(sample-split-10khz PROPERTIES ENVIRONMENT FXT_SAMPLE=10000)
add_test(NAME sample-threads COMMAND ${m_run} ${m_out}/threads.fxt "--named spinner"
	$<TARGET_FILE:m-threads>)
add_test(NAME sample-threads-traced-10khz COMMAND ${m_run} ${m_out}/threads-traced.fxt
	"--named spinner --calls spinner" $<TARGET_FILE:m-threads-traced>)
set_tests_properties(sample-threads-traced-10khz PROPERTIES LABELS nosan
	ENVIRONMENT FXT_SAMPLE=10000)
add_test(NAME sample-deep COMMAND ${m_run} ${m_out}/deep.fxt "--named deep_leaf --named recurse"
	$<TARGET_FILE:m-deep>)
# A fork child samples on its own (its archive FXT_OUTPUT.<pid>), without the parent's samples.
add_test(NAME sample-fork COMMAND sh -c "\"$0\" \"$@\" && o='${m_out}/fork.fxt' && $2 \"$o.$(sed -n 's/^child //p' \"$o.stdout\")\" --named child_work --tid-samples $(sed -n 's/^child //p' \"$o.stdout\")"
	${m_run} ${m_out}/fork.fxt "--named parent_work" $<TARGET_FILE:m-fork>)
if(TARGET fxt)
	add_test(NAME sample-fxtrun COMMAND ${m_run} ${m_out}/fxtrun.fxt "--named spinner"
		$<TARGET_FILE:m-threads>)
	set_tests_properties(sample-fxtrun PROPERTIES LABELS nosan
		ENVIRONMENT FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun)
endif()
# Stripped Debian binaries (PIE): names from dynamic symbols, module+0xoffset otherwise.
find_program(M_GZIP gzip)
if(M_GZIP)
	add_test(NAME sample-gzip COMMAND sh -c "head -c 3000000 /dev/urandom | base64 > '${m_out}/gz.in' && exec \"$0\" \"$@\" '${m_out}/gz.in'"
		${m_run} ${m_out}/gzip.fxt "--named __libc_start_main --prefix gzip+0x" ${M_GZIP} -9 -f)
endif()
# A stripped library's internals: one row per function (its .eh_frame FDE), named module+0xstart.
if(TARGET fxt)
	add_test(NAME sample-stripped COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sample/stripped.sh
		$<TARGET_FILE:fxtauto> $<TARGET_FILE:fxt> ${m_out})
	set_tests_properties(sample-stripped PROPERTIES LABELS nosan)
endif()
# Samples in libraries dlclose'd before the flush, another library mapped where one was:
# s-dlreuse and its two libraries built without instrumentation, spinning in each.
add_executable(m-dlreuse ${CMAKE_CURRENT_SOURCE_DIR}/progs/s-dlreuse.c)
target_compile_options(m-dlreuse PRIVATE -O2 -g -fno-inline)
target_link_libraries(m-dlreuse PRIVATE ${CMAKE_DL_LIBS})
foreach(lib a b)
	add_library(m-dlreuse-${lib} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/progs/s-dlreuse-lib.c)
	target_compile_options(m-dlreuse-${lib} PRIVATE -O2 -g -fno-inline)
	target_compile_definitions(m-dlreuse-${lib} PRIVATE LIB=${lib}_)
	set_target_properties(m-dlreuse-${lib} PROPERTIES OUTPUT_NAME dlreuse-${lib} PREFIX lib)
endforeach()
if(TARGET fxt)
	add_test(NAME sample-dlreuse COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sample/dlreuse.sh
		$<TARGET_FILE:fxtauto> $<TARGET_FILE:fxt> ${m_out}/dlreuse.fxt
		$<TARGET_FILE:m-dlreuse> $<TARGET_FILE:m-dlreuse-a> $<TARGET_FILE:m-dlreuse-b>
		100000000)
	set_tests_properties(sample-dlreuse PROPERTIES LABELS nosan)
endif()
find_program(M_PYTHON3 python3)
if(M_PYTHON3)
	# The interpreter itself, not a launcher script (pyenv shims log to stderr and exec it:
	# the shim's image then keeps FXT_OUTPUT and python writes FXT_OUTPUT.<pid>).
	execute_process(COMMAND ${M_PYTHON3} -c "import sys; print(sys.executable)"
		OUTPUT_VARIABLE m_python_exe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
	if(m_python_exe)
		set(M_PYTHON3 ${m_python_exe})
	endif()
	add_test(NAME sample-python COMMAND ${m_run} ${m_out}/python.fxt
		"--named _PyEval_EvalFrameDefault" ${M_PYTHON3} -c
		"import time\nt=time.process_time()+0.3\nwhile time.process_time()<t: sum(range(1000))")
endif()
add_test(NAME sample-bad-rate COMMAND sh -c "FXT_SAMPLE=fast LD_PRELOAD=$0 FXT_OUTPUT='${m_out}/bad.fxt' $1 10 2>&1 | grep -q 'FXT_SAMPLE=fast: expected a rate'"
	$<TARGET_FILE:fxtauto> $<TARGET_FILE:m-split>)
set_tests_properties(sample-split sample-split-traced sample-split-10khz sample-threads
	sample-fork sample-deep sample-bad-rate PROPERTIES LABELS nosan)
if(M_GZIP)
	set_tests_properties(sample-gzip PROPERTIES LABELS nosan)
endif()
if(M_PYTHON3)
	set_tests_properties(sample-python PROPERTIES LABELS nosan)
endif()
