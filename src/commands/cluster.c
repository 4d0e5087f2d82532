/* cluster: the cluster and failover commands of a standalone server. This
 * server runs without cluster support and without replicas, so it answers
 * them as Redis 7.0 does in that state: cluster commands report that cluster
 * support is disabled, FAILOVER that there is no replica to fail over to —
 * after checking its arguments the same way. */
#include "commands/cmdargs.h"
#include "server/reply.h"
#include "server/server.h"

#include <strings.h>

static void clusterDisabled(client *c) { addReplyError(c, "This instance has cluster support disabled"); }

void askingCommand(client *c) { clusterDisabled(c); }
void readonlyCommand(client *c) { clusterDisabled(c); }
void readwriteCommand(client *c) { clusterDisabled(c); }

void clusterAddslotsCommand(client *c) { clusterDisabled(c); }
void clusterAddslotsrangeCommand(client *c) { clusterDisabled(c); }
void clusterBumpepochCommand(client *c) { clusterDisabled(c); }
void clusterCountFailureReportsCommand(client *c) { clusterDisabled(c); }
void clusterCountkeysinslotCommand(client *c) { clusterDisabled(c); }
void clusterDelslotsCommand(client *c) { clusterDisabled(c); }
void clusterDelslotsrangeCommand(client *c) { clusterDisabled(c); }
void clusterFailoverCommand(client *c) { clusterDisabled(c); }
void clusterFlushslotsCommand(client *c) { clusterDisabled(c); }
void clusterForgetCommand(client *c) { clusterDisabled(c); }
void clusterGetkeysinslotCommand(client *c) { clusterDisabled(c); }
void clusterHelpCommand(client *c) { clusterDisabled(c); }
void clusterInfoCommand(client *c) { clusterDisabled(c); }
void clusterKeyslotCommand(client *c) { clusterDisabled(c); }
void clusterLinksCommand(client *c) { clusterDisabled(c); }
void clusterMeetCommand(client *c) { clusterDisabled(c); }
void clusterMyidCommand(client *c) { clusterDisabled(c); }
void clusterNodesCommand(client *c) { clusterDisabled(c); }
void clusterReplicasCommand(client *c) { clusterDisabled(c); }
void clusterReplicateCommand(client *c) { clusterDisabled(c); }
void clusterResetCommand(client *c) { clusterDisabled(c); }
void clusterSaveconfigCommand(client *c) { clusterDisabled(c); }
void clusterSetConfigEpochCommand(client *c) { clusterDisabled(c); }
void clusterSetslotCommand(client *c) { clusterDisabled(c); }
void clusterShardsCommand(client *c) { clusterDisabled(c); }
void clusterSlavesCommand(client *c) { clusterDisabled(c); }
void clusterSlotsCommand(client *c) { clusterDisabled(c); }

/* FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms] */
void failoverCommand(client *c) {
    int to = 0, force = 0, abort = 0, timeout_given = 0;
    long long port, timeout = 0;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "to") && !to && j + 2 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 2], &port, NULL) != C_OK) return;
            to = 1;
            j += 2;
        } else if (!strcasecmp(opt, "timeout") && !timeout_given && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &timeout, NULL) != C_OK) return;
            timeout_given = 1;
            j++;
        } else if (!strcasecmp(opt, "force") && !force) {
            force = 1;
        } else if (!strcasecmp(opt, "abort") && !abort) {
            abort = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (abort && (to || force || timeout_given)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (abort) {
        addReplyError(c, "No failover in progress.");
    } else if (timeout_given && timeout <= 0) {
        addReplyError(c, "FAILOVER timeout must be greater than 0");
    } else {
        addReplyError(c, "FAILOVER requires connected replicas.");
    }
}
