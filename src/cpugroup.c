/* cpugroup.c: the idle cgroup of the bot workers (see cpugroup.h): finds the process's cgroup of
 * the cpu controller from /proc/self/cgroup and /proc/self/mountinfo, makes or takes the idle
 * group, and moves threads between the two by writing their ids. */
#include "cpugroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PATH_LEN = 512 };

struct cpugroup {
    char dir[PATH_LEN];       /* the idle group */
    char join[PATH_LEN];      /* the file a thread id is written to, to join it */
    char home_join[PATH_LEN]; /* the same file of the process's own group */
    bool made;                /* made by cpugroup_open(): removed at close */
};

/* Where the calling thread is: -1 not known yet, 0 its process's group, 1 the idle group. */
static _Thread_local int where = -1;

/* Writes text to the file at path; false (errno set) when it cannot. */
static bool write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len;
    int saved = errno;
    close(fd);
    errno = saved;
    return ok;
}

/* Whether the comma-separated list has the item. */
static bool has_item(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *s = list; s && *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && strncmp(s, item, n) == 0)
            return true;
        s = end ? end + 1 : NULL;
    }
    return false;
}

/* The process's cgroup directory of the cpu controller into home (the v1 hierarchy that has
 * it, else the v2 one), and whether it is v2; false when there is none. */
static bool find_home(char *home, size_t n, bool *v2)
{
    char line[1024], v1_path[PATH_LEN] = "", v2_path[PATH_LEN] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = 0;
        if (has_item(c1 + 1, "cpu"))
            snprintf(v1_path, sizeof v1_path, "%s", c2 + 1);
        else if (strcmp(line, "0") == 0 && c1[1] == 0)
            snprintf(v2_path, sizeof v2_path, "%s", c2 + 1);
    }
    fclose(f);
    *v2 = !v1_path[0];
    const char *path = *v2 ? v2_path : v1_path;
    if (!path[0] || !(f = fopen("/proc/self/mountinfo", "re")))
        return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS */
        char root[PATH_LEN], point[PATH_LEN], fstype[64], super[256];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2 ||
            sscanf(dash + 3, "%63s %*s %255s", fstype, super) != 2)
            continue;
        bool match = *v2 ? strcmp(fstype, "cgroup2") == 0
                         : strcmp(fstype, "cgroup") == 0 && has_item(super, "cpu");
        if (!match)
            continue;
        /* The mount shows the hierarchy from `root` down (a container's view). */
        size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
        if (rl && strncmp(path, root, rl) != 0)
            continue;
        snprintf(home, n, "%s%s", point, path + rl);
        found = true;
    }
    fclose(f);
    size_t len = strlen(home);
    if (found && len > 1 && home[len - 1] == '/')
        home[len - 1] = 0;
    return found;
}

/* Sets the least CPU weight of the group at dir: cpu.idle 1 where the kernel has it, else the
 * smallest cpu.shares (v1) or cpu.weight (v2). */
static bool make_idle(const char *dir, bool v2)
{
    char path[PATH_LEN + 16];
    snprintf(path, sizeof path, "%s/cpu.idle", dir);
    if (write_file(path, "1"))
        return true;
    snprintf(path, sizeof path, "%s/%s", dir, v2 ? "cpu.weight" : "cpu.shares");
    return write_file(path, v2 ? "1" : "2");
}

/* Removes the groups of daemons that ended without removing theirs (killed): the city-bots-PID
 * under home whose PID is no process (empty groups only: rmdir refuses any other). */
static void remove_stale(const char *home)
{
    DIR *d = opendir(home);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        char rest;
        if (sscanf(e->d_name, "city-bots-%ld%c", &pid, &rest) != 1 || pid <= 0 ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[PATH_LEN + 300];
        snprintf(path, sizeof path, "%s/%s", home, e->d_name);
        rmdir(path);
    }
    closedir(d);
}

struct cpugroup *cpugroup_open(const char *spec, char *err, size_t n)
{
    snprintf(err, n, "%s", "");
    if (!spec || !*spec || strcmp(spec, "none") == 0)
        return NULL;
    struct cpugroup *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, n, "out of memory");
        return NULL;
    }
    char home[PATH_LEN] = "";
    bool v2 = false;
    if (!find_home(home, sizeof home, &v2)) {
        snprintf(err, n, "no cgroup of the cpu controller found for this process");
        free(g);
        return NULL;
    }
    const char *file = v2 ? "cgroup.threads" : "tasks";
    snprintf(g->home_join, sizeof g->home_join, "%.480s/%s", home, file);
    if (strcmp(spec, "auto") == 0) {
        remove_stale(home);
        snprintf(g->dir, sizeof g->dir, "%.480s/city-bots-%ld", home, (long)getpid());
        if (mkdir(g->dir, 0755) != 0 && errno != EEXIST) {
            snprintf(err, n, "cannot make %s: %s", g->dir, strerror(errno));
            free(g);
            return NULL;
        }
        g->made = true;
        char type[PATH_LEN + 16];
        snprintf(type, sizeof type, "%s/cgroup.type", g->dir);
        if ((v2 && !write_file(type, "threaded")) || !make_idle(g->dir, v2)) {
            snprintf(err, n, "cannot give %s the least CPU weight: %s", g->dir, strerror(errno));
            cpugroup_close(g);
            return NULL;
        }
    } else {
        snprintf(g->dir, sizeof g->dir, "%s", spec);
    }
    snprintf(g->join, sizeof g->join, "%.480s/%s", g->dir, file);
    if (access(g->join, W_OK) != 0) {
        snprintf(err, n, "cannot join %s: %s", g->dir, strerror(errno));
        cpugroup_close(g);
        return NULL;
    }
    return g;
}

bool cpugroup_enter(struct cpugroup *g, bool idle)
{
    if (!g || where == (int)idle)
        return true;
    char tid[24];
    snprintf(tid, sizeof tid, "%ld", (long)gettid());
    if (!write_file(idle ? g->join : g->home_join, tid))
        return false;
    where = idle;
    return true;
}

const char *cpugroup_path(const struct cpugroup *g)
{
    return g ? g->dir : "";
}

void cpugroup_close(struct cpugroup *g)
{
    if (!g)
        return;
    if (g->made)
        rmdir(g->dir); /* fails, harmlessly, while a thread is still in it */
    free(g);
}
