/* fuzz_cluster_bus: libFuzzer target for the cluster bus's messages
 * (cluster/gossip.c, clusterProcessMessage): any bytes a peer can send once
 * the framing let them through (the "RCmb" signature and a total length equal
 * to what arrived, which bus.c checks first). Every type's length checks,
 * gossip sections, extensions, slot claims, UPDATE, FAIL, PUBLISH, votes and
 * manual-failover messages must cope with anything: drop and log, never read
 * past the message, never crash. The first input byte picks the link: an
 * unnamed inbound one, or one of a known peer (so the paths of a known
 * sender run too); the state carries over between inputs, as a node's does
 * between messages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/bus.h"
#include "cluster/cluster.h"
#include "cluster/gossip.h"
#include "cluster/state.h"
#include "core/ae.h"
#include "core/zmalloc.h"
#include "server/db.h"
#include "server/server.h"

/* The peer every seed names as its sender (make_seeds.py's PEER). */
static const char peer_name[] = "fuzzpeer00000000000000000000000000000000";

static void setup(void) {
    server.verbosity = LL_WARNING + 1; /* the drop lines are expected, not output */
    server.cluster_enabled = 1;
    server.cluster_node_timeout = 15000;
    server.el = aeCreateEventLoop(1024);
    server.dbnum = 16;
    initDatabases(); /* db 0 with its slot index: lost slots' keys are deleted */
    clusterInitState();
    myself = createClusterNode(NULL, NODE_MYSELF | NODE_MASTER);
    clusterAddNode(myself);
    for (int j = 0; j < CLUSTER_SLOTS / 2; j++) clusterAddSlot(myself, j);
    clusterNode *peer = createClusterNode(peer_name, NODE_MASTER);
    memcpy(peer->ip, "127.0.0.1", 10);
    peer->port = 30001;
    peer->cport = 40001;
    clusterAddNode(peer);
    for (int j = CLUSTER_SLOTS / 2; j < CLUSTER_SLOTS; j++) clusterAddSlot(peer, j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int ready;
    if (!ready) {
        setup();
        ready = 1;
    }
    if (size < 1 + MSG_MIN_LEN) return 0;
    size_t len = size - 1;
    /* A private copy without slack, so reading one byte too far is caught. */
    unsigned char *m = malloc(len);
    memcpy(m, data + 1, len);
    memcpy(m, "RCmb", 4);
    m[4] = (unsigned char)(len >> 24), m[5] = (unsigned char)(len >> 16);
    m[6] = (unsigned char)(len >> 8), m[7] = (unsigned char)len;
    clusterNode *peer = clusterLookupNode(peer_name, CLUSTER_NAMELEN);
    clusterLink *link = createClusterLink((data[0] & 1) && peer ? peer : NULL);
    link->inbound = !(data[0] & 1) || !peer;
    if (!link->inbound) peer->link = link;
    if (clusterProcessMessage(link, m, (uint32_t)len)) freeClusterLink(link);
    free(m);
    return 0;
}
