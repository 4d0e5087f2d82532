/* pause: the CLIENT PAUSE state and its timer (see pause.h). Held clients
 * are blocked as BLOCKED_POSTPONE by the blocking module. */
#include "server/pause.h"
#include "server/blocking.h"
#include "server/db.h"
#include "server/expire.h"
#include "server/hooks.h"

/* Each purpose (CLIENT PAUSE, a shutdown waiting for replicas) holds its own
 * pause; what is in effect is the strongest type among them, until the
 * latest end. */
static struct {
    int type; /* 0 (none), PAUSE_WRITE or PAUSE_ALL: the more a pause holds, the higher */
    long long end_ms;
} purposes[PAUSE_PURPOSES];
static long long pause_end_ms;
static long long pause_timer_id = -1;

/* Recomputes what is in effect; a pause that now holds less lets its held
 * clients go through the checks again (another purpose may hold them still). */
static void updatePause(void) {
    int old_type = server.pause_type;
    server.pause_type = 0;
    pause_end_ms = 0;
    for (int p = 0; p < PAUSE_PURPOSES; p++) {
        if (purposes[p].type > server.pause_type) server.pause_type = purposes[p].type;
        if (purposes[p].type && purposes[p].end_ms > pause_end_ms) pause_end_ms = purposes[p].end_ms;
    }
    if (!server.pause_type && pause_timer_id != -1) {
        aeDeleteTimeEvent(server.el, pause_timer_id);
        pause_timer_id = -1;
    }
    if (server.pause_type < old_type) {
        unblockPostponedClients();
        /* Keys that came due during the pause go now, not at the next idle tick. */
        if (!server.pause_type) expireScheduleAt(0);
    }
}

/* A pause "until further notice" ends far away: the timer wakes up hourly
 * instead of converting such a delay into an overflowing microsecond count. */
static long long capDelay(long long ms) { return ms > 3600000 ? 3600000 : ms; }

static long long pauseTimerProc(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    long long now = mstime();
    long long next = 0;
    for (int p = 0; p < PAUSE_PURPOSES; p++) {
        if (!purposes[p].type) continue;
        if (purposes[p].end_ms <= now) purposes[p].type = 0;
        else if (!next || purposes[p].end_ms < next) next = purposes[p].end_ms;
    }
    if (next) {
        updatePause();
        return capDelay(next - now);
    }
    pause_timer_id = -1;
    updatePause();
    /* Redis ends a pause in its cron just before the expiry cycle: keys that
     * came due meanwhile are gone before the held commands run. */
    if (server.active_expire_enabled && expiryAllowed()) expireDueKeys(backgroundWorkLeftUs());
    return AE_NOMORE;
}

void pauseClientsFor(int purpose, int type, long long end_ms) {
    if (type > purposes[purpose].type) purposes[purpose].type = type;
    if (end_ms > purposes[purpose].end_ms) purposes[purpose].end_ms = end_ms;
    updatePause();
    if (pause_timer_id == -1) pause_timer_id = aeCreateTimeEvent(server.el, 0, pauseTimerProc, NULL);
    long long now = mstime(), next = 0;
    for (int p = 0; p < PAUSE_PURPOSES; p++)
        if (purposes[p].type && (!next || purposes[p].end_ms < next)) next = purposes[p].end_ms;
    aeRescheduleTimeEventUs(server.el, pause_timer_id, next > now ? capDelay(next - now) * 1000 : 0);
}

void unpauseClientsFor(int purpose) {
    purposes[purpose].type = 0;
    purposes[purpose].end_ms = 0;
    updatePause();
}

void pauseClients(int type, long long end_ms) { pauseClientsFor(PAUSE_BY_CLIENT_COMMAND, type, end_ms); }
void unpauseClients(void) { unpauseClientsFor(PAUSE_BY_CLIENT_COMMAND); }


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
    if (!server.pause_type) return 0;
    /* A MONITOR connection is a replica to Redis, and replicas (their ACKs) are never paused. */
    if (c->flags & (CLIENT_MONITOR | CLIENT_SLAVE | CLIENT_LUA | CLIENT_AOF)) return 0;
    return server.pause_type == PAUSE_ALL || commandMayWrite(c);
}
