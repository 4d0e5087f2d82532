/* scripting: Lua 5.1 scripts — EVAL/EVALSHA(_RO), SCRIPT, the redis.* API,
 * the sandbox, busy-script handling — and the pieces features/functions.c
 * (FUNCTION, FCALL) shares: interpreters and the script runner. */
#ifndef FEATURES_SCRIPTING_H
#define FEATURES_SCRIPTING_H

#include "server/server.h"

struct lua_State;

/* Flags a script declares (shebang "flags=", function flags). */
#define SCRIPT_FLAG_NO_WRITES (1 << 0)
#define SCRIPT_FLAG_ALLOW_OOM (1 << 1)
#define SCRIPT_FLAG_ALLOW_STALE (1 << 2)
#define SCRIPT_FLAG_NO_CLUSTER (1 << 3)
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1 << 4)
/* The flags were declared: not EVAL's compatibility mode (checks happen up front). */
#define SCRIPT_FLAG_SHEBANG (1 << 7)

void scriptingInit(void);
/* EVAL's script cache: how many scripts, and the bytes of their bodies and table. */
void scriptingCacheStats(size_t *count, size_t *bytes);
/* Bytes a Lua interpreter holds; scriptingVmMemory: EVAL's. */
size_t scriptingLuaMemory(struct lua_State *L);
size_t scriptingVmMemory(void);
/* The flags of an EVAL, EVALSHA or FCALL command (any other: flags) as its
 * code declares them (shebang, function flags): write and deny-oom unless
 * no-writes or allow-oom, stale with allow-stale, no may-replicate; the
 * pipeline checks a script against these before it runs. */
uint64_t scriptingCommandFlags(client *c, uint64_t flags);
/* A script has been running past busy-reply-threshold: other clients get -BUSY. */
int scriptIsTimedout(void);
int scriptIsRunning(void);
/* The running script's clock: milliseconds since it started, or since the
 * debugger last let it go on (time at the debugger's prompt is not the script's). */
long long scriptingElapsedMs(void);
void scriptingRestartClock(void);
/* The -BUSY error for the running script: it names SCRIPT KILL or FUNCTION KILL. */
robj *scriptBusyError(void);
/* Before BUSY is answered: commands allowed while a script is stuck. */
int scriptAllowsWhileBusy(client *c);

/* A sandboxed interpreter with the libraries and the redis API; its read-only
 * globals proxy is what loaded code must get as environment. */
struct lua_State *scriptingNewInterpreter(void);
void scriptingSetGlobalsEnv(struct lua_State *L, int index); /* setfenv(index, globals proxy) */
/* Runs the function below the top `nargs` values of L for client c and
 * replies with its result; errors say "script: <name>, on <source>:<line>.". */
void scriptingRun(client *c, struct lua_State *L, const char *name, int nargs, int flags, int ro_cmd,
                  int is_function);
void scriptingKill(client *c, int is_eval);          /* SCRIPT KILL / FUNCTION KILL */
/* EVAL/FCALL argument handling: the MONITOR line (shown before the script's
 * commands), numkeys at argv[2] (replies the error and returns C_ERR), and
 * KEYS/ARGV-style tables. */
void scriptingFeedMonitor(client *c);
int scriptingGetNumkeys(client *c, const char *not_integer_error, long long *numkeys);
void scriptingPushStringArray(struct lua_State *L, robj **elev, int elec);
void scriptingReplyRunningScript(client *c);         /* FUNCTION STATS running_script */
int scriptingRaiseError(struct lua_State *L, const char *err); /* raises {err="ERR <err>"} */
int scriptingErrorHandler(struct lua_State *L);      /* pcall handler: {err, source, line} */
/* A table reading from the one at real_index, refusing writes; strict: unknown names raise. */
void scriptingPushReadonlyProxy(struct lua_State *L, int real_index, int strict);

#endif
