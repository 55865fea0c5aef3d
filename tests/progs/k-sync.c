/* Threads that certainly block, once per kind of wait, for tests/locks: a consumer waiting on a
 * condition variable, a thread blocked on a mutex the main thread holds, a reader blocked by a
 * writer, a semaphore and a barrier waited on, a thread joined while it sleeps, then a
 * semaphore and a condition variable waited on until their deadline; each worker is renamed
 * twice. The objects are globals, so their labels are their symbol names. Prints what it did
 * (the same with and without the tracer). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static sem_t ready_sem, idle_sem;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t start_barrier;
static int sleeper_named;
static int queue[4], queued, waiting;	/* waiting: the consumer is in its cond wait */

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	nanosleep(&ts, NULL);
}

static struct timespec in_10ms(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	ts.tv_nsec += 10000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static void rename_twice(const char *first, const char *second)
{
	pthread_setname_np(pthread_self(), first);
	pthread_setname_np(pthread_self(), second);
}

static void *consumer(void *arg)
{
	(void)arg;
	rename_twice("cons-a", "consumer");
	int sum = 0;
	pthread_mutex_lock(&queue_lock);
	for (int got = 0; got < 4; got++) {
		while (queued == 0) {
			waiting = 1;	/* seen by main only once the wait released the lock */
			pthread_cond_wait(&queue_cond, &queue_lock);
		}
		sum += queue[--queued];
	}
	pthread_mutex_unlock(&queue_lock);
	return (void *)(long)sum;
}

static void *locker(void *arg)
{
	(void)arg;
	rename_twice("lock-a", "locker");
	pthread_mutex_lock(&queue_lock);	/* main holds it for 50 ms */
	pthread_mutex_unlock(&queue_lock);
	pthread_rwlock_rdlock(&table_lock);	/* main holds it for writing */
	pthread_rwlock_unlock(&table_lock);
	sem_wait(&ready_sem);			/* posted after 50 ms */
	pthread_barrier_wait(&start_barrier);
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	rename_twice("sleep-a", "sleeper");
	__atomic_store_n(&sleeper_named, 1, __ATOMIC_RELEASE);
	pause_ms(50);
	return NULL;
}

int main(void)
{
	pthread_t c, l, s;
	void *sum;

	sem_init(&ready_sem, 0, 0);
	pthread_barrier_init(&start_barrier, NULL, 2);
	pthread_create(&c, NULL, consumer, NULL);
	for (int w = 0; !w; pause_ms(1)) {	/* until the consumer waits on the empty queue */
		pthread_mutex_lock(&queue_lock);
		w = waiting;
		pthread_mutex_unlock(&queue_lock);
	}
	for (int i = 1; i <= 4; i++) {
		pthread_mutex_lock(&queue_lock);
		queue[queued++] = i;
		pthread_cond_signal(&queue_cond);
		pthread_mutex_unlock(&queue_lock);
		pause_ms(5);
	}
	pthread_join(c, &sum);
	printf("consumer sum %ld\n", (long)sum);

	pthread_mutex_lock(&queue_lock);
	pthread_rwlock_wrlock(&table_lock);
	pthread_create(&l, NULL, locker, NULL);
	pause_ms(50);
	pthread_mutex_unlock(&queue_lock);
	pause_ms(50);
	pthread_rwlock_unlock(&table_lock);
	pause_ms(50);
	sem_post(&ready_sem);
	pause_ms(50);
	pthread_barrier_wait(&start_barrier);
	pthread_join(l, NULL);
	printf("locker done\n");

	pthread_create(&s, NULL, sleeper, NULL);
	while (!__atomic_load_n(&sleeper_named, __ATOMIC_ACQUIRE))	/* its name labels the join */
		pause_ms(1);
	pthread_join(s, NULL);	/* blocks: the sleeper sleeps 50 ms */
	printf("sleeper joined\n");

	struct timespec soon;	/* timed waits nobody ends: they time out after 10 ms */
	sem_init(&idle_sem, 0, 0);
	soon = in_10ms(CLOCK_REALTIME);
	printf("sem_timedwait %s\n", sem_timedwait(&idle_sem, &soon) ? "timed out" : "returned");
	soon = in_10ms(CLOCK_MONOTONIC);
	pthread_mutex_lock(&queue_lock);
	int rc = 0;
	while (rc == 0)	/* spurious wakeups aside */
		rc = pthread_cond_clockwait(&idle_cond, &queue_lock, CLOCK_MONOTONIC, &soon);
	pthread_mutex_unlock(&queue_lock);
	printf("cond_clockwait %s\n", rc ? "timed out" : "returned");
	return 0;
}
