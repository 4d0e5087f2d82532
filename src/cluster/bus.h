/* bus: the cluster bus's connections — the listeners on the bus port, links
 * in and out, their buffers, and the framing of messages (an 8-byte start,
 * "RCmb" and the total length, checked before anything is kept). What a
 * message means is gossip.c's. */
#ifndef CLUSTER_BUS_H
#define CLUSTER_BUS_H

#include "cluster/state.h"

/* The port clients of this node are told first: tls-port with tls-cluster, else port. */
int clusterDataPort(void);
/* The bus port of this node: cluster-port, or clusterDataPort() + 10000. */
int clusterBusPort(void);
/* Listens on every bind address at the bus port; C_ERR (logged) when it cannot. */
int clusterBusListen(void);
void clusterBusClose(void);

clusterLink *createClusterLink(clusterNode *node);
void freeClusterLink(clusterLink *link);
/* Starts an outbound link to node (non-blocking connect); C_ERR when the
 * connect could not even start. The first message goes once it is up. */
int clusterConnectNode(clusterNode *node);
/* Queues bytes on a link (written when the socket takes them). */
void clusterSendRaw(clusterLink *link, const void *buf, size_t len);
size_t clusterLinkPending(const clusterLink *link);
/* Links whose unsent bytes pass cluster-link-sendbuf-limit are freed (counted). */
void clusterCheckLinkBuffers(void);
/* Bytes of memory the links hold (INFO mem_cluster_links). */
size_t clusterLinksMemory(void);

#endif
