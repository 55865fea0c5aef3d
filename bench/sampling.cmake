# Target of bench/sampling.sh (sampling overhead): a fixed-work program built without
# instrumentation. Included from bench/CMakeLists.txt.
add_executable(sampling-work ${CMAKE_CURRENT_SOURCE_DIR}/sampling-work.c)
fxt_set_flags(sampling-work)
target_compile_options(sampling-work PRIVATE -O2 -g -fomit-frame-pointer)
# The kernel's share (bench/sampling-floor.c): preloaded, the same perf event, an empty handler.
add_library(sampling-floor MODULE ${CMAKE_CURRENT_SOURCE_DIR}/sampling-floor.c)
fxt_set_flags(sampling-floor)
