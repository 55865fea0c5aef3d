# Target of bench/sched.sh (cost of --sched per context switch): a pipe ping-pong built without
# instrumentation. Included from bench/CMakeLists.txt.
find_package(Threads REQUIRED)
add_executable(sched-pingpong ${CMAKE_CURRENT_SOURCE_DIR}/sched-pingpong.c)
fxt_set_flags(sched-pingpong)
target_compile_options(sched-pingpong PRIVATE -O2)
target_link_libraries(sched-pingpong PRIVATE Threads::Threads)
