/* cluster: the cluster commands of a standalone server. This server runs
 * without cluster support, so it answers them as Redis 7.0 does in that
 * state: cluster support is disabled. (FAILOVER is repl/failover.c.) */
#include "server/reply.h"
#include "server/server.h"

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
