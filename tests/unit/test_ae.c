/* test_ae: the event loop's timing contract, which expiry and the 0MQ push
 * rely on — a timer can set its next run to the microsecond (AE_RESCHEDULED),
 * replies to what a turn read go out (beforesleep) before that turn's due
 * timers, and aeTurnStartUs tells when the turn began. */
#include "testhelp.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ae.h"
#include "core/clock.h"

#define RUNS 21
#define PAUSE_US 300

static monotime fired_at[RUNS];
static int fired;

static long long pausingTimer(aeEventLoop *el, long long id, void *data) {
    (void)data;
    fired_at[fired++] = getMonotonicUs();
    if (fired == RUNS) {
        aeStop(el);
        return AE_NOMORE;
    }
    aeRescheduleTimeEventUs(el, id, PAUSE_US);
    return AE_RESCHEDULED;
}

static int cmpLongLong(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Order of events in one turn, as letters: r = file read, b = beforesleep, t = timer. */
static char order[16];
static int norder;
static int pipefd[2];

static void note(char c) {
    if (norder < (int)sizeof(order) - 1) order[norder++] = c;
}

static void readProc(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)data, (void)mask;
    char buf[16];
    if (read(fd, buf, sizeof(buf)) > 0) note('r');
}

static void beforeSleepProc(aeEventLoop *el) {
    (void)el;
    note('b');
}

static long long dueTimer(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    note('t');
    return AE_NOMORE;
}

int main(void) {
    TEST("a timer returning AE_RESCHEDULED runs again at the microsecond delay it set");
    aeEventLoop *el = aeCreateEventLoop(64);
    aeCreateTimeEventUs(el, 0, pausingTimer, NULL);
    aeMain(el);
    CHECK(fired == RUNS);
    long long gaps[RUNS - 1];
    for (int i = 1; i < RUNS; i++) gaps[i - 1] = (long long)(fired_at[i] - fired_at[i - 1]);
    qsort(gaps, RUNS - 1, sizeof(gaps[0]), cmpLongLong);
    CHECK(gaps[0] >= PAUSE_US);
    /* Not rounded up to the millisecond, as an epoll_wait timeout would be. */
    CHECK(gaps[(RUNS - 1) / 2] < 900);
    aeDeleteEventLoop(el);

    TEST("what a turn read is answered (beforesleep) before the turn's due timers run");
    el = aeCreateEventLoop(64);
    CHECK(pipe(pipefd) == 0);
    aeCreateFileEvent(el, pipefd[0], AE_READABLE, readProc, NULL);
    aeSetBeforeSleepProc(el, beforeSleepProc);
    aeCreateTimeEventUs(el, 0, dueTimer, NULL);
    CHECK(write(pipefd[1], "x", 1) == 1);
    monotime before = getMonotonicUs();
    aeProcessEvents(el);
    monotime after = getMonotonicUs();
    CHECK_STREQ(order, "brbt");

    TEST("aeTurnStartUs is when the turn's wait for events ended");
    CHECK(aeTurnStartUs(el) >= before && aeTurnStartUs(el) <= after);

    TEST("a turn that read nothing runs its timers without a second beforesleep");
    memset(order, 0, sizeof(order));
    norder = 0;
    aeCreateTimeEventUs(el, 0, dueTimer, NULL);
    aeProcessEvents(el);
    CHECK_STREQ(order, "bt");
    aeDeleteEventLoop(el);
    close(pipefd[0]);
    close(pipefd[1]);
    return TEST_REPORT();
}
