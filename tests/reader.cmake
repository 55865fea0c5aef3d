# Reader tests: unit test of the decoder and validator (hand-made spec vectors, writer round
# trips, malformed input), and the bats suites of `fxt`, `fxt dump` and `fxt check` (archives
# made at test time by bench/gen-archive). Owner: reader.
if(NOT TARGET fxt_reader OR NOT TARGET fxt_writer)
	return()
endif()
fxt_unit_test(test-reader unit/test-reader.c LIBS fxt_reader fxt_writer)
