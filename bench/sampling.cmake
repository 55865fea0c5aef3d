# Target of bench/sampling.sh (sampling overhead): a fixed-work program built without
# instrumentation. Included from bench/CMakeLists.txt.
add_executable(sampling-work ${CMAKE_CURRENT_SOURCE_DIR}/sampling-work.c)
fxt_set_flags(sampling-work)
target_compile_options(sampling-work PRIVATE -O2 -g -fomit-frame-pointer)
