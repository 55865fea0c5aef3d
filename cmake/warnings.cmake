# Warning and visibility flags shared by every target: fxt_set_flags(target).
# -Werror only under FXT_WERROR (CI), so a newer compiler never breaks a user's build.
function(fxt_set_flags tgt)
	target_compile_options(${tgt} PRIVATE -Wall -Wextra -fvisibility=hidden
		$<$<BOOL:${FXT_WERROR}>:-Werror>)
	target_include_directories(${tgt} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
endfunction()
