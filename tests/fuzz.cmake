# The reader fuzzer (FXT_FUZZ=ON with clang): fuzz-reader, a libFuzzer binary with the reader's
# sources (and the standalone file's recovery, writer/outfile.c, and fxtrun's vetting of provider
# data, launcher/manager/vet.c) compiled in under -fsanitize=fuzzer,address,undefined. tests/fuzz/run.sh runs it on a
# copy of tests/fuzz/corpus. Not a ctest test: scripts/test.sh runs it for a fixed time.
if(NOT FXT_FUZZ)
	return()
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
	message(FATAL_ERROR "FXT_FUZZ=ON needs clang: configure with CC=clang")
endif()
set(fxt_fuzz_flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_executable(fuzz-reader fuzz/fuzz-reader.c ${PROJECT_SOURCE_DIR}/reader/reader.c
	${PROJECT_SOURCE_DIR}/reader/tables.c ${PROJECT_SOURCE_DIR}/reader/validate.c
	${PROJECT_SOURCE_DIR}/reader/print.c ${PROJECT_SOURCE_DIR}/writer/outfile.c
	${PROJECT_SOURCE_DIR}/writer/records.c ${PROJECT_SOURCE_DIR}/writer/buffer.c
	${PROJECT_SOURCE_DIR}/writer/sweep.c ${PROJECT_SOURCE_DIR}/launcher/manager/vet.c)
fxt_set_flags(fuzz-reader)
target_compile_options(fuzz-reader PRIVATE ${fxt_fuzz_flags} -g -O1)
target_link_options(fuzz-reader PRIVATE ${fxt_fuzz_flags})

# The manager service's packet vetting (common/registry.c, the manager's, clients' and
# providers'), every direction: fuzz-registry.
add_executable(fuzz-registry fuzz/fuzz-registry.c ${PROJECT_SOURCE_DIR}/common/registry.c)
fxt_set_flags(fuzz-registry)
target_compile_options(fuzz-registry PRIVATE ${fxt_fuzz_flags} -g -O1)
target_link_options(fuzz-registry PRIVATE ${fxt_fuzz_flags})
