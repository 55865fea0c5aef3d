# The manager's saver (launcher/manager/saver.c) alone, over a buffer the test writes itself:
# fxt_manager_core is the static library of the manager's code that registry.cmake builds.
if(TARGET fxt_manager_core)
	fxt_unit_test(test-saver unit/test-saver.c LIBS fxt_manager_core)
endif()
# The manager's record vetting (launcher/manager/vet.c) where it decodes by a header it remembered.
if(TARGET fxt_manager_core)
	fxt_unit_test(test-vet unit/test-vet.c LIBS fxt_manager_core)
endif()
# The manager's archive writer (launcher/manager/out.c): two buffers and its writer thread (also under
# TSan).
if(TARGET fxt_manager_core)
	fxt_unit_test(test-out unit/test-out.c LIBS fxt_manager_core)
	set_tests_properties(test-out PROPERTIES LABELS tsan)
endif()
# The manager's saving ahead of a streaming provider (launcher/manager/manager.c fxt_manager_ahead).
if(TARGET fxt_manager_core)
	fxt_unit_test(test-ahead unit/test-ahead.c LIBS fxt_manager_core)
	set_tests_properties(test-ahead PROPERTIES LABELS tsan)	# out.c's writer thread under the manager
endif()
# The manager's word on buffers whose header it cannot read (launcher/manager/manager.c).
if(TARGET fxt_manager_core)
	fxt_unit_test(test-manager unit/test-manager.c LIBS fxt_manager_core)
endif()
