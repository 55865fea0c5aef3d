# `cmake --install` into a scratch prefix: the installed fxtrun finds the installed preload
# library and records a valid archive; headers and the pkg-config file are installed.
if(TARGET fxt AND TARGET fxtauto AND TARGET c-demo)
	add_test(NAME install COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/check-install.sh
		${PROJECT_BINARY_DIR} $<TARGET_FILE:c-demo>)
	set_tests_properties(install PROPERTIES LABELS nosan)
endif()

# libfxtreader as installed: examples/read-archive.c built with pkg-config against the prefix
# alone (shared and static), its slice counts checked against `fxt dump`; the exported symbols.
if(TARGET fxt AND TARGET fxtauto AND TARGET fxtreader AND TARGET c-demo AND TARGET api-all)
	add_test(NAME install-reader COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/check-reader-lib.sh
		${PROJECT_BINARY_DIR} ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER}
		${PROJECT_SOURCE_DIR}/examples/read-archive.c $<TARGET_FILE:c-demo> $<TARGET_FILE:api-all>)
	set_tests_properties(install-reader PROPERTIES LABELS nosan TIMEOUT 300)
endif()
