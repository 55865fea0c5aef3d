/* Accepting connections when descriptors run out (the manager service's two sockets, fxtrun's
 * session socket): a listening socket that stays readable while accept() fails with EMFILE
 * would make a poll loop spin. A reserve descriptor, held open for that moment, is closed, the
 * connection taken and closed at once (shed: its peer sees the connection end), and the
 * reserve opened again. And the list the accepted connections are kept in. Single-threaded per
 * reserve. */
/* SPDX-License-Identifier: MIT */
#ifndef FXT_LAUNCHER_ACCEPT_H
#define FXT_LAUNCHER_ACCEPT_H

#include <stddef.h>

/* Opens the reserve: a descriptor of /dev/null (cloexec), or -1. */
int fxt_accept_reserve(void);

/* accept4() on listen_fd (the connection cloexec and non-blocking). Out of descriptors, one
 * pending connection is shed with the reserve (*reserve, reopened) and, when shed is not NULL,
 * handed to shed(fd, arg) before it is closed (to tell the peer why). Returns the connection;
 * -EAGAIN when none is pending; -EMFILE after shedding one (the caller goes on accepting) or
 * when no reserve was left (the caller stops accepting for a while: else it spins); other
 * -errno of accept4. */
int fxt_accept(int listen_fd, int *reserve, void (*shed)(int fd, void *arg), void *arg);

/* Appends connection fd to the list *fds of *n (room for *cap, grown by doubling). Fails:
 * -ENOMEM (the list as it was; fd is the caller's to close). */
int fxt_accepted_add(int **fds, size_t *n, size_t *cap, int fd);

#endif
