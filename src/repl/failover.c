/* failover: the FAILOVER command, as Redis 7.0 coordinates a switch of roles
 * between a master and one of its replicas without losing a write. Writes
 * are paused; once a replica (the one named with TO, or any) acknowledged
 * the whole stream, this server becomes its replica and asks it, with
 * PSYNC <replid> <offset> FAILOVER, to take over: the replica turns master
 * (its new history continues ours) and answers +CONTINUE. Then the pause
 * ends — the writes held meanwhile meet a replica and get -READONLY. With
 * TIMEOUT the wait for the acknowledgement is bounded; FORCE then switches
 * anyway. ABORT, a refused PSYNC or a failed link give the master role back. */
#include "repl/internal.h"
#include "server/cmdargs.h"
#include "core/zmalloc.h"
#include "server/hooks.h"
#include "server/pause.h"
#include "server/reply.h"

#include <limits.h>
#include <strings.h>

static struct {
    int state;
    long long end_ms; /* 0: no timeout */
    int force;
    char *host;       /* the target; NULL until chosen (FAILOVER without TO) */
    int port;
} fo;

int failoverState(void) { return fo.state; }

const char *failoverStateName(void) {
    static const char *names[] = {"no-failover", "waiting-for-sync", "failover-in-progress"};
    return names[fo.state];
}

static void clearFailover(void) {
    fo.state = FAILOVER_NONE;
    fo.end_ms = 0;
    fo.force = 0;
    zfree(fo.host);
    fo.host = NULL;
    unpauseClientsFor(PAUSE_DURING_FAILOVER);
}

void failoverAbort(const char *why) {
    if (fo.state == FAILOVER_NONE) return;
    if (fo.host) serverLog(LL_NOTICE, "FAILOVER to %s:%d aborted: %s", fo.host, fo.port, why);
    else serverLog(LL_NOTICE, "FAILOVER to any replica aborted: %s", why);
    if (fo.state == FAILOVER_IN_PROGRESS) replicaUnsetMaster();
    clearFailover();
}

/* The target answered our PSYNC ... FAILOVER. */
void failoverPsyncAnswered(int accepted) {
    if (fo.state != FAILOVER_IN_PROGRESS) return;
    if (accepted) clearFailover();
    else failoverAbort("Failover target rejected psync request");
}

static void switchTo(int timed_out) {
    fo.state = FAILOVER_IN_PROGRESS;
    if (timed_out) serverLog(LL_NOTICE, "FAILOVER to %s:%d time out exceeded, failing over.", fo.host, fo.port);
    else serverLog(LL_NOTICE, "Failover target %s:%d is synced, failing over.", fo.host, fo.port);
    replicaSetMaster(fo.host, fo.port);
}

/* Before each sleep: a replica caught up (or the timeout came) moves the failover on. */
void failoverBeforeSleep(void) {
    if (fo.state != FAILOVER_WAIT_FOR_SYNC) return;
    if (fo.end_ms && fo.end_ms <= server.mstime) {
        if (fo.force) switchTo(1);
        else failoverAbort("Replica never caught up before timeout");
        return;
    }
    if (fo.host) {
        long long ack;
        if (replFindReplica(fo.host, fo.port, NULL, &ack) && ack == replId.offset) switchTo(0);
        return;
    }
    char ip[NET_IP_STR_LEN];
    int port;
    if (replCaughtUpReplica(ip, sizeof(ip), &port)) {
        fo.host = zstrdup(ip);
        fo.port = port;
        switchTo(0);
    }
}

/* FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] */
void failoverCommand(client *c) {
    if (server.cluster_enabled) { /* a cluster fails over by its own election */
        addReplyError(c, "FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.");
        return;
    }
    if (c->argc == 2 && !strcasecmp(objectPtr(c->argv[1]), "abort")) {
        if (fo.state == FAILOVER_NONE) {
            addReplyError(c, "No failover in progress.");
            return;
        }
        failoverAbort("Failover manually aborted");
        addReply(c, shared.ok);
        return;
    }
    long long timeout = 0, port = 0;
    int force = 0;
    const char *host = NULL;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = objectPtr(c->argv[j]);
        if (!strcasecmp(opt, "timeout") && j + 1 < c->argc && timeout == 0) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &timeout, NULL) != C_OK) return;
            if (timeout <= 0) {
                addReplyError(c, "FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (!strcasecmp(opt, "to") && j + 2 < c->argc && !host) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 2], &port, NULL) != C_OK) return;
            host = objectPtr(c->argv[j + 1]);
            j += 2;
        } else if (!strcasecmp(opt, "force") && !force) {
            force = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (fo.state != FAILOVER_NONE) {
        addReplyError(c, "FAILOVER already in progress.");
        return;
    }
    if (server.masterhost_set) {
        addReplyError(c, "FAILOVER is not valid when server is a replica.");
        return;
    }
    if (replReplicaCount() == 0) {
        addReplyError(c, "FAILOVER requires connected replicas.");
        return;
    }
    if (force && (!timeout || !host)) {
        addReplyError(c, "FAILOVER with force option requires both a timeout and target HOST and IP.");
        return;
    }
    if (host) {
        int online;
        if (port < 0 || port > INT_MAX || !replFindReplica(host, (int)port, &online, NULL)) {
            addReplyError(c, "FAILOVER target HOST and PORT is not a replica.");
            return;
        }
        if (!online) {
            addReplyError(c, "FAILOVER target replica is not online.");
            return;
        }
        fo.host = zstrdup(host);
        fo.port = (int)port;
        serverLog(LL_NOTICE, "FAILOVER requested to %s:%lld.", host, port);
    } else {
        serverLog(LL_NOTICE, "FAILOVER requested to any replica.");
    }
    fo.end_ms = timeout ? server.mstime + timeout : 0;
    fo.force = force;
    fo.state = FAILOVER_WAIT_FOR_SYNC;
    /* Held until the switch: about ten years, far from overflowing the timer. */
    pauseClientsFor(PAUSE_DURING_FAILOVER, PAUSE_WRITE, server.mstime + 315360000000LL);
    addReply(c, shared.ok);
}

