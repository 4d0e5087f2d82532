/* client: creating, reading from, writing to and freeing client connections. */
#ifndef SERVER_CLIENT_H
#define SERVER_CLIENT_H

#include "server/server.h"

client *createClient(int fd);          /* fd -1: a fake client (scripts, AOF loading) */
void freeClient(client *c);
void freeClientAsync(client *c);
void freeClientsInAsyncFreeQueue(void);
void resetClient(client *c);
void freeClientArgv(client *c);         /* also frees the original argv, if one was kept */
void freeClientOriginalArgv(client *c);
void acceptTcpHandler(aeEventLoop *el, int fd, void *privdata, int mask);
/* The TLS port's listeners: each accepted fd handshakes first (server/tls.h). */
void acceptTlsHandler(aeEventLoop *el, int fd, void *privdata, int mask);
void acceptUnixHandler(aeEventLoop *el, int fd, void *privdata, int mask);
int handleClientsWithPendingWrites(void);
void processInputBuffer(client *c);
/* After a command of the master's stream ran (not postponed by a pause, not
 * inside a transaction): its bytes go on to repl, which counts the offset. */
void feedMasterStreamIfDone(client *c);
/* C_OK when c takes replies now (queueing it for writing), C_ERR when they
 * are to be dropped. A client already queued, with nothing that withholds
 * its replies, is answered here: this runs for every piece of every reply. */
int prepareClientToWriteSlow(client *c);
static inline int prepareClientToWrite(client *c) {
    if ((c->flags & (CLIENT_PENDING_WRITE | CLIENT_CLOSE_ASAP | CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_LUA |
                     CLIENT_AOF | CLIENT_MASTER | CLIENT_REPLICA_CMD)) == CLIENT_PENDING_WRITE &&
        c->fd != -1)
        return C_OK;
    return prepareClientToWriteSlow(c);
}
int clientHasPendingReplies(client *c);
/* Queues c for writing (a replica with new stream in the shared buffer). */
void clientScheduleWrite(client *c);
/* The reply queued for c and not sent yet, as one string; c's buffers are left
 * empty (what a command run by a script replied; a debugging child's last reply). */
sds clientTakeReply(client *c);
void checkClientOutputBufferLimits(client *c);
unsigned long getClientOutputBufferMemoryUsage(client *c);
int getClientType(client *c);
int getClientTypeByName(const char *name);
const char *getClientTypeName(int class);
sds catClientInfoString(sds s, client *c);
sds getAllClientsInfoString(int type);
client *lookupClientByID(uint64_t id);
void clientsCron(void);
void replaceClientCommandVector(client *c, int argc, robj **argv);
void rewriteClientCommandVector(client *c, int argc, ...);
/* Show argv[argc] as "(redacted)" in MONITOR and SLOWLOG (the command still sees the secret). */
void redactClientCommandArgument(client *c, int argc);
void closeListeningSockets(int unlink_unix_socket);
/* At exit: writes what the socket takes of each replica's pending output. */
void flushReplicaOutputBuffers(void);
/* enable-debug-command / enable-module-command / enable-protected-configs:
 * 1 when the setting (PROTECTED_ACTION_ALLOWED_NO, _YES, or _LOCAL: local
 * connections only) lets this client do it. */
int commandEnabledFor(client *c, int setting);

#endif
