/* plugin: the shared library dlopen-demo loads with dlopen, built with -finstrument-functions.
 * Its constructor and destructor are instrumented too, so the tracer meets them while the
 * loader runs them. Calls per load, made by dlopen-demo's use_plugin() (see dlopen-demo.c):
 *   plugin_loaded 1, plugin_name 1, plugin_sum 1, plugin_transform 15, scale 15, clamp 15,
 *   plugin_unloaded 1 (at dlclose). */
/* SPDX-License-Identifier: MIT */
#define PLUGIN_API __attribute__((visibility("default")))

static int loads;

static int scale(int x)
{
	return x * 3 + loads;
}

static int clamp(int x, int lo, int hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

__attribute__((constructor)) static void plugin_loaded(void)
{
	loads = 1;
}

__attribute__((destructor)) static void plugin_unloaded(void)
{
	loads = 0;
}

PLUGIN_API const char *plugin_name(void)
{
	return "demo-plugin";
}

PLUGIN_API int plugin_transform(int x)
{
	return clamp(scale(x), 0, 20);
}

/* plugin_transform(0) + ... + plugin_transform(n - 1). */
PLUGIN_API int plugin_sum(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum += plugin_transform(i);
	return sum;
}
