/* SPDX-License-Identifier: MIT */
/* The request loop of a multi-threaded mount: one reader at a time, and a
 * watch that hands the reading on when the reader is held up.
 *
 * NOTES ON THE DESIGN
 *  1. libfuse's own loop keeps every idle worker blocked in read(2) on
 *     the device, and the kernel hands each request to the worker that
 *     has waited longest: a run of quick requests (a `cat` of many
 *     files: each file's RELEASE, sent as the next OPEN is) wakes a
 *     different thread, often on another processor, for nearly every
 *     one; those switches cost more than the requests themselves (on
 *     this project's bench, 1.8x a single thread's time for the clip
 *     texts read again).
 *  2. So one thread at a time holds the reader's role: it reads a
 *     request, serves it, and reads the next itself.  Others wait
 *     (followers) without touching the device.
 *  3. The watch (the thread that calls loop_serve) looks at the reader
 *     every LOOP_WATCH_NS while requests come, and sleeps while none do
 *     (woken by the next, or after LOOP_QUIET_NS).
 *     When the reader has been on one request LOOP_HANDOVER_NS or more
 *     (a commit, a model decoded, a read from the disk, a lock another
 *     request holds), the watch frees the role for a follower, or a new
 *     thread up to the bound: requests never wait long behind a slow
 *     one, and a request that waits on the kernel (an invalidation
 *     waiting on pages that a queued READ holds) always finds another
 *     thread to serve what it waits for -- the guarantee libfuse's loop
 *     gives, kept.  Go's runtime retakes a processor from a thread stuck
 *     in a system call the same way.
 *  4. A request buffer goes with the reading, not with a thread: a thread
 *     that gives up the role gives its buffer back once it has served
 *     its request, and the next reader takes the one given back last.
 *     The buffers in memory are as many as requests once served at the
 *     same time, not as many threads as ever ran.
 *  5. The end: the device says the mount is gone (the reader sets done),
 *     or a signal (the watch, which alone takes them, wakes): followers
 *     are woken, a thread blocked reading is cancelled (it may only be
 *     cancelled there), every thread joined. */
#ifndef FS_LOOP_H
#define FS_LOOP_H

struct fuse_session;

#define LOOP_HANDOVER_NS 500000u
#define LOOP_WATCH_NS 250000u
#define LOOP_QUIET_NS 1000000000u
#define LOOP_HANDOVER_BYTES (128u << 10) /* a read this large: loop_hand_over */

/* Called by a request's handler before work that takes long (a large
 * read): another thread takes over reading at once, as the watch would
 * make it in LOOP_HANDOVER_NS.  Nothing outside loop_serve's threads. */
void loop_hand_over(void);

/* Serves the session with at most `threads` threads serving requests
 * (1 or more) until it ends: 0, or a negative errno from reading the
 * device. */
int loop_serve(struct fuse_session *se, unsigned threads);

#endif
