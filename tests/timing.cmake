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
