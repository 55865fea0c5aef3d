# The provider side of the manager service (preload/transport/manager-link.c, FXT_REGISTER=1): reg-driver
# plays the manager with fxtrun's own manager code (a static library of launcher/manager/manager.c,
# saver.c, vet.c, session.c, msg.c and accept.c, built here for the tests only) and drives g-reg, a program
# told what to call; registry.bats checks the archives with exact counts. LABELS nosan: the
# preload runs in an unsanitized program.
if(NOT TARGET fxtauto OR NOT TARGET fxt OR NOT TARGET fxt_reader)
	return()
endif()
find_package(Threads REQUIRED)
add_library(fxt_manager_core STATIC ${PROJECT_SOURCE_DIR}/launcher/manager/manager.c
	${PROJECT_SOURCE_DIR}/launcher/manager/saver.c ${PROJECT_SOURCE_DIR}/launcher/manager/out.c
	${PROJECT_SOURCE_DIR}/launcher/manager/vet.c
	${PROJECT_SOURCE_DIR}/launcher/manager/session.c ${PROJECT_SOURCE_DIR}/launcher/manager/msg.c
	${PROJECT_SOURCE_DIR}/launcher/manager/accept.c)
fxt_set_flags(fxt_manager_core)
target_link_libraries(fxt_manager_core PUBLIC fxt_reader fxt_writer Threads::Threads)
add_executable(reg-driver ${CMAKE_CURRENT_SOURCE_DIR}/registry/driver.c)
fxt_set_flags(reg-driver)
target_link_libraries(reg-driver PRIVATE fxt_manager_core)
add_executable(g-reg ${CMAKE_CURRENT_SOURCE_DIR}/progs/g-reg.c)
target_compile_options(g-reg PRIVATE -O0 -g -finstrument-functions)
target_include_directories(g-reg PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(g-reg PRIVATE Threads::Threads)
# srv-count: a multi-threaded command server (and its load driver) for the service scenario.
add_executable(srv-count ${CMAKE_CURRENT_SOURCE_DIR}/progs/srv-count.c)
target_compile_options(srv-count PRIVATE -O2 -g -finstrument-functions)
target_link_libraries(srv-count PRIVATE Threads::Threads)
find_program(R_BATS bats)
if(R_BATS)
	add_test(NAME registry-bats COMMAND ${CMAKE_COMMAND} -E env LIB=$<TARGET_FILE:fxtauto>
		FXT=$<TARGET_FILE:fxt> DRIVER=$<TARGET_FILE:reg-driver> PROG=$<TARGET_FILE:g-reg>
		${R_BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/registry.bats)
	set_tests_properties(registry-bats PROPERTIES LABELS nosan TIMEOUT 300)
endif()
# The real service end to end: `fxt manager` and g-reg registered (FXT_REGISTER=1, or fxtrun
# --start-stopped), controlled by fxt list/record/start/stop/snapshot (tests/bats/service-live.bats).
if(R_BATS)
	add_test(NAME service-live-bats COMMAND ${CMAKE_COMMAND} -E env LIB=$<TARGET_FILE:fxtauto>
		FXT=$<TARGET_FILE:fxt> FXTRUN=$<TARGET_FILE_DIR:fxt>/fxtrun PROG=$<TARGET_FILE:g-reg>
		SRV=$<TARGET_FILE:srv-count>
		${R_BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/service-live.bats)
	set_tests_properties(service-live-bats PROPERTIES LABELS nosan TIMEOUT 400)
endif()
