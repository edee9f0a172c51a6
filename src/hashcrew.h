/* hashcrew.h: the threads that check and make password hashes (argon2id: tens of milliseconds of
 * one core each) off libmicrohttpd's threads. A request that needs a hash is parked and its
 * work handed here, so a crowd signing in never holds a libmicrohttpd thread, each of which
 * serves many connections (a game view's p99 during a crowd of sign-ins: 192 ms with the
 * hashes on those threads, 6-13 ms here). The crew keeps the default priority: at nice 10 a
 * sign-in's p99 rose to 0.8-1 s whenever other work held the cores. At most as many jobs wait
 * as threads run. */
#ifndef CITY_HASHCREW_H
#define CITY_HASHCREW_H

#include <stdbool.h>

struct hash_crew;

/* Starts `threads` (1..64) threads; NULL when none could be made. */
struct hash_crew *hash_crew_start(int threads);

/* Queues fn(arg) for a crew thread. False, queuing nothing, when as many jobs already wait as
 * threads run, or the crew is stopping: the caller answers 503 busy. */
bool hash_crew_submit(struct hash_crew *c, void (*fn)(void *arg), void *arg);

/* Runs the jobs already queued, then stops and frees the crew (NULL: nothing). */
void hash_crew_stop(struct hash_crew *c);

#endif
