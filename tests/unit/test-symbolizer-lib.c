/* Shared library for test-symbolizer, built five ways (linked, dlopen'ed, split debuginfo,
 * stale debuginfo, symbol stripped with DWARF kept): an exported function and a static one,
 * whose address lib_hidden_addr() hands out so the test can name it. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>

__attribute__((noinline)) static int lib_hidden(int x)
{
	return x * 3 + 1;
}

__attribute__((visibility("default"))) int lib_exported(int x)
{
	return lib_hidden(x) + 1;
}

__attribute__((visibility("default"))) uintptr_t lib_hidden_addr(void)
{
	return (uintptr_t)lib_hidden;
}
