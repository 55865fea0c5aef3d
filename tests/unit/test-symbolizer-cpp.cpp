/* C++ part of test-symbolizer: a const method of a class template in a namespace, whose address
 * is handed to the C test through an extern "C" function. */
/* SPDX-License-Identifier: MIT */
#include <cstdint>
#include <cstring>

namespace ns {
template <class T> struct Class {
	T v;
	__attribute__((noinline)) T method(int x) const { return v + x; }
};
template struct Class<int>;
}

extern "C" uintptr_t cpp_method_addr(void)
{
	/* A non-virtual member pointer is {function address, this adjustment} in the Itanium ABI. */
	int (ns::Class<int>::*pmf)(int) const = &ns::Class<int>::method;
	uintptr_t addr;
	std::memcpy(&addr, &pmf, sizeof(addr));
	return addr;
}
