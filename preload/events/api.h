/* <fxt/trace.h> inside the preload (api.c): its life-cycle entry points, called by the
 * constructor, the provider thread (a START or STOP) and the fork handlers. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_API_H
#define FXT_PRELOAD_API_H

/* Takes FXT_CATEGORIES, then lets the macros record (publishes the site generation last).
 * Fails: never (does nothing unless tracing runs). Not thread-safe (constructor). */
void fxtp_api_init(void);
/* Start of a trace (a START of the manager, manager-link.c): the <fxt/trace.h> macros record with
 * these categories (NULL or "": all) from a new site generation on. Stop: they record nothing
 * (generation 0) until the next start. Fails: never. Not thread-safe (provider thread). */
void fxtp_api_start(const char *categories);
void fxtp_api_stop(void);
/* Fork: hold the intern lock across fork, release it on both sides; the child also starts a new
 * site generation (every site looks again, at the child's state). Fails: never. */
void fxtp_api_fork_prepare(void);
void fxtp_api_fork_parent(void);
void fxtp_api_fork_child(void);

#endif
