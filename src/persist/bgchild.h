/* bgchild: the forked children that save in the background (BGSAVE, the AOF
 * rewrite). One way to fork them, and what they tell the parent: how long the
 * fork took (INFO latest_fork_usec, total_forks) and how much memory the
 * child copied on write (current_cow_size, rdb_last_cow_size, aof_last_cow_size). */
#ifndef PERSIST_BGCHILD_H
#define PERSIST_BGCHILD_H

#include <stddef.h>
#include <sys/types.h>

/* What a child is for: an RDB (BGSAVE, a full sync's snapshot), an AOF
 * rewrite, or another use (the Lua debugger's forked sessions). Its
 * copy-on-write figure goes to INFO rdb_last_cow_size or aof_last_cow_size. */
typedef enum { BGCHILD_RDB, BGCHILD_AOF, BGCHILD_OTHER } bgchildKind;
/* As fork(): 0 in the child (signals back to default, listening sockets
 * closed), the pid in the parent, -1 with errno on failure. */
pid_t bgchildFork(bgchildKind kind);
/* In the child, every key it writes: about once a second it reports how
 * many it wrote and its copy-on-write bytes (a no-op outside a child). */
void bgchildReportProgress(size_t keys);
/* In the child, once its work succeeded, just before it exits: reports its
 * copy-on-write bytes, and logs them ("Fork CoW for RDB: ..."). */
void bgchildReportCow(void);
/* In the parent, once that child has exited (or was killed and reaped):
 * takes in its last reports; its slot is free again. A child that made its
 * final report sets its kind's last copy-on-write figure to the peak of all
 * it reported (Redis 7.0's meaning); one that failed leaves it as it was. */
void bgchildCollect(pid_t pid);
/* INFO rdb_last_cow_size / aof_last_cow_size: bytes of private dirty memory
 * (/proc's Private_Dirty) of the last such child that succeeded. */
size_t bgchildLastCow(bgchildKind kind);
/* In the parent: stops a child that no longer matters (SIGUSR1: not a
 * failure), waits for it, collects it as above and removes the temp-<pid>.rdb
 * it may have been writing. */
void bgchildKill(pid_t pid);
/* In the parent's cron: takes in the children's reports. */
void bgchildPoll(void);
/* INFO current_*: the running child that reported last (zeros, 0 returned, when none runs). */
typedef struct bgchildInfo {
    size_t keys_total, keys_processed;
    size_t cow, cow_peak;
    long long cow_age_sec;
} bgchildInfo;
int bgchildCurrentInfo(bgchildInfo *info);
long long bgchildLatestForkUsec(void);
long long bgchildTotalForks(void);

#endif
