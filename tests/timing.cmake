# Timing accuracy of archives: tests/bats/calibration.bats (short runs' ticks per second
# against a long run's, standalone and under fxtrun). Registered once fxtauto and fxt (fxtrun)
# exist.
if(NOT BATS OR NOT TARGET fxtauto OR NOT TARGET fxt)
	return()
endif()
add_test(NAME calibration-bats COMMAND ${CMAKE_COMMAND} -E env FXTAUTO=$<TARGET_FILE:fxtauto>
	FXT=$<TARGET_FILE:fxt> FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun
	${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/calibration.bats)
set_tests_properties(calibration-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 120)
# One clock (tests/bats/clock.bats): r-clock's calls, stamped with CLOCK_MONOTONIC by the program,
# against their starts in the archive converted by its clock record, standalone, under fxtrun,
# recovered and under the manager service.
add_test(NAME clock-bats COMMAND ${CMAKE_COMMAND} -E env FXTAUTO=$<TARGET_FILE:fxtauto>
	FXT=$<TARGET_FILE:fxt> FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun
	RCLOCK=${FXT_RPROGS_DIR}/r-clock CHECK=${CMAKE_CURRENT_SOURCE_DIR}/e2e/clock-check.sh
	${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/clock.bats)
set_tests_properties(clock-bats PROPERTIES LABELS "e2e;nosan" TIMEOUT 300)
