# tests/bats-lint.sh: no claim in a bats test that cannot fail (a bare `! command` line).
add_test(NAME bats-lint COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bats-lint.sh
	${CMAKE_CURRENT_SOURCE_DIR}/bats)
