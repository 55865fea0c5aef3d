# Symbolizer unit test: names of static, exported, shared-library, dlopen'ed (plain, split
# debuginfo, stale debuginfo, DWARF only) and C++ functions. One library source built five
# ways; no -rdynamic: static functions must be named through the symbol table or DWARF.
if(NOT TARGET fxt_symbolizer)
	return()
endif()

add_library(test-sym-linked SHARED unit/test-symbolizer-lib.c)
add_library(test-sym-plain MODULE unit/test-symbolizer-lib.c)
add_library(test-sym-split MODULE unit/test-symbolizer-lib.c)
add_library(test-sym-dwarf MODULE unit/test-symbolizer-lib.c)
add_library(test-sym-stale MODULE unit/test-symbolizer-lib.c)
foreach(lib test-sym-linked test-sym-plain test-sym-split test-sym-dwarf test-sym-stale)
	fxt_set_flags(${lib})
	target_compile_options(${lib} PRIVATE -g -O1)
endforeach()
# split_debug(lib from): strips lib and points its .gnu_debuglink at lib.debug, the debug
# part of library `from` (lib itself; another build for a stale file, which must be refused).
function(split_debug lib from)
	set(out $<TARGET_FILE:${lib}>)
	add_custom_command(TARGET ${lib} POST_BUILD
		COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:${from}> ${out}.debug
		COMMAND ${CMAKE_OBJCOPY} --strip-all --add-gnu-debuglink=${out}.debug ${out}
		WORKING_DIRECTORY $<TARGET_FILE_DIR:${lib}>)
endfunction()
split_debug(test-sym-split test-sym-split)
target_link_options(test-sym-stale PRIVATE -Wl,--build-id=0x5ca1ab1e)
add_dependencies(test-sym-stale test-sym-plain)
split_debug(test-sym-stale test-sym-plain)
# dwarf: lib_hidden removed from .symtab, its DWARF subprogram kept.
add_custom_command(TARGET test-sym-dwarf POST_BUILD
	COMMAND ${CMAKE_OBJCOPY} --strip-symbol=lib_hidden $<TARGET_FILE:test-sym-dwarf>)

fxt_unit_test(test-symbolizer unit/test-symbolizer.c unit/test-symbolizer-cpp.cpp
	LIBS fxt_symbolizer test-sym-linked ${CMAKE_DL_LIBS})
target_compile_options(test-symbolizer PRIVATE -g)
target_compile_definitions(test-symbolizer PRIVATE
	PLAIN_LIB="$<TARGET_FILE:test-sym-plain>"
	SPLIT_LIB="$<TARGET_FILE:test-sym-split>"
	DWARF_LIB="$<TARGET_FILE:test-sym-dwarf>"
	STALE_LIB="$<TARGET_FILE:test-sym-stale>")
add_dependencies(test-symbolizer test-sym-plain test-sym-split test-sym-dwarf test-sym-stale)
set_tests_properties(test-symbolizer PROPERTIES LABELS tsan)
