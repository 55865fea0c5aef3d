/* dlopen-demo: loads the example plugin with dlopen, calls into it, unloads it, and does it
 * all twice (the second load may reuse the first one's addresses). Usage: dlopen-demo
 * [plugin.so] (default: the plugin built with it); prints 2 fixed lines, exit 1 if it cannot
 * load the plugin. Exact calls: in dlopen-demo, main 1, open_plugin 2, use_plugin 2;
 * in the plugin (2 loads): plugin_loaded 2, plugin_name 2, plugin_sum 2, plugin_transform 30,
 * scale 30, clamp 30, plugin_unloaded 2. Nesting: use_plugin > plugin_sum > plugin_transform >
 * {scale, clamp}; plugin_loaded runs inside open_plugin (in dlopen). */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdio.h>

struct plugin {
	void *handle;
	const char *(*name)(void);
	int (*transform)(int);
	int (*sum)(int);
};

/* Loads the plugin at path and finds its three functions. Returns 0, or -1 with a message. */
static int open_plugin(const char *path, struct plugin *p)
{
	p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->handle) {
		fprintf(stderr, "dlopen-demo: %s\n", dlerror());
		return -1;
	}
	*(void **)&p->name = dlsym(p->handle, "plugin_name");
	*(void **)&p->transform = dlsym(p->handle, "plugin_transform");
	*(void **)&p->sum = dlsym(p->handle, "plugin_sum");
	if (!p->name || !p->transform || !p->sum) {
		fprintf(stderr, "dlopen-demo: %s is not the example plugin\n", path);
		dlclose(p->handle);
		return -1;
	}
	return 0;
}

/* 10 direct plugin_transform calls and one plugin_sum(5), which makes 5 more. */
static int use_plugin(const struct plugin *p)
{
	int total = p->sum(5);

	for (int i = 0; i < 10; i++)
		total += p->transform(i);
	return total;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : PLUGIN_PATH;

	for (int round = 1; round <= 2; round++) {
		struct plugin p;
		if (open_plugin(path, &p))
			return 1;
		printf("dlopen-demo: round %d, %s, total %d\n", round, p.name(), use_plugin(&p));
		dlclose(p.handle);
	}
	return 0;
}
