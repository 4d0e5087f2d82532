/* bgchild: the forked children that save in the background (BGSAVE, the AOF
 * rewrite). One way to fork them, and what they tell the parent: how long the
 * fork took (INFO latest_fork_usec, total_forks) and how much memory the
 * child copied on write (rdb_last_cow_size, aof_last_cow_size). */
#ifndef PERSIST_BGCHILD_H
#define PERSIST_BGCHILD_H

#include <stddef.h>
#include <sys/types.h>

/* As fork(): 0 in the child (signals back to default, listening sockets
 * closed), the pid in the parent, -1 with errno on failure. */
pid_t bgchildFork(void);
/* In the child, just before it exits: reports its copy-on-write bytes. */
void bgchildReportCow(void);
/* In the parent, once that child has exited: the bytes it reported (0 if none). */
size_t bgchildCollectCow(pid_t pid);
long long bgchildLatestForkUsec(void);
long long bgchildTotalForks(void);

#endif
