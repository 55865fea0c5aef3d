# `cmake --install` into a scratch prefix: the installed fxtrun finds the installed preload
# library and records a valid archive; headers and the pkg-config file are installed.
if(TARGET fxt AND TARGET fxtauto AND TARGET c-demo)
	add_test(NAME install COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/install/check-install.sh
		${PROJECT_BINARY_DIR} $<TARGET_FILE:c-demo>)
	set_tests_properties(install PROPERTIES LABELS nosan)
endif()
