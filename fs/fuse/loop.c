/* SPDX-License-Identifier: MIT */
/* The request loop (loop.h). */
#include "loop.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "fusefs.h"

#define NOBODY UINT_MAX

struct loop {
	struct fuse_session *se;
	unsigned max;               /* threads at most */
	pthread_mutex_t lock;       /* guards what follows, to `error` */
	pthread_cond_t follow;      /* followers wait here for the role */
	pthread_t *threads;         /* started, n of them */
	unsigned n;
	unsigned idle;              /* followers waiting */
	unsigned reader;            /* the role's holder, or NOBODY */
	struct fuse_buf **spare;    /* request buffers no thread holds, the */
	unsigned nspare;            /*   last given back on top */
	bool done;
	int error;                  /* from reading the device */
	sem_t wake;                 /* the watch's: requests after a quiet spell, the end */
	_Atomic bool watch_asleep;
	_Atomic uint64_t busy_since; /* the reader got its request then (ns); 0: reading */
	_Atomic uint64_t received;   /* requests read so far */
};

struct worker {
	struct loop *l;
	unsigned me;
	struct fuse_buf *buf;       /* held while reading, and serving what it read */
};

/* The worker the calling thread is, for loop_hand_over. */
static _Thread_local struct worker *self;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Reads one request and serves it: false at the end of the session. */
static bool serve_one(struct loop *l, struct fuse_buf *buf)
{
	atomic_store(&l->busy_since, 0);
	/* Note 5: cancelled only while blocked here. */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	int got = fuse_session_receive_buf(l->se, buf);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	if (got == -EINTR || got == -EAGAIN)
		return !fuse_session_exited(l->se);
	if (got <= 0) {
		if (got < 0) {
			pthread_mutex_lock(&l->lock);
			l->error = got;
			pthread_mutex_unlock(&l->lock);
		}
		return false;
	}
	atomic_store(&l->busy_since, now_ns());
	atomic_fetch_add(&l->received, 1);
	if (atomic_exchange(&l->watch_asleep, false))
		sem_post(&l->wake);
	fuse_session_process_buf(l->se, buf);
	return !fuse_session_exited(l->se);
}

/* A request buffer for a new reader: the one given back last (its pages
 * are the ones in memory), or a new one.  The lock is held. */
static struct fuse_buf *take_buffer(struct loop *l)
{
	return l->nspare ? l->spare[--l->nspare] : calloc(1, sizeof(struct fuse_buf));
}

/* The lock is held; there is room: one buffer a thread at most. */
static void give_buffer(struct worker *w)
{
	if (w->buf)
		w->l->spare[w->l->nspare++] = w->buf;
	w->buf = NULL;
}

/* A thread cancelled while reading (note 5) gives its buffer back. */
static void cancelled(void *arg)
{
	struct worker *w = arg;
	pthread_mutex_lock(&w->l->lock);
	give_buffer(w);
	pthread_mutex_unlock(&w->l->lock);
}

/* Note 2: holds the role and serves, or waits for it, until the end. */
static void *work(void *arg)
{
	struct worker w = *(struct worker *)arg;
	struct loop *l = w.l;
	sigset_t ending;
	free(arg);
	self = &w;
	sigemptyset(&ending);
	sigaddset(&ending, SIGHUP);
	sigaddset(&ending, SIGINT);
	sigaddset(&ending, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &ending, NULL); /* the watch takes them */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_push(cancelled, &w);
	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (!l->done && l->reader != NOBODY && l->reader != w.me) {
			l->idle++;
			pthread_cond_wait(&l->follow, &l->lock);
			l->idle--;
		}
		if (l->done)
			break;
		l->reader = w.me;
		if (!w.buf && !(w.buf = take_buffer(l))) {
			l->error = -ENOMEM;
			l->done = true;
			pthread_cond_broadcast(&l->follow);
			sem_post(&l->wake);
			break;
		}
		pthread_mutex_unlock(&l->lock);
		bool more = serve_one(l, w.buf);
		pthread_mutex_lock(&l->lock);
		if (l->reader != w.me)
			give_buffer(&w); /* for the reader, who may have none */
		if (!more) {
			l->done = true;
			pthread_cond_broadcast(&l->follow);
			sem_post(&l->wake);
			break;
		}
	}
	if (l->reader == w.me)
		l->reader = NOBODY;
	give_buffer(&w);
	pthread_mutex_unlock(&l->lock);
	pthread_cleanup_pop(0);
	return NULL;
}

