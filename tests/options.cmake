# The settings table shared by fxtrun and libfxtauto.so (common/options.c): every bad value of
# tests/unit/settings-bad.txt refused on both paths, good values parsed alike.
fxt_unit_test(test-options unit/test-options.c ${PROJECT_SOURCE_DIR}/common/options.c)
target_compile_definitions(test-options PRIVATE
	SETTINGS_BAD="${CMAKE_CURRENT_SOURCE_DIR}/unit/settings-bad.txt")
