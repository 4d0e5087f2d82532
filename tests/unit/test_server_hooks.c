/* test_server_hooks: the subscription table of server/hooks.h — order as the
 * table gives it, `.before` moving an entry ahead of the one it names, lists
 * longer than any fixed size, and the wiring bugs (a circle, a `before` that
 * names no subscriber of the point) stopping the server. Links the server's
 * objects (all but main.o). */
#include "server/hooks.h"

#include "testhelp.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char ran[64];
static int nran;

#define TASK(n) \
    static void task##n(void) { ran[nran++] = (char)('a' + (n)); }
TASK(0)
TASK(1)
TASK(2)
TASK(3)
TASK(4)
TASK(5)
TASK(6)
TASK(7)
TASK(8)
TASK(9)
TASK(10)
TASK(11)

static int shutdownOk(int flags) {
    (void)flags;
    ran[nran++] = 'k';
    return C_OK;
}
static int shutdownRefuses(int flags) {
    (void)flags;
    ran[nran++] = 'r';
    return C_ERR;
}

static void runCron(void) {
    nran = 0;
    memset(ran, 0, sizeof(ran));
    runCronTasks();
}

/* 1 when subscribing `subs` makes the process abort (in a child). */
static int aborts(const subscription *subs, size_t n) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        serverSubscribe(subs, n);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

int main(void) {
    TEST("subscribers run in the table's order");
    {
        const subscription t[] = {{ON_CRON(task0)}, {ON_CRON(task1)}, {ON_CRON(task2)}};
        serverSubscribe(t, 3);
        runCron();
        CHECK(strcmp(ran, "abc") == 0);
    }

    TEST(".before moves an entry ahead of the one it names, others keep their order");
    {
        const subscription t[] = {
            {ON_CRON(task0)},
            {ON_CRON(task1)},
            {ON_CRON(task2)},
            {ON_CRON(task3), .before = RUNS_BEFORE(task1)},
            {ON_CRON(task4), .before = RUNS_BEFORE(task3)},
        };
        serverSubscribe(t, 5);
        runCron();
        CHECK(strcmp(ran, "aedbc") == 0);
        int n;
        const hookFn *fns = hookSubscribers(HOOK_CRON, &n);
        CHECK(n == 5 && fns[0] == (hookFn)task0 && fns[1] == (hookFn)task4);
    }

    TEST("points are apart: a table's entries of other points do not mix");
    {
        const subscription t[] = {
            {ON_CRON(task0)},
            {ON_SHUTDOWN_CHECK(shutdownOk)},
            {ON_SHUTDOWN_TASK(task5)},
            {ON_CRON(task1)},
            {ON_SHUTDOWN_CHECK(shutdownRefuses), .before = RUNS_BEFORE(shutdownOk)},
        };
        serverSubscribe(t, 5);
        runCron();
        CHECK(strcmp(ran, "ab") == 0);
        nran = 0;
        memset(ran, 0, sizeof(ran));
        /* The refusing check runs first and stops the walk. */
        CHECK(runShutdownChecks(0) == C_ERR);
        CHECK(strcmp(ran, "r") == 0);
        nran = 0;
        memset(ran, 0, sizeof(ran));
        runShutdownTasks();
        CHECK(strcmp(ran, "f") == 0);
    }

    TEST("lists grow past any fixed size");
    {
        const subscription t[] = {{ON_CRON(task0)}, {ON_CRON(task1)}, {ON_CRON(task2)},  {ON_CRON(task3)},
                                  {ON_CRON(task4)}, {ON_CRON(task5)}, {ON_CRON(task6)},  {ON_CRON(task7)},
                                  {ON_CRON(task8)}, {ON_CRON(task9)}, {ON_CRON(task10)}, {ON_CRON(task11)}};
        serverSubscribe(t, 12);
        runCron();
        CHECK(strcmp(ran, "abcdefghijkl") == 0);
    }

    TEST("a circle of .before is a wiring bug: the server aborts");
    {
        const subscription t[] = {
            {ON_CRON(task0), .before = RUNS_BEFORE(task1)},
            {ON_CRON(task1), .before = RUNS_BEFORE(task0)},
        };
        CHECK(aborts(t, 2));
    }

    TEST("a .before naming no subscriber of that point is a wiring bug");
    {
        const subscription t[] = {
            {ON_CRON(task0), .before = RUNS_BEFORE(task1)},
            {ON_SHUTDOWN_TASK(task1)},
        };
        CHECK(aborts(t, 2));
        const subscription fine[] = {{ON_CRON(task0)}};
        CHECK(!aborts(fine, 1));
    }
    return TEST_REPORT();
}
