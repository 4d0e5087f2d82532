/* pause: the CLIENT PAUSE state and its timer (see pause.h). Held clients
 * are blocked as BLOCKED_POSTPONE by the blocking module. */
#include "server/pause.h"
#include "server/blocking.h"
#include "server/db.h"
#include "server/expire.h"
#include "server/hooks.h"
#include "core/clock.h"

static int pause_type; /* 0 (none), PAUSE_WRITE or PAUSE_ALL: the more a pause holds, the higher */
static long long pause_end_ms;
static long long pause_timer_id = -1;

static long long pauseTimerProc(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    long long now = mstime();
    if (now < pause_end_ms) return pause_end_ms - now;
    pause_timer_id = -1;
    unpauseClients();
    /* Redis ends a pause in its cron just before the expiry cycle: keys that
     * came due meanwhile are gone before the held commands run. */
    if (server.active_expire_enabled && expiryAllowed()) expireDueKeys(backgroundWorkLeftUs());
    return AE_NOMORE;
}

void pauseClients(int type, long long end_ms) {
    if (type > pause_type) pause_type = type;
    if (end_ms > pause_end_ms) pause_end_ms = end_ms;
    if (pause_timer_id == -1) pause_timer_id = aeCreateTimeEvent(server.el, 0, pauseTimerProc, NULL);
    long long now = mstime();
    aeRescheduleTimeEventUs(server.el, pause_timer_id, pause_end_ms > now ? (pause_end_ms - now) * 1000 : 0);
}

void unpauseClients(void) {
    pause_type = 0;
    pause_end_ms = 0;
    if (pause_timer_id != -1) {
        aeDeleteTimeEvent(server.el, pause_timer_id);
        pause_timer_id = -1;
    }
    unblockPostponedClients();
    /* Keys that came due during the pause go now, not at the next idle tick. */
    expireScheduleAt(0);
}

int clientsArePaused(void) { return pause_type != 0; }

/* Whether a command may change the dataset or be propagated, as CLIENT PAUSE
 * WRITE sees it: write and may-replicate commands (PUBLISH, PFCOUNT, EVAL...),
 * EXEC of a transaction holding one, but not a script or function that
 * declares no-writes. */
static int commandMayWrite(client *c) {
    uint64_t flags = commandFlags(c);
    if (c->cmd == server.exec_command) flags |= (uint64_t)c->mstate.cmd_flags;
    return (flags & (CMD_WRITE | CMD_MAY_REPLICATE)) != 0;
}

int pauseHoldsCommand(client *c) {
    if (!pause_type) return 0;
    /* A MONITOR connection is a replica to Redis, and replicas (their ACKs) are never paused. */
    if (c->flags & (CLIENT_MONITOR | CLIENT_SLAVE | CLIENT_LUA | CLIENT_AOF)) return 0;
    return pause_type == PAUSE_ALL || commandMayWrite(c);
}
