/* Life-cycle entry points of the preload's parts that keep state of their own: called only by
 * the one constructor (init.c fxtp_init, priority 101) and the one set of pthread_atfork
 * handlers (fork.c), in the order written there. Nothing else calls them; none takes the
 * guard (the constructor holds it; the fork handlers run with the program's fork). */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_PRELOAD_LIFE_H
#define FXT_PRELOAD_LIFE_H

/* ---- fork.c ---- */
/* Registers fork.c's handlers (once, from the constructor). Fails: -errno of pthread_atfork. */
int fxtp_fork_init(void);

/* ---- api.c (<fxt/trace.h>) ---- */
/* Takes FXT_CATEGORIES, then lets the macros record (publishes the site generation last).
 * Fails: never (does nothing unless tracing runs). Not thread-safe (constructor). */
void fxtp_api_init(void);
/* Start of a trace (a START of the manager, registry.c): the <fxt/trace.h> macros record with
 * these categories (NULL or "": all) from a new site generation on. Stop: they record nothing
 * (generation 0) until the next start. Fails: never. Not thread-safe (provider thread). */
void fxtp_api_start(const char *categories);
void fxtp_api_stop(void);
/* Fork: hold the intern lock across fork, release it on both sides; the child also starts a new
 * site generation (every site looks again, at the child's state). Fails: never. */
void fxtp_api_fork_prepare(void);
void fxtp_api_fork_parent(void);
void fxtp_api_fork_child(void);

/* ---- lock.c (pthread wrappers) ---- */
/* Takes FXT_LOCK_LABELS. Fails: never. Not thread-safe (constructor). */
void fxtp_lock_init(void);

/* ---- log.c (stdio, syslog and err wrappers) ---- */
/* Takes FXT_LOG and FXT_LOG_EVENTS (captured only while tracing runs). Fails: never. Not
 * thread-safe (constructor). */
void fxtp_log_init(void);

/* ---- uobj.c (object labels) ---- */
/* Fork: hold the label table's lock across fork, release it on both sides. Fails: never. */
void fxtp_uobj_fork_prepare(void);
void fxtp_uobj_fork_release(void);

#endif
