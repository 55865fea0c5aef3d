# The interposed functions: preload/exports.map and docs/ARCHITECTURE.md name the functions of
# the table in preload/base/interposed.h (scripts/interposed.sh reads it through the preprocessor).
find_program(BASH bash)
if(BASH)
	add_test(NAME interposed-list
		COMMAND ${CMAKE_COMMAND} -E env CC=${CMAKE_C_COMPILER}
			${BASH} ${PROJECT_SOURCE_DIR}/scripts/interposed.sh --check)
endif()
