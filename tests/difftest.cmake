# The differential tester (tests/difftest/difftest.py): random self-counting programs built by
# gcc and clang at -O0..-O3 and -Os (and gcc -O1 with sibling calls, -O2 without), traced by
# fxtrun and by LD_PRELOAD alone; every caller->callee count of `fxt report --edges` must equal
# the program's own. Seeds 1..9: 216 runs covering every feature the generator has (the summary
# line lists them); 24 (24 runs) failed before: a fork inside a signal handler; 13 (24 runs)
# failed before at gcc -O3: an RAII constructor inlined after an alloca, first call after a
# catch; 47 (24 runs, 18 failed before): a setjmp in a loop after a jump to its jmp_buf (not
# remembered) remembered the jump's dead frames; 348 (24 runs, 2 failed before at gcc -O3): a
# live jmp_buf forgotten for setjmps in callees that had returned, then a called exit with the
# sp alloca lowered missed its frame, and the repair closed a frame of f5 that f5 was inlined
# into; 518 (24 runs, 8 failed before at clang -O1..-Os): the scan repairing a jump to a forgotten
# jmp_buf found a stale copy of the new call's return address below its own, so a dead f3 frame
# stayed open and held the next f5 calls. tests/difftest/soak.sh runs any number of seeds.
# Needs python3 and clang.
find_program(FXT_PYTHON3 python3)
find_program(FXT_CLANG clang)
if(NOT (TARGET fxt AND TARGET fxtauto AND FXT_PYTHON3 AND FXT_CLANG))
	return()
endif()
add_test(NAME difftest COMMAND ${FXT_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/difftest/difftest.py
	--build ${CMAKE_BINARY_DIR} --seeds 1:9 --seeds 24 --seeds 13 --seeds 47 --seeds 348 --seeds 518)
set_tests_properties(difftest PROPERTIES LABELS e2e TIMEOUT 600)
