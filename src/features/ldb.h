/* ldb: the Lua debugger for EVAL scripts (SCRIPT DEBUG YES|SYNC|NO), as Redis
 * 7.0 has it and redis-cli --ldb drives it. A client that asked for it gets its
 * next EVAL run under the debugger: in a forked child (YES: the dataset changes
 * die with the child) or in the server itself (SYNC: the server waits on the
 * debugger, changes stay). The session talks on the client's own socket, one
 * array of status lines per step, until "<endsession>" and the EVAL reply.
 * scripting.c asks it to start and end sessions, installs its hook and lets
 * redis.call report what it runs. */
#ifndef FEATURES_LDB_H
#define FEATURES_LDB_H

#include "server/server.h"

#include <stddef.h>

struct lua_State;

void scriptDebugCommand(client *c); /* SCRIPT DEBUG */
/* EVAL from a client that asked for debugging, before anything else is
 * checked: 1 when this process runs the script under the debugger (the forked
 * child, or the server in sync mode), 0 when it must not run it (the parent of
 * a forked session; or the fork failed, and c has its error). */
int ldbStartSession(client *c);
/* Once the EVAL reply is queued: a forked child sends it and exits; in sync
 * mode the connection is closed after it. */
void ldbEndSession(client *c);
int ldbIsActive(void);
/* The hook a debugged script runs with: stops at steps, breakpoints,
 * redis.breakpoint() and the busy-script timeout, and talks with the client. */
void ldbInstallHook(struct lua_State *L);
/* Stepping: redis.call logs its command, the errors raised and the reply. */
int ldbIsStepping(void);
void ldbLogRedisCommand(robj **argv, int argc);
void ldbLogRedisReply(const char *resp); /* one RESP reply */
void ldbLogError(const char *err, size_t len);
/* Adds redis.debug() and redis.breakpoint() to the table at index (EVAL's redis table). */
void ldbRegisterApi(struct lua_State *L, int index);
void ldbCron(void);               /* reaps forked sessions that ended */
void ldbKillForkedSessions(void); /* on shutdown */

#endif
