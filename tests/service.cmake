# The manager service (`fxt manager`, fxt list/record/start/stop/snapshot): its packet vetting
# (test-msg), and tests/bats/service.bats driving the real manager with fake providers
# (tests/service/fake-provider.c: the provider side of common/registry.h made with the writer
# library, as preload/transport/provider.c makes its buffer) and off-contract packets (svc-poke).
fxt_unit_test(test-msg unit/test-msg.c ${PROJECT_SOURCE_DIR}/common/registry.c)
foreach(tool fake-provider svc-poke)
	add_executable(${tool} service/${tool}.c ${PROJECT_SOURCE_DIR}/launcher/manager/msg.c
		${PROJECT_SOURCE_DIR}/common/registry.c ${PROJECT_SOURCE_DIR}/common/runtime.c)
	fxt_set_flags(${tool})
	target_link_libraries(${tool} PRIVATE fxt_writer)
endforeach()
if(BATS AND TARGET fxt)
	add_test(NAME service-bats COMMAND ${CMAKE_COMMAND} -E env FXT=$<TARGET_FILE:fxt>
		FAKE=$<TARGET_FILE:fake-provider> POKE=$<TARGET_FILE:svc-poke>
		${BATS} ${CMAKE_CURRENT_SOURCE_DIR}/bats/service.bats)
	set_tests_properties(service-bats PROPERTIES LABELS e2e TIMEOUT 600)
endif()
