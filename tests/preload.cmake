# Unit tests of the preload's writer parts: the chunk writer (also under TSan: threads taking
# chunks concurrently) and the buffer + archive assembly, read back with the reader.
# End-to-end runs of libfxtauto.so are in e2e.cmake.
if(NOT TARGET fxt_writer)
	return()
endif()
find_package(Threads REQUIRED)
fxt_unit_test(test-chunk unit/test-chunk.c LIBS fxt_writer Threads::Threads)
set_tests_properties(test-chunk PROPERTIES LABELS "tsan")
# test-buffer reads the archives it assembles back with the reader.
if(TARGET fxt_reader)
	fxt_unit_test(test-buffer unit/test-buffer.c LIBS fxt_writer fxt_reader)
	set_tests_properties(test-buffer PROPERTIES LABELS "tsan")
endif()
