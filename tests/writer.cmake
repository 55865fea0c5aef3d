# Unit tests of the FXT encoders: field layouts, record builders against hand-written words from
# the spec, and the string/thread interning tables. Single-threaded: no tsan label.
if(NOT TARGET fxt_writer)
	return()
endif()
fxt_unit_test(test-fields unit/test-fields.c LIBS fxt_writer)
fxt_unit_test(test-records unit/test-records.c LIBS fxt_writer)
fxt_unit_test(test-strtab unit/test-strtab.c LIBS fxt_writer)
