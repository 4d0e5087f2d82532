/* ae: epoll event loop with timers (see ae.h).
 * Timers live in a small unsorted array: the server has only a handful
 * (cron, expiry deadline, ...), so a scan is cheaper than a heap. */
#include "ae.h"
#include "clock.h"
#include "zmalloc.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef struct fileEvent {
    int mask;
    aeFileProc *rproc, *wproc;
    void *clientData;
} fileEvent;

typedef struct timeEvent {
    long long id;
    monotime when;  /* µs */
    aeTimeProc *proc;
    void *clientData;
    int deleted;
} timeEvent;

struct aeEventLoop {
    int epfd;
    int setsize;
    int stop;
    fileEvent *events;
    struct epoll_event *fired;
    timeEvent *timers;
    int ntimers, timercap;
    long long nextTimerId;
    int inTimers;
    int depth;           /* file events being processed (a nested call: events handled while blocked) */
    monotime turn_start; /* when the last epoll_wait returned */
    aeBeforeSleepProc *beforesleep;
};

aeEventLoop *aeCreateEventLoop(int setsize) {
    aeEventLoop *el = zcalloc(sizeof(*el));
    el->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (el->epfd == -1) {
        zfree(el);
        return NULL;
    }
    el->setsize = setsize;
    el->events = zcalloc(sizeof(fileEvent) * setsize);
    el->fired = zcalloc(sizeof(struct epoll_event) * setsize);
    el->nextTimerId = 1;
    /* The loop sleeps until its next timer to the µs (epoll_pwait2), but
     * Linux lets a sleep of a normal thread end up to its timer slack, 50 µs
     * by default, late, to batch wake-ups: every timer would be that late. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    return el;
}

void aeDeleteEventLoop(aeEventLoop *el) {
    close(el->epfd);
    zfree(el->events);
    zfree(el->fired);
    zfree(el->timers);
    zfree(el);
}

int aeGetSetSize(aeEventLoop *el) { return el->setsize; }

int aeResizeSetSize(aeEventLoop *el, int setsize) {
    if (setsize == el->setsize) return AE_OK;
    for (int fd = setsize; fd < el->setsize; fd++)
        if (el->events[fd].mask != AE_NONE) return AE_ERR;
    el->events = zrealloc(el->events, sizeof(fileEvent) * setsize);
    el->fired = zrealloc(el->fired, sizeof(struct epoll_event) * setsize);
    for (int fd = el->setsize; fd < setsize; fd++) el->events[fd].mask = AE_NONE;
    el->setsize = setsize;
    return AE_OK;
}

static int epollMask(int mask) {
    return ((mask & AE_READABLE) ? EPOLLIN : 0) | ((mask & AE_WRITABLE) ? EPOLLOUT : 0);
}

int aeCreateFileEvent(aeEventLoop *el, int fd, int mask, aeFileProc *proc, void *clientData) {
    if (fd >= el->setsize) {
        errno = ERANGE;
        return AE_ERR;
    }
    fileEvent *fe = &el->events[fd];
    struct epoll_event ee = {0};
    int op = fe->mask == AE_NONE ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    ee.events = epollMask(fe->mask | mask);
    ee.data.fd = fd;
    if (epoll_ctl(el->epfd, op, fd, &ee) == -1) return AE_ERR;
    fe->mask |= mask;
    if (mask & AE_READABLE) fe->rproc = proc;
    if (mask & AE_WRITABLE) fe->wproc = proc;
    fe->clientData = clientData;
    return AE_OK;
}

void aeDeleteFileEvent(aeEventLoop *el, int fd, int mask) {
    if (fd >= el->setsize) return;
    fileEvent *fe = &el->events[fd];
    if (fe->mask == AE_NONE) return;
    if (mask & AE_WRITABLE) mask |= AE_BARRIER;
    int newmask = fe->mask & ~mask;
    struct epoll_event ee = {0};
    ee.events = epollMask(newmask);
    ee.data.fd = fd;
    epoll_ctl(el->epfd, newmask == AE_NONE ? EPOLL_CTL_DEL : EPOLL_CTL_MOD, fd, &ee);
    fe->mask = newmask;
}

int aeGetFileEvents(aeEventLoop *el, int fd) {
    if (fd >= el->setsize) return 0;
    return el->events[fd].mask;
}

void aeFireReadable(aeEventLoop *el, int fd) {
    if (fd >= el->setsize || !(el->events[fd].mask & AE_READABLE)) return;
    fileEvent *fe = &el->events[fd];
    fe->rproc(el, fd, fe->clientData, AE_READABLE);
}

long long aeCreateTimeEventUs(aeEventLoop *el, long long us, aeTimeProc *proc, void *clientData) {
    if (el->ntimers == el->timercap) {
        el->timercap = el->timercap ? el->timercap * 2 : 8;
        el->timers = zrealloc(el->timers, sizeof(timeEvent) * el->timercap);
    }
    timeEvent *te = &el->timers[el->ntimers++];
    te->id = el->nextTimerId++;
    te->when = getMonotonicUs() + (us > 0 ? us : 0);
    te->proc = proc;
    te->clientData = clientData;
    te->deleted = 0;
    return te->id;
}

long long aeCreateTimeEvent(aeEventLoop *el, long long ms, aeTimeProc *proc, void *clientData) {
    return aeCreateTimeEventUs(el, ms * 1000, proc, clientData);
}

static timeEvent *findTimer(aeEventLoop *el, long long id) {
    for (int i = 0; i < el->ntimers; i++)
        if (el->timers[i].id == id && !el->timers[i].deleted) return &el->timers[i];
    return NULL;
}

int aeDeleteTimeEvent(aeEventLoop *el, long long id) {
    timeEvent *te = findTimer(el, id);
    if (!te) return AE_ERR;
    te->deleted = 1;
    return AE_OK;
}

int aeRescheduleTimeEventUs(aeEventLoop *el, long long id, long long us) {
    timeEvent *te = findTimer(el, id);
    if (!te) return AE_ERR;
    te->when = getMonotonicUs() + (us > 0 ? us : 0);
    return AE_OK;
}

static void compactTimers(aeEventLoop *el) {
    int j = 0;
    for (int i = 0; i < el->ntimers; i++)
        if (!el->timers[i].deleted) el->timers[j++] = el->timers[i];
    el->ntimers = j;
}

/* Microseconds until the nearest timer, or -1 when there is none. */
static long long usUntilNearestTimer(aeEventLoop *el) {
    monotime now = getMonotonicUs(), nearest = 0;
    int found = 0;
    for (int i = 0; i < el->ntimers; i++) {
        if (el->timers[i].deleted) continue;
        if (!found || el->timers[i].when < nearest) nearest = el->timers[i].when;
        found = 1;
    }
    if (!found) return -1;
    return nearest > now ? (long long)(nearest - now) : 0;
}

static void processTimers(aeEventLoop *el) {
    monotime now = getMonotonicUs();
    /* Timers created by callbacks wait for the next round. */
    int n = el->ntimers;
    for (int i = 0; i < n; i++) {
        timeEvent *te = &el->timers[i];
        if (te->deleted || te->when > now) continue;
        long long id = te->id;
        long long next = te->proc(el, id, te->clientData);
        te = &el->timers[i]; /* the array may have grown */
        if (te->deleted) continue;
        if (next == AE_NOMORE)
            te->deleted = 1;
        else if (next != AE_RESCHEDULED)
            te->when = getMonotonicUs() + next * 1000;
    }
    compactTimers(el);
}

/* Waits at most timeout_us (0 polls) for up to max events into fired.
 * epoll_pwait2 keeps microsecond timers precise; kernels before 5.11 lack it
 * and get epoll_wait, rounded up to ms. Called directly, as anetRecv says
 * why (glibc's wrapper is a cancellation point). */
static int waitForEvents(aeEventLoop *el, struct epoll_event *fired, int max, long long timeout_us) {
    static int no_pwait2;
    if (!no_pwait2) {
        struct timespec ts = {.tv_sec = timeout_us / 1000000, .tv_nsec = (timeout_us % 1000000) * 1000};
        int n = (int)syscall(SYS_epoll_pwait2, el->epfd, fired, max, &ts, NULL, (size_t)0);
        if (n != -1 || errno != ENOSYS) return n;
        no_pwait2 = 1;
    }
    return epoll_wait(el->epfd, fired, max, (int)((timeout_us + 999) / 1000));
}

int aeEventsPending(aeEventLoop *el) {
    struct epoll_event ev;
    /* Level-triggered: what this poll sees stays ready for the loop's own. */
    return waitForEvents(el, &ev, 1, 0) > 0;
}

/* A handler may process events itself (a slow script, a replica loading its
 * master's snapshot): that nested round gets its own array, so the outer one
 * goes on with the events it fetched. */
#define AE_NESTED_EVENTS 128

static int processFileEvents(aeEventLoop *el, long long timeout_us) {
    struct epoll_event nested[AE_NESTED_EVENTS];
    struct epoll_event *fired = el->depth ? nested : el->fired;
    int n = waitForEvents(el, fired, el->depth ? AE_NESTED_EVENTS : el->setsize, timeout_us);
    el->turn_start = clockResync(); /* the turn's reads of the clocks scale from here */
    el->depth++;
    for (int i = 0; i < n; i++) {
        int fd = fired[i].data.fd;
        uint32_t ev = fired[i].events;
        fileEvent *fe = &el->events[fd];
        int handled = 0;
        int invert = fe->mask & AE_BARRIER;
        if (!invert && fe->mask & AE_READABLE && ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
            fe->rproc(el, fd, fe->clientData, AE_READABLE);
            handled = 1;
        }
        fe = &el->events[fd]; /* the callback may have changed it */
        if (fe->mask & AE_WRITABLE && ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
            if (!handled || fe->wproc != fe->rproc) fe->wproc(el, fd, fe->clientData, AE_WRITABLE);
            handled = 1;
        }
        fe = &el->events[fd];
        if (invert && fe->mask & AE_READABLE && ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
            if (!handled || fe->wproc != fe->rproc) fe->rproc(el, fd, fe->clientData, AE_READABLE);
        }
    }
    el->depth--;
    return n;
}

int aeProcessFileEventsNoWait(aeEventLoop *el) { return processFileEvents(el, 0); }

int aeProcessEvents(aeEventLoop *el) {
    long long us = usUntilNearestTimer(el);
    if (el->beforesleep) el->beforesleep(el);
    if (el->stop) return 0;
    int n = processFileEvents(el, us < 0 ? 1000000 : us);
    /* Replies to what was just read go out before due timers, which may work
     * for a millisecond or so (expiry slices): a client waits for one slice,
     * not for two. */
    if (n > 0 && el->beforesleep && usUntilNearestTimer(el) == 0) el->beforesleep(el);
    processTimers(el);
    return n;
}

void aeMain(aeEventLoop *el) {
    el->stop = 0;
    while (!el->stop) aeProcessEvents(el);
}

void aeStop(aeEventLoop *el) { el->stop = 1; }

monotime aeTurnStartUs(aeEventLoop *el) { return el->turn_start; }

void aeSetBeforeSleepProc(aeEventLoop *el, aeBeforeSleepProc *proc) { el->beforesleep = proc; }
