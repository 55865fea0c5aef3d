# Trace client (fxt report / json / stats): the library's unit test, the test-archive
# generator, and the command tests (bats, Python recomputation, speedscope import) once the
# fxt executable exists.
if(NOT TARGET fxt_client)
	return()
endif()
fxt_unit_test(test-client unit/test-client.c LIBS fxt_client)

add_executable(gen-client-archive client/gen-client-archive.c)
fxt_set_flags(gen-client-archive)
