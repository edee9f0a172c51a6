/* cpugroup.h: a cgroup at idle CPU weight for the threads of work nobody waits on (the bot
 * workers thinking for games of bots alone). A thread's SCHED_IDLE only ranks it below the other
 * threads of its own autogroup or cgroup: the kernel still gives its group a fair share against
 * PostgreSQL's processes, which people's requests wait on. A thread moved into a cgroup whose
 * cpu.idle is 1 (or, on older kernels, whose cpu.shares / cpu.weight is the least) runs only on
 * CPU time that every other group leaves over, PostgreSQL's included. A thread moves back to the
 * process's own cgroup for work a person waits on, so that it is not starved by other busy
 * processes of the machine.
 *
 * `cityd serve` uses none unless --bot-cgroup asks (README: a saturated machine starved the
 * games of bots alone in it, and the person's work that waited for their workers' pauses).
 * "auto" makes the group city-bots-PID under the process's own cgroup of the cpu controller
 * (cgroup v1 `tasks`, or a threaded cgroup v2 child) when the process may (root, or a delegated
 * subtree), and removes it at the end (and, at the start, such groups of daemons that were
 * killed before they could: empty ones whose PID is no process); "none" uses none; any other value
 * names a directory the operator prepared (its weight is theirs to set). Failing to make or join
 * one is not an error: the threads then keep the process's group, and cpugroup_open() says why. */
#ifndef CITY_CPUGROUP_H
#define CITY_CPUGROUP_H

#include <stdbool.h>
#include <stddef.h>

struct cpugroup;

/* Opens the idle group `spec` ("auto", "none", or a cgroup directory). NULL when there is none:
 * for "none" with err set to "", else with the reason in err (n bytes). */
struct cpugroup *cpugroup_open(const char *spec, char *err, size_t n);

/* Moves the calling thread into the idle group (idle true) or back to the process's own group.
 * Cheap when the thread is there already; false (the thread staying where it was) when the
 * kernel refuses. g may be NULL: then nothing happens and the result is true. */
bool cpugroup_enter(struct cpugroup *g, bool idle);

/* The group's directory, for the log ("" for NULL). */
const char *cpugroup_path(const struct cpugroup *g);

/* Removes the group when cpugroup_open() made it (its threads must have ended, or have moved
 * back), and frees g. NULL is fine. */
void cpugroup_close(struct cpugroup *g);

#endif
