# Trace client (fxt report / json / stats): the library's unit test, the test-archive
# generator, and the command tests once the fxt executable exists: bats suites on the generated
# archive (Python recomputation and JSON checks inside), example programs traced with
# libfxtauto.so (JSON one for one with the archive, report figures recomputed), and the
# speedscope import (skipped, exit 77, when npm cannot install it), fxt flame's SVG in
# headless Chromium (skipped without it).
if(NOT TARGET fxt_client)
	return()
endif()
fxt_unit_test(test-client unit/test-client.c LIBS fxt_client)

add_executable(gen-client-archive client/gen-client-archive.c)
fxt_set_flags(gen-client-archive)
target_link_libraries(gen-client-archive PRIVATE fxt_writer)

if(NOT TARGET fxt)
	return()
endif()
set(client_env FXT=$<TARGET_FILE:fxt> GEN=$<TARGET_FILE:gen-client-archive>
	CLIENT_TESTS=${CMAKE_CURRENT_SOURCE_DIR}/client)
if(TARGET gen-archive)	# bench/gen-archive writes the archives of the bounded-memory tests
	list(APPEND client_env GEN_ARCHIVE=$<TARGET_FILE:gen-archive>)
endif()
if(BATS)
	foreach(cmd report json stats)
		add_test(NAME fxt-${cmd}-bats COMMAND ${CMAKE_COMMAND} -E env ${client_env}
			${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxt-${cmd}.bats)
		set_tests_properties(fxt-${cmd}-bats PROPERTIES LABELS "client" TIMEOUT 120)
	endforeach()
endif()

# fxt replay and json windows on the generated archives (no traced program: sanitizer builds too)
add_test(NAME client-replay-gen COMMAND ${CMAKE_COMMAND} -E env ${client_env}
	${CMAKE_CURRENT_SOURCE_DIR}/client/replay-gen.sh ${CMAKE_CURRENT_BINARY_DIR}/client-replay-gen)
set_tests_properties(client-replay-gen PROPERTIES LABELS "client" TIMEOUT 300)

# main with 1M direct callees in chunks out of order: report and tree against recompute.py
add_test(NAME client-fanout COMMAND ${CMAKE_COMMAND} -E env ${client_env}
	${CMAKE_CURRENT_SOURCE_DIR}/client/fanout.sh ${CMAKE_CURRENT_BINARY_DIR}/client-fanout)
set_tests_properties(client-fanout PROPERTIES LABELS "client" TIMEOUT 300)

if(TARGET fxtauto AND TARGET c-demo AND TARGET cpp-demo)
	# bench/calls-work with 300000 calls in 3 threads: a main loop with many direct callees,
	# its chunks walked from their end, checked on a real trace too.
	add_executable(client-calls-work ${PROJECT_SOURCE_DIR}/bench/calls-work.c)
	fxt_set_flags(client-calls-work)
	target_compile_options(client-calls-work PRIVATE -O2 -finstrument-functions)
	target_link_options(client-calls-work PRIVATE -pthread)
	set(client_work ${CMAKE_CURRENT_BINARY_DIR}/client-work)
	add_test(NAME client-examples COMMAND ${CMAKE_COMMAND} -E env ${client_env}
		FXTAUTO=$<TARGET_FILE:fxtauto> ${CMAKE_CURRENT_SOURCE_DIR}/client/examples.sh
		${client_work} $<TARGET_FILE:c-demo> $<TARGET_FILE:cpp-demo>
		$<TARGET_FILE:client-calls-work>@300000,3)
	set_tests_properties(client-examples PROPERTIES LABELS "client;nosan" TIMEOUT 300)
	# fxt replay on archives traced from c-demo and tests/progs (api.cmake, locks.cmake,
	# sched.cmake build them; generator expressions need no order)
	if(BATS)
		add_test(NAME fxt-replay-bats COMMAND ${CMAKE_COMMAND} -E env ${client_env}
			FXTAUTO=$<TARGET_FILE:fxtauto> C_DEMO=$<TARGET_FILE:c-demo>
			API_ALL=$<TARGET_FILE:api-all> API_MIXED=$<TARGET_FILE:api-mixed>
			K_LOG=$<TARGET_FILE:k-log> C_SCHED=$<TARGET_FILE:c-sched>
			${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxt-replay.bats)
		set_tests_properties(fxt-replay-bats PROPERTIES LABELS "client;nosan" TIMEOUT 300)
		# fxt flame on the generated archive and on c-demo traced (wall, on-CPU, sampled)
		add_test(NAME fxt-flame-bats COMMAND ${CMAKE_COMMAND} -E env ${client_env}
			FXTAUTO=$<TARGET_FILE:fxtauto> C_DEMO=$<TARGET_FILE:c-demo>
			${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxt-flame.bats)
		set_tests_properties(fxt-flame-bats PROPERTIES LABELS "client;nosan" TIMEOUT 300)
		# fxt report --diff: r-count traced with 200 and 400 calls (record.cmake builds it)
		add_test(NAME fxt-diff-bats COMMAND ${CMAKE_COMMAND} -E env ${client_env}
			FXTAUTO=$<TARGET_FILE:fxtauto> R_COUNT=$<TARGET_FILE:rprog-r-count>
			${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/fxt-diff.bats)
		set_tests_properties(fxt-diff-bats PROPERTIES LABELS "client;nosan" TIMEOUT 300)
	endif()
	add_test(NAME client-speedscope COMMAND ${CMAKE_COMMAND} -E env ${client_env}
		FXTAUTO=$<TARGET_FILE:fxtauto> ${CMAKE_CURRENT_SOURCE_DIR}/client/speedscope.sh
		${CMAKE_CURRENT_BINARY_DIR}/npm-speedscope $<TARGET_FILE:c-demo>)
	set_tests_properties(client-speedscope PROPERTIES LABELS "client;nosan" TIMEOUT 180
		SKIP_RETURN_CODE 77)
	# fxt flame's SVG drawn by headless Chromium (skipped, exit 77, without chromium)
	add_test(NAME client-flame-browser COMMAND ${CMAKE_COMMAND} -E env ${client_env}
		FXTAUTO=$<TARGET_FILE:fxtauto> ${CMAKE_CURRENT_SOURCE_DIR}/client/flame-browser.sh
		${CMAKE_CURRENT_BINARY_DIR}/client-flame-browser $<TARGET_FILE:c-demo>)
	set_tests_properties(client-flame-browser PROPERTIES LABELS "client;nosan" TIMEOUT 300
		SKIP_RETURN_CODE 77)
endif()
