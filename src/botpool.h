/* botpool.h: the bot workers of `cityd serve`. A slow bot (the expert, which thinks for about a
 * hundred milliseconds) never decides inside a request's transaction: saving a game where one
 * must decide marks it bot_due and wakes this pool; a worker reads the game (holding its row only
 * for the read), thinks with no lock and no connection held, then submits the decision in a
 * transaction of its own that locks the row and checks that the seat still has that very point to
 * decide (exactly once, however many workers or instances race). The queue is bounded; a game it
 * drops, or whose worker died with its daemon, is picked up again by the sweeper from bot_due.
 *
 * Who goes first, as a fair queue: work people wait for (a hint; a game where a person sits)
 * before games of bots alone; between people's work, the address that was served longest ago
 * first (a game is its creator's, a hint its asker's), so one address with a hundred busy games
 * gets one turn while another gets the next, whatever it claims to need; within one address's
 * work, the greater need (a hint or a game whose person has sent all they must, then a game
 * whose person has a decision open); then first come, first served. A worker decides one seat
 * of a people's game at a time while other people's work waits (a game of four experts goes
 * back in line after each; a game of bots alone does not, since nobody waits for it),
 * and when every worker is busy and work waits that outranks a decision (people's work over
 * bots alone; an address with nothing being thought about over one that has some), the first
 * worker to reach a pause between playouts thinks that work first and then goes on with its
 * own: a person's move waits for a playout, not for another game's whole decision.
 *
 * People's requests first too: between two playouts a worker thinking a game's move pauses (1 ms at
 * a time) while this process is serving any request (http_requests_busy), for at most `yield_ms` in
 * a decision and never more than half the time it has thought so far (a flood of cheap requests,
 * one always in progress, slows a move by half at most instead of stalling it), so that on a
 * machine the bots keep busy, people's requests (and the database work they wait on) get the cores;
 * past that it thinks on, so bots still move (more slowly) under a steady crowd. The pauses are not
 * thinking time: a decision gets the same playouts, only later. The workers also run at
 * SCHED_IDLE, so the daemon's own request threads preempt them at once; or, with a nice given
 * (bot_pool_start, --bot-nice), a worker thinking for games of bots alone lowers its own
 * thread's priority to it and goes back to nice 0 for work a person waits on where the kernel
 * lets it. Neither is enough alone: with autogroup or cgroups the scheduler weighs the
 * daemon's threads only against each other, not against the database's processes that a
 * request waits on. */
#ifndef CITY_BOTPOOL_H
#define CITY_BOTPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "expert.h"
#include "expert_levels.h"

struct server;
struct bot_pool;

/* How much a game's bots are waited for, the greatest need first. */
enum bot_need {
    BOT_NEED_PERSON_WAITS, /* every person seated has sent what they must: they wait for bots */
    BOT_NEED_PEOPLE,       /* a person sits at the game (with a decision of their own open) */
    BOT_NEED_ALONE,        /* bots alone */
    BOT_NEEDS
};

/* What /metrics shows of the pool. */
struct bot_pool_stats {
    long queued;        /* games waiting for a worker */
    long queued_people; /* of those, games with a person seated (served first) */
    long queued_tasks;  /* thinking a person waits for (hints) */
    uint64_t tasks;     /* tasks thought about */
    uint64_t preempted; /* works a worker took up between two playouts of its own decision */
    long thinking;      /* workers thinking now */
    uint64_t decisions; /* bot decisions submitted */
    uint64_t stale;     /* decisions thrown away: the game had moved on meanwhile */
    uint64_t dropped;   /* wake-ups refused by a full queue (the sweeper retries them) */
    uint64_t thought;   /* decisions thought about (submitted or not) */
    double ms_sum;      /* thinking time of all decisions, ms */
    uint64_t le_ms[6];  /* decisions that took at most 10, 25, 50, 100, 200, 500 ms */
    uint64_t by_level[EXPERT_LEVELS_MAX]; /* decisions thought at each level of expert_levels[] */
    double yield_ms;                      /* time workers paused for people's requests, ms */
    int nice_alone;  /* a worker's nice while it thinks for games of bots alone */
    int nice_people; /* and while it thinks for work people wait on */
    bool sched_idle; /* the workers run at SCHED_IDLE instead (nice 0: the option off) */
};

/* Starts `workers` threads (at least 1) with a queue of at most `queue_cap` games; the expert
 * thinks for at most `think_ms` per decision at the top level, and at each game's own level
 * (its bot_level, expert_levels.h) within that; a decision pauses for people's requests, while
 * people_busy() (the HTTP layer's count of requests in progress) says there are some, for at
 * most `yield_ms` (0: never). `nice` (1..19) is the nice a worker thinks at for games of bots
 * alone: it lowers its own thread's priority to it, and goes back to nice 0 for work a person
 * waits on (a game where a person sits, a hint), or, when the kernel refuses that (no
 * CAP_SYS_NICE, RLIMIT_NICE below 20 even after raising it to its hard limit), keeps `nice`
 * for all work and says so once on stderr; 0 turns that off and runs every worker at
 * SCHED_IDLE instead. NULL when threads cannot start.
 */
struct bot_pool *bot_pool_start(struct server *srv, int workers, int queue_cap, double think_ms,
                                double yield_ms, int (*people_busy)(void), int nice);

/* Queues game `id` for its slow bots with `need`, on behalf of address `who` (a
 * netaddr_key_hash(), 0 for none). Thread-safe; never blocks: when the queue is full the wake-up
 * is counted as dropped. A game queued already keeps its place and takes `need`, the latest word on
 * it. */
void bot_pool_wake(struct bot_pool *p, const char *id, enum bot_need need, uint64_t who);

/* Thinking a person waits for (a hint), asked for by address `who`: a worker calls run(ctx,
 * params) in turn, with the expert's parameters at the pool's thinking time and its pauses for
 * people's requests (params->yield), and run must then answer whoever waits. The greatest need:
 * queued ahead of every game's bots, fairly among addresses. A task still queued when the pool
 * stops is called with params NULL (nothing thought: it must answer that). False, with run
 * never called, when BOT_POOL_MAX_TASKS wait already or the pool is stopping. */
enum { BOT_POOL_MAX_TASKS = 256 };
bool bot_pool_task(struct bot_pool *p, void (*run)(void *ctx, const struct expert_params *params),
                   void *ctx, uint64_t who);

/* Stops the workers (each finishes the decision it is on; a task still queued is run, so that
 * whoever waits for it is answered) and frees the pool. */
void bot_pool_stop(struct bot_pool *p);

/* The pool's figures now. */
void bot_pool_stats(struct bot_pool *p, struct bot_pool_stats *out);

#endif
