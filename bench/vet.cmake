# bench/vet-bench: the manager's record vetting (launcher/manager/vet.c) alone, in MB/s.
add_executable(vet-bench ${CMAKE_CURRENT_SOURCE_DIR}/vet-bench.c ${PROJECT_SOURCE_DIR}/launcher/manager/vet.c)
fxt_set_flags(vet-bench)
target_include_directories(vet-bench PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(vet-bench PRIVATE fxt_reader fxt_writer)
