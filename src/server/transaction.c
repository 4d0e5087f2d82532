/* transaction: the MULTI queue the pipeline keeps per client. Queueing is a
 * step of processCommand (after every refusal, before running), so it lives
 * in server/; MULTI/EXEC/WATCH themselves are features/multi.c, which
 * subscribes to the end of a transaction to drop the client's WATCHes. */
#include "server/transaction.h"
#include "server/hooks.h"
#include "core/zmalloc.h"

void initClientMultiState(client *c) {
    c->mstate.commands = NULL;
    c->mstate.count = 0;
    c->mstate.alloc_count = 0;
    c->mstate.cmd_flags = 0;
    c->mstate.cmd_inv_flags = 0;
    c->mstate.argv_len_sums = 0;
}

void freeClientMultiState(client *c) {
    for (int j = 0; j < c->mstate.count; j++) {
        multiCmd *mc = &c->mstate.commands[j];
        for (int i = 0; i < mc->argc; i++) decrRefCount(mc->argv[i]);
        zfree(mc->argv);
    }
    zfree(c->mstate.commands);
    initClientMultiState(c);
}

void queueMultiCommand(client *c) {
    /* Once aborted there is no point in keeping more commands. */
    if (c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) return;
    /* A script or function counts with the flags it declares: one declaring
     * no-writes never writes (EXEC of it is not held by CLIENT PAUSE WRITE),
     * one that may write makes EXEC a write (refused on a read-only replica). */
    uint64_t flags = commandFlags(c);
    /* Room for two to start with (a transaction is rarely shorter), then doubled. */
    if (c->mstate.count == c->mstate.alloc_count) {
        c->mstate.alloc_count = c->mstate.alloc_count ? c->mstate.alloc_count * 2 : 2;
        c->mstate.commands = zrealloc(c->mstate.commands, sizeof(multiCmd) * c->mstate.alloc_count);
    }
    c->mstate.argv_len_sums += c->argv_len_sum + sizeof(robj *) * (size_t)c->argc;
    multiCmd *mc = &c->mstate.commands[c->mstate.count++];
    mc->cmd = c->cmd;
    mc->argc = c->argc;
    mc->argv = c->argv;
    /* The queue now owns argv. */
    c->argv = NULL;
    c->argc = 0;
    c->argv_len = 0;
    c->argv_len_sum = 0;
    c->mstate.cmd_flags |= (int)(flags & 0x7fffffff);
    c->mstate.cmd_inv_flags |= (int)(~flags & 0x7fffffff);
}

void discardTransaction(client *c) {
    freeClientMultiState(c);
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    runTransactionEnd(c);
}

void flagTransaction(client *c) {
    if (c->flags & CLIENT_MULTI) c->flags |= CLIENT_DIRTY_EXEC;
}