/* Starts a thread, which takes the role when it is free: false when it
 * cannot be started.  The lock is held. */
static bool start_worker(struct loop *l)
{
	struct worker *w = malloc(sizeof *w);
	if (!w)
		return false;
	*w = (struct worker){l, l->n, NULL};
	if (pthread_create(&l->threads[l->n], NULL, work, w)) {
		free(w);
		return false;
	}
	l->n++;
	return true;
}

/* The reader gives up the role, to a follower or a new thread.  The lock
 * is held. */
static void free_role(struct loop *l)
{
	l->reader = NOBODY;
	atomic_store(&l->busy_since, 0);
	if (l->idle)
		pthread_cond_signal(&l->follow);
	else if (l->n < l->max)
		start_worker(l);
}

/* Note 3: the reader held up since `since` gives up the role. */
static void hand_over(struct loop *l, uint64_t since)
{
	pthread_mutex_lock(&l->lock);
	if (!l->done && l->reader != NOBODY && atomic_load(&l->busy_since) == since)
		free_role(l);
	pthread_mutex_unlock(&l->lock);
}

void loop_hand_over(void)
{
	struct worker *w = self;
	if (!w)
		return;
	pthread_mutex_lock(&w->l->lock);
	if (!w->l->done && w->l->reader == w->me)
		free_role(w->l);
	pthread_mutex_unlock(&w->l->lock);
}

/* Waits on the watch's semaphore for at most `ns`. */
static void watch_sleep(struct loop *l, uint64_t ns)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	ns += (uint64_t)t.tv_nsec;
	t.tv_sec += (time_t)(ns / 1000000000u);
	t.tv_nsec = (long)(ns % 1000000000u);
	sem_timedwait(&l->wake, &t);
}

/* Waits for the next look: LOOP_WATCH_NS while requests come, else until
 * one does, or a signal, or the end (or LOOP_QUIET_NS: a signal handled
 * just before the sleep began wakes nothing). */
static void watch_wait(struct loop *l, uint64_t *seen)
{
	uint64_t received = atomic_load(&l->received);
	if (received == *seen && atomic_load(&l->busy_since) == 0) {
		atomic_store(&l->watch_asleep, true);
		/* A request read since: its reader may not have seen the flag. */
		if (atomic_load(&l->received) == received && !fuse_session_exited(l->se))
			watch_sleep(l, LOOP_QUIET_NS);
		atomic_store(&l->watch_asleep, false);
	} else {
		watch_sleep(l, LOOP_WATCH_NS);
	}
	*seen = received;
}

int loop_serve(struct fuse_session *se, unsigned threads)
{
	struct loop l = {.se = se, .max = threads ? threads : 1, .reader = NOBODY};
	int error;
	l.threads = calloc(l.max, sizeof *l.threads);
	l.spare = calloc(l.max, sizeof *l.spare);
	if (!l.threads || !l.spare || sem_init(&l.wake, 0, 0)) {
		free(l.threads);
		free(l.spare);
		return -ENOMEM;
	}
	pthread_mutex_init(&l.lock, NULL);
	pthread_cond_init(&l.follow, NULL);
	pthread_mutex_lock(&l.lock);
	bool started = start_worker(&l);
	pthread_mutex_unlock(&l.lock);
	uint64_t seen = 0;
	while (started) {
		watch_wait(&l, &seen);
		pthread_mutex_lock(&l.lock);
		bool done = l.done;
		pthread_mutex_unlock(&l.lock);
		if (done || fuse_session_exited(se))
			break;
		uint64_t since = atomic_load(&l.busy_since);
		if (since && now_ns() - since >= LOOP_HANDOVER_NS)
			hand_over(&l, since);
	}
	/* Note 5. */
	pthread_mutex_lock(&l.lock);
	l.done = true;
	pthread_cond_broadcast(&l.follow);
	unsigned n = l.n;
	pthread_mutex_unlock(&l.lock);
	for (unsigned i = 0; i < n; i++)
		pthread_cancel(l.threads[i]);
	for (unsigned i = 0; i < n; i++)
		pthread_join(l.threads[i], NULL);
	error = started ? l.error : -EAGAIN;
	fuse_session_reset(se);
	pthread_cond_destroy(&l.follow);
	pthread_mutex_destroy(&l.lock);
	sem_destroy(&l.wake);
	for (unsigned i = 0; i < l.nspare; i++) {
		free(l.spare[i]->mem);
		free(l.spare[i]);
	}
	free(l.spare);
	free(l.threads);
	return error;
}
