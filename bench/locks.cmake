# Target of bench/locks.sh (uncontended lock/unlock pairs, glibc vs preloaded): the workload,
# built optimized and without instrumentation. Included from bench/CMakeLists.txt.
add_executable(locks-pairs ${CMAKE_CURRENT_SOURCE_DIR}/locks-pairs.c)
fxt_set_flags(locks-pairs)
target_compile_options(locks-pairs PRIVATE -O2)
target_link_options(locks-pairs PRIVATE -pthread)
