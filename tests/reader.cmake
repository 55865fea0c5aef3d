# Reader tests: unit test of the decoder and validator (hand-made spec vectors, writer round
# trips, malformed input), and the bats suites of `fxt`, `fxt dump`, `fxt check` and `fxt recover` (archives
# made at test time by bench/gen-archive). Owner: reader.
if(NOT TARGET fxt_reader OR NOT TARGET fxt_writer)
	return()
endif()
fxt_unit_test(test-reader unit/test-reader.c LIBS fxt_reader fxt_writer)

if(BATS AND TARGET fxt AND TARGET gen-archive)
	foreach(suite fxt fxt-dump fxt-check fxt-recover)
		add_test(NAME ${suite}-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
			GEN=$<TARGET_FILE:gen-archive> ${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/${suite}.bats)
		set_tests_properties(${suite}-bats PROPERTIES LABELS "reader" TIMEOUT 120)
	endforeach()
endif()
