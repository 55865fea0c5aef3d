# Unit tests of the FXT encoders: field layouts, record builders against hand-written words from
# the spec, the string/thread interning tables, the walk over records (the sweep), and writer ->
# reader round trips of every record and argument type (needs fxt_reader). Single-threaded: no
# tsan label.
if(NOT TARGET fxt_writer)
	return()
endif()
fxt_unit_test(test-fields unit/test-fields.c LIBS fxt_writer)
fxt_unit_test(test-records unit/test-records.c LIBS fxt_writer)
fxt_unit_test(test-sweep unit/test-sweep.c LIBS fxt_writer)
fxt_unit_test(test-policy unit/test-policy.c LIBS fxt_writer)
if(TARGET fxt_reader)
	fxt_unit_test(test-roundtrip unit/test-roundtrip.c LIBS fxt_writer fxt_reader)
endif()
