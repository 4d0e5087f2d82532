/* ae: the event loop. epoll for file descriptors, plus timers, one thread.
 * Everything the server does runs from callbacks registered here. */
#ifndef CORE_AE_H
#define CORE_AE_H

#include "clock.h"

#define AE_OK 0
#define AE_ERR -1

#define AE_NONE 0
#define AE_READABLE 1
#define AE_WRITABLE 2
/* With AE_WRITABLE: the writable handler never runs after the readable one in
 * the same turn (it runs first), so what a command wrote in the readable
 * handler waits for beforesleep (an AOF fsync before the reply goes out). */
#define AE_BARRIER 4

#define AE_NOMORE -1
/* Returned by a timer that set its next run itself, to the microsecond, with
 * aeRescheduleTimeEventUs. */
#define AE_RESCHEDULED -2

typedef struct aeEventLoop aeEventLoop;

typedef void aeFileProc(aeEventLoop *el, int fd, void *clientData, int mask);
/* Returns the ms until it should run again, AE_NOMORE to be removed, or
 * AE_RESCHEDULED. */
typedef long long aeTimeProc(aeEventLoop *el, long long id, void *clientData);
typedef void aeBeforeSleepProc(aeEventLoop *el);

aeEventLoop *aeCreateEventLoop(int setsize);
void aeDeleteEventLoop(aeEventLoop *el);
int aeGetSetSize(aeEventLoop *el);
int aeResizeSetSize(aeEventLoop *el, int setsize);

int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc, void *clientData);
void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask);
int aeGetFileEvents(aeEventLoop *el, int fd);
/* Runs fd's readable handler now, if it has one: for bytes a layer above
 * the socket holds (a TLS session's decrypted record) that epoll cannot see. */
void aeFireReadable(aeEventLoop *el, int fd);

/* Timers: `us` from now (microseconds, for precise expiry deadlines). */
long long aeCreateTimeEvent(aeEventLoop *el, long long ms, aeTimeProc *proc, void *clientData);
long long aeCreateTimeEventUs(aeEventLoop *el, long long us, aeTimeProc *proc, void *clientData);
int aeDeleteTimeEvent(aeEventLoop *el, long long id);
/* Move an existing timer to fire `us` microseconds from now. */
int aeRescheduleTimeEventUs(aeEventLoop *el, long long id, long long us);

/* When the current turn of the loop began (its epoll_wait returned), on the
 * getMonotonicUs() clock: work spread over turns measures its share from it. */
monotime aeTurnStartUs(aeEventLoop *el);

void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *proc);
int aeProcessEvents(aeEventLoop *el);
/* Ready file events only, without waiting and without timers or beforesleep
 * (serving clients while a long script runs). */
int aeProcessFileEventsNoWait(aeEventLoop *el);
/* Whether a registered fd is ready now (a poll: nothing is consumed). Long
 * background work asks, to give way to clients. */
int aeEventsPending(aeEventLoop *el);
void aeMain(aeEventLoop *el);
void aeStop(aeEventLoop *el);

#endif
