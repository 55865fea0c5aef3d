# No circle of files: scripts/file-cycles.py builds each folder's graph of files (includes and
# calls of functions another file defines) and fails on a circle; the constructor's file
# (preload/life/init.c) must have no callers. Add a folder to FXT_ACYCLIC_FOLDERS to hold it to
# the same rule.
find_package(Python3 COMPONENTS Interpreter)
set(FXT_ACYCLIC_FOLDERS preload)
if(Python3_FOUND)
	add_test(NAME file-cycles
		COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/file-cycles.py
			--root ${PROJECT_SOURCE_DIR} --no-callers preload/life/init.c
			${FXT_ACYCLIC_FOLDERS})
endif()
