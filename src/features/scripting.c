/* scripting: Lua 5.1 scripting as Redis 7.0 has it (see scripting.h).
 *
 * Scripts run in one shared interpreter. Their globals are a read-only proxy:
 * reads of unknown names and every write raise Redis's errors, library tables
 * are proxied the same way (so is the string type's metatable), and the raw
 * accessors, getmetatable, pairs/next, load/loadstring (which also refuse
 * bytecode) are wrapped so the real tables cannot be reached. unpack and
 * bit.tohex are guarded as Redis guards its own Lua copy. redis.call runs
 * commands through a fake client and converts the RESP reply it produced into
 * Lua values; the script's return value is converted back. A count hook
 * watches the clock: past busy-reply-threshold other clients are served
 * -BUSY, and SCRIPT KILL works for scripts that have not written. */
#include "cluster/cluster.h"
#include "features/functions.h"
#include "features/scripting.h"
#include "features/ldb.h"
#include "features/lua_libs.h"
#include "features/monitor.h"
#include "server/access.h"
#include "server/lifecycle.h"
#include "server/dispatch.h"
#include "server/command.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/reply.h"
#include "core/clock.h"
#include "core/crc16.h"
#include "core/numparse.h"
#include "core/zmalloc.h"
#include "server/propagate.h"
#include "server/evict.h"
#include "server/lazyfree.h"

#include <ctype.h>
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <math.h>
#include <sha1.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* redis.set_repl()'s flags are the command stream's targets. */
#define REPL_NONE PROPAGATE_NONE
#define REPL_AOF PROPAGATE_AOF
#define REPL_REPLICA PROPAGATE_REPL
#define REPL_ALL PROPAGATE_ALL

static lua_State *lua;
static dict *scripts;     /* sha (sds) → body (sds), scriptMeta in the entry */
static client *lua_client;

size_t scriptingLuaMemory(lua_State *L) {
    return L ? (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0) : 0;
}

size_t scriptingVmMemory(void) { return scriptingLuaMemory(lua); }

void scriptingCacheStats(size_t *count, size_t *bytes) {
    *count = scripts ? dictSize(scripts) : 0;
    *bytes = 0;
    if (!scripts) return;
    *bytes = dictMemUsage(scripts);
    dictIterator *di = dictGetIterator(scripts);
    dictEntry *de;
    while ((de = dictNext(di))) *bytes += sdsAllocSize(dictGetKey(de)) + sdsAllocSize(dictGetVal(de));
    dictReleaseIterator(di);
}
/* Each interpreter keeps the read-only proxy its code sees as globals here. */
#define GLOBALS_PROXY_KEY "__script_globals"

static struct {
    client *caller;
    const char *name; /* the sha, or the function's name */
    monotime start;
    int running, timedout, killed, wrote, readonly, resp, repl, flags, is_function;
    int slot; /* cluster mode: the slot of the keys touched so far (-1: none yet) */
} run;

/* ------------------------------------------------------------ deterministic PRNG */

/* The POSIX drand48 recurrence, so math.random gives the same sequence Redis gives. */
/* Before any seeding, the state POSIX specifies (and Redis starts from). */
static uint64_t rand48_x = 0x1234ABCD330EULL;
static void redisSrand48(int32_t seed) { rand48_x = (((uint64_t)(uint32_t)seed) << 16) | 0x330E; }
static int32_t redisLrand48(void) {
    rand48_x = (0x5DEECE66DULL * rand48_x + 0xB) & ((1ULL << 48) - 1);
    return (int32_t)(rand48_x >> 17);
}

static int mathRandom(lua_State *L) {
    lua_Number r = (lua_Number)(redisLrand48() % 2147483647) / (lua_Number)2147483647;
    switch (lua_gettop(L)) {
    case 0: lua_pushnumber(L, r); break;
    case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(L, 1), u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, floor(r * (u - l + 1)) + l);
        break;
    }
    default: return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int mathRandomseed(lua_State *L) {
    redisSrand48((int32_t)luaL_checkint(L, 1));
    return 0;
}

/* ------------------------------------------------------------------- errors */

/* Pushes the error table {err = "CODE message"} the way Redis builds it:
 * "-CODE msg" keeps its code, anything else gets "ERR". */
static void pushErrorTable(lua_State *L, const char *err, size_t len) {
    if (ldbIsStepping()) ldbLogError(err, len);
    sds full;
    if (len && err[0] == '-') {
        const char *space = memchr(err, ' ', len);
        if (!space) full = sdscatlen(sdsnew("ERR "), err + 1, len - 1);
        else full = sdsnewlen(err + 1, len - 1);
    } else {
        full = sdscatlen(sdsnew("ERR "), err, len);
    }
    /* One line only. */
    for (size_t i = 0; i < sdslen(full); i++)
        if (full[i] == '\r' || full[i] == '\n') full[i] = ' ';
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushlstring(L, full, sdslen(full));
    lua_settable(L, -3);
    sdsfree(full);
}

static int raiseError(lua_State *L, const char *err) {
    pushErrorTable(L, err, strlen(err));
    return lua_error(L);
}

int scriptingRaiseError(lua_State *L, const char *err) { return raiseError(L, err); }

/* Message handler: turn any error into {err, source, line} at the failing Lua frame. */
static int errorHandler(lua_State *L) {
    lua_Debug ar;
    int have = 0;
    if (lua_getstack(L, 1, &ar)) {
        lua_getinfo(L, "Sl", &ar);
        have = 1;
        if (!strcmp(ar.what, "C")) have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
    }
    if (!lua_istable(L, 1)) {
        const char *msg = lua_tostring(L, 1);
        sds s = sdscat(sdsnew("ERR "), msg ? msg : "nil");
        if (!msg && lua_isboolean(L, 1)) {
            sdsfree(s);
            s = sdsnew(lua_toboolean(L, 1) ? "ERR true" : "ERR false");
        }
        lua_newtable(L);
        lua_pushstring(L, "err");
        lua_pushlstring(L, s, sdslen(s));
        lua_settable(L, -3);
        sdsfree(s);
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    if (have) {
        lua_pushstring(L, "source");
        lua_pushstring(L, ar.source);
        lua_settable(L, 1);
        lua_pushstring(L, "line");
        lua_pushinteger(L, ar.currentline);
        lua_settable(L, 1);
    }
    lua_settop(L, 1);
    return 1;
}

int scriptingErrorHandler(lua_State *L) { return errorHandler(L); }

/* ----------------------------------------------------------- RESP → Lua */

/* redis.call gets the reply the command produced on the script client, in
 * the protocol the script chose with redis.setresp: RESP2 (nil bulk and nil
 * array → false) or RESP3 (null → nil, maps {map=...}, sets {set=...},
 * doubles {double=n}, booleans, big numbers {big_number=s}, verbatim strings
 * {verbatim_string={format=, string=}}). Attributes are dropped. */

static const char *respToLua(lua_State *L, const char *p);

static const char *respLine(const char *p, long long *ll) {
    const char *crlf = strchr(p, '\r');
    string2ll(p + 1, crlf - p - 1, ll);
    return crlf + 2;
}

/* Sets t[field] = the value on top of the stack (popped); t is below it. */
static void setFieldFromTop(lua_State *L, const char *field) {
    lua_pushstring(L, field);
    lua_insert(L, -2);
    lua_settable(L, -3);
}

static const char *respArrayToLua(lua_State *L, const char *p, long long n) {
    lua_newtable(L);
    for (long long j = 1; j <= n; j++) {
        lua_pushnumber(L, (lua_Number)j);
        p = respToLua(L, p);
        lua_settable(L, -3);
    }
    return p;
}

/* {map = {k = v, ...}} or, for sets, {set = {member = true, ...}}. */
static const char *respMapOrSetToLua(lua_State *L, const char *p, long long n, int is_map) {
    lua_newtable(L);
    lua_newtable(L);
    for (long long j = 0; j < n; j++) {
        p = respToLua(L, p);
        if (is_map) p = respToLua(L, p);
        else lua_pushboolean(L, 1);
        lua_settable(L, -3);
    }
    setFieldFromTop(L, is_map ? "map" : "set");
    return p;
}

/* Converts one reply at p; returns the position after it. */
static const char *respToLua(lua_State *L, const char *p) {
    long long ll;
    const char *crlf = strchr(p, '\r');
    luaL_checkstack(L, 4, "reply too deep");
    switch (*p) {
    case '+':
        lua_newtable(L);
        lua_pushlstring(L, p + 1, crlf - p - 1);
        setFieldFromTop(L, "ok");
        return crlf + 2;
    case '-': pushErrorTable(L, p, crlf - p); return crlf + 2;
    case ':':
        p = respLine(p, &ll);
        lua_pushnumber(L, (lua_Number)ll);
        return p;
    case '$':
        p = respLine(p, &ll);
        if (ll < 0) {
            lua_pushboolean(L, 0);
            return p;
        }
        lua_pushlstring(L, p, ll);
        return p + ll + 2;
    case '*':
    case '>':
        p = respLine(p, &ll);
        if (ll < 0) {
            lua_pushboolean(L, 0);
            return p;
        }
        return respArrayToLua(L, p, ll);
    case '%': p = respLine(p, &ll); return respMapOrSetToLua(L, p, ll, 1);
    case '~': p = respLine(p, &ll); return respMapOrSetToLua(L, p, ll, 0);
    case '_': lua_pushnil(L); return crlf + 2;
    case '#': lua_pushboolean(L, p[1] == 't'); return crlf + 2;
    case ',': {
        sds num = sdsnewlen(p + 1, crlf - p - 1);
        lua_newtable(L);
        lua_pushnumber(L, strtod(num, NULL));
        setFieldFromTop(L, "double");
        sdsfree(num);
        return crlf + 2;
    }
    case '(':
        lua_newtable(L);
        lua_pushlstring(L, p + 1, crlf - p - 1);
        setFieldFromTop(L, "big_number");
        return crlf + 2;
    case '=':
        /* "=<len>\r\n<fmt>:<payload>\r\n" */
        p = respLine(p, &ll);
        lua_newtable(L);
        lua_newtable(L);
        lua_pushlstring(L, p, ll >= 3 ? 3 : (size_t)ll);
        setFieldFromTop(L, "format");
        lua_pushlstring(L, ll > 4 ? p + 4 : p, ll > 4 ? (size_t)ll - 4 : 0);
        setFieldFromTop(L, "string");
        setFieldFromTop(L, "verbatim_string");
        return p + ll + 2;
    case '|':
        /* An attribute map precedes the real reply: skip it. */
        p = respLine(p, &ll);
        for (long long j = 0; j < ll * 2; j++) {
            p = respToLua(L, p);
            lua_pop(L, 1);
        }
        return respToLua(L, p);
    }
    lua_pushboolean(L, 0);
    return crlf ? crlf + 2 : p + strlen(p);
}

/* ------------------------------------------------------------ Lua → reply */

static void luaReplyToClient(client *c, lua_State *L);

static int tableField(lua_State *L, const char *name, int type) {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    if (lua_type(L, -1) == type) return 1;
    lua_pop(L, 1);
    return 0;
}

/* Nesting is bounded only by the Lua stack, as in Redis: a self-referencing
 * or very deep table ends in an error element once no room is left for the
 * (at most 4) values a level pushes, instead of overflowing the stack. */
static void luaReplyToClient(client *c, lua_State *L) {
    if (!lua_checkstack(L, 4)) {
        addReplyError(c, "reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        addReplyBulkCBuffer(c, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        /* In RESP2 scripts false means null; RESP3 scripts have real booleans. */
        if (run.resp == 2) {
            if (lua_toboolean(L, -1)) addReply(c, shared.cone);
            else addReplyNull(c);
        } else {
            addReplyBool(c, lua_toboolean(L, -1));
        }
        break;
    case LUA_TNUMBER: addReplyLongLong(c, (long long)lua_tonumber(L, -1)); break;
    case LUA_TTABLE:
        if (tableField(L, "err", LUA_TSTRING)) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            sds err = sdscatlen(sdsnew("-"), s, len);
            lua_pushliteral(L, "ignore_error_stats_update");
            lua_rawget(L, -3);
            /* A redis.pcall() error returned as is was counted where it arose. */
            if (lua_toboolean(L, -1)) addReplyErrorSdsCounted(c, err);
            else addReplyErrorSds(c, err);
            lua_pop(L, 2);
        } else if (tableField(L, "ok", LUA_TSTRING)) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            sds st = sdsnewlen(s, len);
            for (size_t i = 0; i < sdslen(st); i++)
                if (st[i] == '\r' || st[i] == '\n') st[i] = ' ';
            addReplyStatusLength(c, st, sdslen(st));
            sdsfree(st);
            lua_pop(L, 1);
        } else if (tableField(L, "double", LUA_TNUMBER)) {
            addReplyDouble(c, lua_tonumber(L, -1));
            lua_pop(L, 1);
        } else if (tableField(L, "big_number", LUA_TSTRING)) {
            size_t len;
            const char *s = lua_tolstring(L, -1, &len);
            sds num = sdsnewlen(s, len);
            for (size_t i = 0; i < len; i++)
                if (num[i] == '\r' || num[i] == '\n') num[i] = ' ';
            addReplyBigNum(c, num, len);
            sdsfree(num);
            lua_pop(L, 1);
        } else if (tableField(L, "verbatim_string", LUA_TTABLE)) {
            size_t len = 0;
            const char *str = NULL, *format = NULL;
            lua_pushliteral(L, "format"); /* raw: no script code runs once the script is over */
            lua_rawget(L, -2);
            lua_pushliteral(L, "string");
            lua_rawget(L, -3);
            if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
                format = lua_tostring(L, -2);
                str = lua_tolstring(L, -1, &len);
            }
            if (str) addReplyVerbatim(c, str, len, format);
            else addReplyNull(c);
            lua_pop(L, 3);
        } else if (tableField(L, "map", LUA_TTABLE)) {
            void *replylen = addReplyDeferredLen(c);
            long n = 0;
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pushvalue(L, -2);
                luaReplyToClient(c, L); /* key */
                luaReplyToClient(c, L); /* value */
                n++;
            }
            setDeferredMapLen(c, replylen, n);
            lua_pop(L, 1);
        } else if (tableField(L, "set", LUA_TTABLE)) {
            void *replylen = addReplyDeferredLen(c);
            long n = 0;
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                luaReplyToClient(c, L);
                n++;
            }
            setDeferredSetLen(c, replylen, n);
            lua_pop(L, 1);
        } else {
            void *replylen = addReplyDeferredLen(c);
            long j = 1;
            for (;; j++) {
                lua_pushnumber(L, (lua_Number)j);
                lua_rawget(L, -2);
                if (lua_type(L, -1) == LUA_TNIL) {
                    lua_pop(L, 1);
                    break;
                }
                luaReplyToClient(c, L);
            }
            setDeferredArrayLen(c, replylen, j - 1);
        }
        break;
    default: addReplyNull(c);
    }
    lua_pop(L, 1);
}

/* --------------------------------------------------------------- redis.call */

static void checkKilledOrTimeout(lua_State *L);

/* A script runs each command with the permissions of the user who called it. */
static int scriptAccessDenied(struct redisCommand *cmd, robj **argv, int argc, const char **err) {
    int pos, denied = accessCheck(run.caller, cmd, argv, argc, &pos);
    if (denied == ACCESS_OK) return 0;
    accessLogDenial(run.caller, denied, ACCESS_CTX_LUA, cmd, argv, pos);
    if (denied == ACCESS_DENIED_CMD) *err = "The user executing the script can't run this command or subcommand";
    else if (denied == ACCESS_DENIED_KEY)
        *err = "The user executing the script can't access at least one of the keys mentioned in the command arguments";
    else *err = "The user executing the script can't publish to the channel mentioned in the command";
    return 1;
}

/* The arguments of a redis.* call as a command vector; NULL with *err when
 * there are none or one is neither a string nor a number. */
static robj **luaArgsToArgv(lua_State *L, int *argcp, const char **err) {
    int argc = lua_gettop(L);
    if (argc == 0) {
        *err = "Please specify at least one argument for this redis lib call";
        return NULL;
    }
    robj **argv = zmalloc(sizeof(robj *) * argc);
    for (int j = 0; j < argc; j++) {
        size_t len;
        const char *s;
        char nbuf[64];
        if (lua_type(L, j + 1) == LUA_TNUMBER) {
            /* Numbers go as Lua prints them with 17 digits, like Redis. */
            lua_Number num = lua_tonumber(L, j + 1);
            len = snprintf(nbuf, sizeof(nbuf), "%.17g", (double)num);
            s = nbuf;
        } else if (lua_type(L, j + 1) == LUA_TSTRING) {
            s = lua_tolstring(L, j + 1, &len);
        } else {
            for (int k = 0; k < j; k++) decrRefCount(argv[k]);
            zfree(argv);
            *err = "Lua redis lib command arguments must be strings or integers";
            return NULL;
        }
        argv[j] = createStringObject(s, len);
    }
    *argcp = argc;
    return argv;
}

static void freeArgv(robj **argv, int argc) {
    for (int k = 0; k < argc; k++) decrRefCount(argv[k]);
    zfree(argv);
}

/* The error table on top was counted where it arose (ignore_error_stats_update). */
static void markErrorCounted(lua_State *L) {
    lua_pushstring(L, "ignore_error_stats_update");
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
}

/* The write gate's refusal (-MISCONF) as a script error: its text without the CRLF. */
static const char *scriptWriteGateError(void) {
    static char text[1024];
    robj *gate = writeGateError();
    if (!gate) return NULL;
    size_t len = sdslen(objectPtr(gate));
    while (len && (((char *)objectPtr(gate))[len - 1] == '\n' || ((char *)objectPtr(gate))[len - 1] == '\r')) len--;
    if (len >= sizeof(text)) len = sizeof(text) - 1;
    memcpy(text, objectPtr(gate), len);
    text[len] = '\0';
    return text;
}

static int redisCallGeneric(lua_State *L, int raise) {
    const char *err = NULL;
    int counted = 0;
    int argc;
    robj **argv = luaArgsToArgv(L, &argc, &err);
    if (!argv) goto error;
    if (ldbIsStepping()) ldbLogRedisCommand(argv, argc);
    /* The arguments are copied: their stack room goes to the reply (a call
     * with unpack's 7999 arguments leaves none otherwise, as Redis allows). */
    lua_settop(L, 0);
    client *c = lua_client;
    struct redisCommand *cmd = lookupCommand(argv, argc);
    if (!cmd) err = "Unknown Redis command called from script";
    else if (!commandCheckArity(cmd, argc)) err = "Wrong number of args calling Redis command from script";
    else if ((cmd->flags & CMD_NOSCRIPT) && !server.script_disable_deny_script) err = "This Redis command is not allowed from script";
    else if (scriptAccessDenied(cmd, argv, argc, &err)) {
        /* err says which permission the script's user lacks */
    }
    else if ((cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE)) && run.readonly) err = "Write commands are not allowed from read-only scripts.";
    else if ((cmd->flags & CMD_WRITE) && replicaRefusesWritesFrom(run.caller))
        err = "-READONLY You can't write against a read only replica.";
    /* Once the script wrote it must be able to finish: replicas that went
     * away since are not a reason to stop it half-way. */
    else if ((cmd->flags & CMD_WRITE) && !run.wrote && tooFewGoodReplicas()) err = "-NOREPLICAS Not enough good replicas to write.";
    else if ((cmd->flags & CMD_WRITE) && !run.wrote && (err = scriptWriteGateError())) {
        /* persistence fails (-MISCONF): a script that wrote nothing yet stops */
    }
    else if ((cmd->flags & CMD_DENYOOM) && server.maxmemory && evictCountedMemory() > server.maxmemory &&
             !run.wrote && !(run.flags & SCRIPT_FLAG_ALLOW_OOM))
        err = "-OOM command not allowed when used memory > 'maxmemory'.";
    else if (!(cmd->flags & CMD_STALE) && replicaIsStaleAndStrict())
        err = "Can not execute the command on a stale replica";
    else if (server.cluster_enabled) {
        /* Last, as Redis: a key of a slot served elsewhere, a cluster down, undeclared keys of two slots. */
        c->cmd = cmd;
        c->argv = argv;
        c->argc = argc;
        int cross_ok = !(run.flags & SCRIPT_FLAG_SHEBANG) || (run.flags & SCRIPT_FLAG_ALLOW_CROSS_SLOT);
        err = clusterScriptKeyError(run.caller, c, cross_ok ? NULL : &run.slot);
        c->argv = NULL;
        c->argc = 0;
    }
    if (err) {
        freeArgv(argv, argc);
        /* Refused as a command would be: counted here, not again when the script passes it on. */
        callRejected(cmd, err, strlen(err));
        counted = 1;
        goto error;
    }
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
    c->cmd = c->lastcmd = c->realcmd = cmd;
    c->resp = run.resp;
    if (cmd->flags & CMD_WRITE) run.wrote = 1;
    /* redis.set_repl() picks the command's targets: the AOF, the replicas, both or neither. */
    int saved_targets = propagateSetTargets(run.repl);
    call(c, CALL_SLOWLOG | CALL_STATS | CALL_PROPAGATE);
    propagateSetTargets(saved_targets);
    freeClientArgv(c);
    sds reply = clientTakeReply(c);
    respToLua(L, reply);
    if (ldbIsStepping()) ldbLogRedisReply(reply);
    sdsfree(reply);
    if (lua_istable(L, -1)) {
        lua_pushstring(L, "err");
        lua_rawget(L, -2);
        int is_err = lua_isstring(L, -1);
        lua_pop(L, 1);
        if (is_err) {
            /* The command's error reply was counted already: the script's
             * error that carries it is not counted again (as in Redis). */
            markErrorCounted(L);
            if (raise) return lua_error(L);
        }
    }
    return 1;
error:
    pushErrorTable(L, err, strlen(err));
    if (counted) markErrorCounted(L);
    return raise ? lua_error(L) : 1;
}

static int luaRedisCall(lua_State *L) { return redisCallGeneric(L, 1); }

/* redis.acl_check_cmd(command, args...): whether the script's user may run it. */
static int luaRedisAclCheckCmd(lua_State *L) {
    if (!run.caller) return raiseError(L, "redis.acl_check_cmd can only be called inside a script invocation");
    const char *err = NULL;
    int argc;
    robj **argv = luaArgsToArgv(L, &argc, &err);
    if (!argv) return raiseError(L, err);
    struct redisCommand *cmd = lookupCommand(argv, argc);
    int pos;
    if (cmd) lua_pushboolean(L, accessCheck(run.caller, cmd, argv, argc, &pos) == ACCESS_OK);
    freeArgv(argv, argc);
    if (!cmd) return raiseError(L, "Invalid command passed to redis.acl_check_cmd()");
    return 1;
}
static int luaRedisPcall(lua_State *L) { return redisCallGeneric(L, 0); }

/* The 40 lowercase hex digits of the SHA1 of s (and a NUL), as scripts are named. */
static void sha1hex(char *out, const char *s, size_t len) { SHA1Data((const uint8_t *)s, len, out); }

static int luaRedisSha1hex(lua_State *L) {
    if (lua_gettop(L) != 1) return raiseError(L, "wrong number of arguments");
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    sha1hex(hex, s ? s : "", s ? len : 0);
    lua_pushstring(L, hex);
    return 1;
}

static int replyTableHelper(lua_State *L, const char *field) {
    if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
        pushErrorTable(L, "wrong number or type of arguments", 33);
        return 1;
    }
    if (!strcmp(field, "err")) {
        size_t len;
        const char *s = lua_tolstring(L, 1, &len);
        sds e = s[0] == '-' ? sdsnewlen(s, len) : sdscatlen(sdsnew("-"), s, len);
        pushErrorTable(L, e, sdslen(e));
        sdsfree(e);
        return 1;
    }
    lua_newtable(L);
    lua_pushstring(L, field);
    lua_pushvalue(L, 1);
    lua_settable(L, -3);
    return 1;
}

static int luaRedisErrorReply(lua_State *L) { return replyTableHelper(L, "err"); }
static int luaRedisStatusReply(lua_State *L) { return replyTableHelper(L, "ok"); }

static int luaRedisLog(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc < 2) return raiseError(L, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(L, 1)) return raiseError(L, "First argument must be a number (log level).");
    int level = lua_tointeger(L, 1);
    if (level < LL_DEBUG || level > LL_WARNING) return raiseError(L, "Invalid debug level.");
    if (level < server.verbosity) return 0;
    sds log = sdsempty();
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (s) {
            if (j != 2) log = sdscatlen(log, " ", 1);
            log = sdscatlen(log, s, len);
        }
    }
    serverLog(level, "%s", log);
    sdsfree(log);
    return 0;
}

static int luaRedisSetRepl(lua_State *L) {
    if (lua_gettop(L) != 1) return raiseError(L, "redis.set_repl() requires two arguments.");
    int flags = lua_tointeger(L, 1);
    if ((flags & ~REPL_ALL) != 0)
        return raiseError(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    run.repl = flags;
    return 0;
}

static int luaRedisReplicateCommands(lua_State *L) {
    lua_pushboolean(L, 1);
    return 1;
}

static int luaRedisSetResp(lua_State *L) {
    if (lua_gettop(L) != 1) return raiseError(L, "redis.setresp() requires one argument.");
    int resp = lua_tointeger(L, 1);
    if (resp != 2 && resp != 3) return raiseError(L, "RESP version must be 2 or 3.");
    run.resp = resp;
    return 0;
}

/* ---------------------------------------------------------------- sandbox */

static int readonlyNewindex(lua_State *L) { return luaL_error(L, "Attempt to modify a readonly table"); }

static int globalsIndex(lua_State *L) {
    /* upvalue 1: the real globals */
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (lua_isnil(L, -1)) {
        const char *name = lua_tostring(L, 2);
        return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
    }
    return 1;
}

/* A table whose reads come from `real` and whose writes fail. */
static void pushReadonlyProxy(lua_State *L, int real_index, int is_globals) {
    real_index = real_index < 0 ? lua_gettop(L) + real_index + 1 : real_index;
    lua_newtable(L);                    /* proxy */
    lua_newtable(L);                    /* metatable */
    lua_pushstring(L, "__index");
    if (is_globals) {
        lua_pushvalue(L, real_index);
        lua_pushcclosure(L, globalsIndex, 1);
    } else {
        lua_pushvalue(L, real_index);
    }
    lua_rawset(L, -3);
    lua_pushstring(L, "__newindex");
    lua_pushcfunction(L, readonlyNewindex);
    lua_rawset(L, -3);
    lua_pushstring(L, "__metatable");
    lua_pushboolean(L, 0);
    lua_rawset(L, -3);
    lua_setmetatable(L, -2);
    /* Remember it as protected, with the table it stands for: the raw
     * writers refuse it, the raw readers look through it. */
    lua_getfield(L, LUA_REGISTRYINDEX, "__protected");
    lua_pushvalue(L, -2);
    lua_pushvalue(L, real_index);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void scriptingPushReadonlyProxy(lua_State *L, int real_index, int strict) { pushReadonlyProxy(L, real_index, strict); }

static int isProtected(lua_State *L, int idx) {
    lua_getfield(L, LUA_REGISTRYINDEX, "__protected");
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    int p = lua_toboolean(L, -1);
    lua_pop(L, 2);
    return p;
}

static int plainError(lua_State *L, const char *msg) {
    lua_pushstring(L, msg);
    return lua_error(L);
}

/* Calls the wrapped original (upvalue 1) with this call's arguments. */
static int callOriginal(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* The raw writers would write through a proxy's real table, so they refuse
 * protected tables; the raw readers see the real table, as scripts see
 * Redis's read-only tables (pairs(string), rawget(_G, 'string')). Each
 * wrapper checks the arguments the original checks first: an error raised
 * inside the original would name no function and no line. */
static int wrappedRawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (isProtected(L, 1)) return plainError(L, "Attempt to modify a readonly table");
    return callOriginal(L);
}

static int wrappedSetmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argcheck(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table expected");
    if (isProtected(L, 1)) return plainError(L, "Attempt to modify a readonly table");
    return callOriginal(L);
}

static void replaceProxyByReal(lua_State *L, int idx) {
    if (!lua_istable(L, idx)) return;
    lua_getfield(L, LUA_REGISTRYINDEX, "__protected");
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    if (lua_istable(L, -1)) lua_replace(L, idx);
    else lua_pop(L, 1);
    lua_pop(L, 1);
}

static int wrappedRawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    replaceProxyByReal(L, 1);
    return callOriginal(L);
}

static int wrappedNext(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    replaceProxyByReal(L, 1);
    return callOriginal(L);
}

/* Iterates with the wrapped next (upvalue 1) and hands out only the proxy. */
static int wrappedPairs(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* A protected metatable (the string type's, the globals') is handed out as
 * its read-only proxy; a library proxy has none, as Redis's tables have none. */
static int wrappedGetmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    if (lua_getmetatable(L, 1)) {
        lua_getfield(L, LUA_REGISTRYINDEX, "__mtproxy");
        lua_pushvalue(L, -2);
        lua_rawget(L, -2);
        if (!lua_isnil(L, -1)) return 1;
        lua_pop(L, 3);
        if (isProtected(L, 1)) {
            lua_pushnil(L);
            return 1;
        }
    }
    return callOriginal(L);
}

/* Functions loaded by a script see the same read-only globals as scripts. */
static int callLoaderSettingEnv(lua_State *L) {
    int n = callOriginal(L);
    if (lua_isfunction(L, 1)) scriptingSetGlobalsEnv(L, 1);
    return n;
}

/* Lua 5.1 runs a chunk starting with the bytecode signature through the
 * undumper, and crafted bytecode escapes the sandbox. Redis's Lua always
 * parses text; a leading space makes the unpatched library do the same, so
 * bytecode fails with the parser's error, worded as Redis words it. */
static int isBytecodeText(const char *s, size_t len) { return len && s[0] == LUA_SIGNATURE[0]; }

static int isBytecode(lua_State *L, int idx) {
    size_t len;
    const char *s = lua_type(L, idx) == LUA_TSTRING ? lua_tolstring(L, idx, &len) : NULL;
    return s && isBytecodeText(s, len);
}

static int wrappedLoadstring(lua_State *L) {
    luaL_checkstring(L, 1);
    luaL_optstring(L, 2, NULL);
    if (isBytecode(L, 1)) {
        if (lua_gettop(L) < 2) lua_settop(L, 2);
        if (lua_isnil(L, 2)) { /* the chunk name defaults to the original text */
            lua_pushvalue(L, 1);
            lua_replace(L, 2);
        }
        lua_pushliteral(L, " ");
        lua_pushvalue(L, 1);
        lua_concat(L, 2);
        lua_replace(L, 1);
    }
    return callLoaderSettingEnv(L);
}

/* load's reader, seen through: upvalue 1 the script's reader, 2 a piece held
 * back, 3 whether the first piece was checked. */
static int guardedReader(lua_State *L) {
    if (!lua_isnil(L, lua_upvalueindex(2))) {
        lua_pushvalue(L, lua_upvalueindex(2));
        lua_pushnil(L);
        lua_replace(L, lua_upvalueindex(2));
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_call(L, 0, 1);
    if (!lua_toboolean(L, lua_upvalueindex(3))) {
        lua_pushboolean(L, 1);
        lua_replace(L, lua_upvalueindex(3));
        if (isBytecode(L, -1)) {
            lua_replace(L, lua_upvalueindex(2));
            lua_pushliteral(L, " ");
        }
    }
    return 1;
}

static int wrappedLoad(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_optstring(L, 2, NULL);
    {
        lua_pushvalue(L, 1);
        lua_pushnil(L);
        lua_pushboolean(L, 0);
        lua_pushcclosure(L, guardedReader, 3);
        lua_replace(L, 1);
    }
    return callLoaderSettingEnv(L);
}

/* Lua 5.1.5's unpack computes e - i + 1 in int: for 0..INT_MAX it overflows,
 * the compiler drops the n <= 0 test (it "cannot" be true after i <= e), and
 * the values are pushed past the stack. Redis's fixed version. */
static int guardedUnpack(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    int i = luaL_optint(L, 2, 1);
    int e = luaL_opt(L, luaL_checkint, 3, luaL_getn(L, 1));
    if (i > e) return 0;
    unsigned int n = (unsigned int)e - (unsigned int)i;
    if (n >= INT_MAX || !lua_checkstack(L, (int)++n)) return luaL_error(L, "too many results to unpack");
    for (unsigned int k = 0; k < n; k++) lua_rawgeti(L, 1, i + (int)k);
    return (int)n;
}

/* lua-bitop's tohex negates a negative digit count and writes that many
 * digits into an 8-byte buffer: INT32_MIN stays negative and smashes the
 * stack. Past +-8 the output is the same 8 digits, so clamp first, reading
 * the count as bitop does (the number wrapped to 32 bits). */
static int guardedTohex(lua_State *L) {
    for (int i = 1; i <= 2 && i <= lua_gettop(L); i++)
        if (!lua_isnumber(L, i)) luaL_typerror(L, i, "number");
    if (lua_gettop(L) < 1) luaL_typerror(L, 1, "number");
    if (lua_gettop(L) >= 2 && lua_isnumber(L, 2)) {
        double d = (double)lua_tonumber(L, 2) + 6755399441055744.0; /* 2^52+2^51 */
        uint64_t bits;
        memcpy(&bits, &d, sizeof(bits));
        int32_t n = (int32_t)(uint32_t)bits;
        if (n < -8 || n > 8) {
            lua_pushinteger(L, n < 0 ? -8 : 8);
            lua_replace(L, 2);
        }
    }
    return callOriginal(L);
}

/* pcall: a Redis error table caught by pcall becomes its message string, as in 7.0. */
static int wrappedPcall(lua_State *L) {
    callOriginal(L);
    if (lua_gettop(L) >= 2 && !lua_toboolean(L, 1) && lua_istable(L, 2)) {
        lua_pushstring(L, "err");
        lua_rawget(L, 2);
        if (lua_isstring(L, -1)) lua_replace(L, 2);
        else lua_pop(L, 1);
    }
    return lua_gettop(L);
}

/* Replaces t[name] (t at idx, a real table) by wrapper with the old value as upvalue 1. */
static void wrapField(lua_State *L, int idx, const char *name, lua_CFunction wrapper) {
    if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(L) + idx + 1;
    lua_getfield(L, idx, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, idx, name);
}

static void wrapGlobalFunction(lua_State *L, const char *name, lua_CFunction wrapper) {
    wrapField(L, LUA_GLOBALSINDEX, name, wrapper);
}

/* Records mt as protected: getmetatable hands out a read-only proxy of it. */
static void protectMetatable(lua_State *L, int mt_index) {
    mt_index = mt_index < 0 ? lua_gettop(L) + mt_index + 1 : mt_index;
    lua_getfield(L, LUA_REGISTRYINDEX, "__mtproxy");
    lua_pushvalue(L, mt_index);
    pushReadonlyProxy(L, mt_index, 0);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* Every basic type's metatable (in stock Lua only strings have one): its
 * __index table becomes the library's proxy, and the metatable itself is
 * reachable only as a proxy, so no script can change methods for others. */
static void protectTypeMetatables(lua_State *L) {
    lua_pushnil(L);
    lua_pushboolean(L, 0);
    lua_pushnumber(L, 0);
    lua_pushliteral(L, "");
    lua_pushcfunction(L, readonlyNewindex);
    lua_pushlightuserdata(L, L);
    lua_pushthread(L);
    int top = lua_gettop(L);
    for (int v = top - 6; v <= top; v++) {
        if (!lua_getmetatable(L, v)) continue;
        if (lua_type(L, v) == LUA_TSTRING) {
            lua_getglobal(L, LUA_STRLIBNAME); /* already the proxy */
            lua_setfield(L, -2, "__index");
        }
        protectMetatable(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 7);
}

static void openLib(lua_State *L, const char *name, lua_CFunction fn) {
    lua_pushcfunction(L, fn);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (name[0]) lua_setglobal(L, name);
    else lua_pop(L, 1);
}

static void setGlobalFunction(lua_State *L, const char *table, const char *name, lua_CFunction fn) {
    lua_getglobal(L, table);
    lua_pushstring(L, name);
    lua_pushcfunction(L, fn);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static void setTableInt(lua_State *L, const char *name, int v) {
    lua_pushstring(L, name);
    lua_pushinteger(L, v);
    lua_rawset(L, -3);
}

/* A sandboxed interpreter: the libraries, the redis API, read-only globals. */
lua_State *scriptingNewInterpreter(void) {
    lua_State *L = lua_open();
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "__protected");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "__mtproxy");
    openLib(L, "", luaopen_base);
    openLib(L, LUA_TABLIBNAME, luaopen_table);
    openLib(L, LUA_STRLIBNAME, luaopen_string);
    openLib(L, LUA_MATHLIBNAME, luaopen_math);
    static const struct {
        const char *name;
        lua_CFunction open;
    } extra[] = {{"cjson", luaopen_cjson}, {"bit", luaopen_bit}, {"struct", luaopenStruct},
                 {"cmsgpack", luaopenCmsgpack}, {NULL, NULL}};
    for (int i = 0; extra[i].name; i++) {
        lua_pushcfunction(L, extra[i].open);
        lua_call(L, 0, 1);
        lua_setglobal(L, extra[i].name);
    }
    static const char *removed[] = {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy", "module",
                                    "require", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    lua_pushcfunction(L, guardedUnpack);
    lua_setglobal(L, "unpack");
    lua_getglobal(L, "bit");
    wrapField(L, -1, "tohex", guardedTohex);
    lua_pop(L, 1);
    setGlobalFunction(L, "math", "random", mathRandom);
    setGlobalFunction(L, "math", "randomseed", mathRandomseed);

    lua_newtable(L);
    static const struct {
        const char *name;
        lua_CFunction fn;
    } api[] = {{"call", luaRedisCall},
               {"pcall", luaRedisPcall},
               {"sha1hex", luaRedisSha1hex},
               {"error_reply", luaRedisErrorReply},
               {"status_reply", luaRedisStatusReply},
               {"log", luaRedisLog},
               {"set_repl", luaRedisSetRepl},
               {"replicate_commands", luaRedisReplicateCommands},
               {"setresp", luaRedisSetResp},
               {"acl_check_cmd", luaRedisAclCheckCmd},
               {NULL, NULL}};
    for (int i = 0; api[i].name; i++) {
        lua_pushstring(L, api[i].name);
        lua_pushcfunction(L, api[i].fn);
        lua_rawset(L, -3);
    }
    setTableInt(L, "LOG_DEBUG", LL_DEBUG);
    setTableInt(L, "LOG_VERBOSE", LL_VERBOSE);
    setTableInt(L, "LOG_NOTICE", LL_NOTICE);
    setTableInt(L, "LOG_WARNING", LL_WARNING);
    setTableInt(L, "REPL_NONE", REPL_NONE);
    setTableInt(L, "REPL_AOF", REPL_AOF);
    setTableInt(L, "REPL_SLAVE", REPL_REPLICA);
    setTableInt(L, "REPL_REPLICA", REPL_REPLICA);
    setTableInt(L, "REPL_ALL", REPL_ALL);
    setTableInt(L, "REDIS_VERSION_NUM", 0x0007000f);
    lua_pushstring(L, "REDIS_VERSION");
    lua_pushstring(L, "7.0.15");
    lua_rawset(L, -3);
    lua_setglobal(L, "redis");

    wrapGlobalFunction(L, "rawset", wrappedRawset);
    wrapGlobalFunction(L, "setmetatable", wrappedSetmetatable);
    wrapGlobalFunction(L, "loadstring", wrappedLoadstring);
    wrapGlobalFunction(L, "load", wrappedLoad);
    wrapGlobalFunction(L, "rawget", wrappedRawget);
    wrapGlobalFunction(L, "getmetatable", wrappedGetmetatable);
    wrapGlobalFunction(L, "next", wrappedNext);
    lua_getglobal(L, "next");
    lua_pushcclosure(L, wrappedPairs, 1);
    lua_setglobal(L, "pairs");
    wrapGlobalFunction(L, "pcall", wrappedPcall);

    /* Library tables become read-only proxies, then the globals themselves. */
    static const char *libs[] = {"redis", "string", "table", "math", "cjson", "bit", "struct", "cmsgpack", "coroutine", NULL};
    for (int i = 0; libs[i]; i++) {
        lua_getglobal(L, libs[i]);
        if (lua_istable(L, -1)) {
            pushReadonlyProxy(L, -1, 0);
            lua_setglobal(L, libs[i]);
        }
        lua_pop(L, 1);
    }
    protectTypeMetatables(L);
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    pushReadonlyProxy(L, -1, 1);
    lua_getmetatable(L, -1);
    protectMetatable(L, -1);
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "_G");
    lua_setfield(L, LUA_REGISTRYINDEX, GLOBALS_PROXY_KEY);
    lua_pop(L, 1);
    return L;
}

/* EVAL's interpreter: functions have no debugger, so only EVAL's redis table
 * gets redis.debug() and redis.breakpoint(). */
static void createInterpreter(void) {
    lua = scriptingNewInterpreter();
    lua_getglobal(lua, "redis");
    replaceProxyByReal(lua, lua_gettop(lua));
    ldbRegisterApi(lua, -1);
    lua_pop(lua, 1);
}

void scriptingSetGlobalsEnv(lua_State *L, int index) {
    index = index < 0 ? lua_gettop(L) + index + 1 : index;
    lua_getfield(L, LUA_REGISTRYINDEX, GLOBALS_PROXY_KEY);
    lua_setfenv(L, index);
}

/* --------------------------------------------------------------- the cache */

/* Shebang: "#!lua [flags=a,b]" on the first line. Returns C_ERR with *err set. */
static int parseShebang(const char *body, size_t len, int *flags, sds *err) {
    *flags = 0;
    if (len < 2 || body[0] != '#' || body[1] != '!') return C_OK;
    /* Redis looks for the line's end as a C string does: not past a NUL. */
    const char *eol = memchr(body, '\n', strnlen(body, len));
    if (!eol) {
        *err = sdsnew("Invalid script shebang");
        return C_ERR;
    }
    sds line = sdsnewlen(body, (size_t)(eol - body));
    int argc;
    sds *parts = sdssplitargs(line, &argc);
    int rc = C_OK;
    if (!parts || argc == 0) {
        *err = sdsnew("Invalid engine in script shebang");
        rc = C_ERR;
    } else if (strcmp(parts[0], "#!lua")) {
        *err = sdscatprintf(sdsempty(), "Unexpected engine in script shebang: %s", parts[0]);
        rc = C_ERR;
    }
    for (int j = 1; rc == C_OK && j < argc; j++) {
        if (!strncmp(parts[j], "flags=", 6)) {
            int n;
            sds *fl = sdssplitlen(parts[j] + 6, sdslen(parts[j]) - 6, ",", 1, &n);
            for (int k = 0; k < n; k++) {
                if (!strcmp(fl[k], "no-writes")) *flags |= SCRIPT_FLAG_NO_WRITES;
                else if (!strcmp(fl[k], "allow-oom")) *flags |= SCRIPT_FLAG_ALLOW_OOM;
                else if (!strcmp(fl[k], "allow-stale")) *flags |= SCRIPT_FLAG_ALLOW_STALE;
                else if (!strcmp(fl[k], "no-cluster")) *flags |= SCRIPT_FLAG_NO_CLUSTER;
                else if (!strcmp(fl[k], "allow-cross-slot-keys")) *flags |= SCRIPT_FLAG_ALLOW_CROSS_SLOT;
                else if (sdslen(fl[k]) == 0)
                    continue;
                else {
                    *err = sdscatprintf(sdsempty(), "Unexpected flag in script shebang: %s", fl[k]);
                    rc = C_ERR;
                    break;
                }
            }
            sdsfreesplitres(fl, n);
        } else {
            *err = sdscatprintf(sdsempty(), "Unknown lua shebang option: %s", parts[j]);
            rc = C_ERR;
        }
    }
    if (parts) sdsfreesplitres(parts, argc);
    sdsfree(line);
    *flags |= SCRIPT_FLAG_SHEBANG;
    return rc;
}

/* The cache: sha → body, with what the load learned kept in the entry, so
 * running a known script neither parses its shebang nor looks its function
 * up by name again. */
typedef struct scriptMeta {
    int flags; /* SCRIPT_FLAG_* of its shebang */
    int ref;   /* its function, in the interpreter's registry */
} scriptMeta;

static dictType scriptsDictType = {.hashFunction = dictSdsHash,
                                   .keyCompare = dictSdsKeyCompare,
                                   .valDestructor = dictSdsDestructor,
                                   .embedKey = 1,
                                   .entryMetaBytes = sizeof(scriptMeta)};

static scriptMeta *scriptMetaOf(dictEntry *de) { return dictEntryMeta(de); }

/* The entry of a cached script by its sha (any case), or NULL. */
static dictEntry *findScriptBySha(const char *sha40) {
    char lower[41];
    for (int i = 0; i < 40; i++) lower[i] = tolower((unsigned char)sha40[i]);
    lower[40] = '\0';
    sds key = sdsnewlen(lower, 40);
    dictEntry *de = dictFind(scripts, key);
    sdsfree(key);
    return de;
}

/* EVAL's body is hashed once per command: the flags hook, which runs first,
 * leaves the body it hashed and the sha here, and runEval takes them when it
 * gets the same body object with the same text. */
static struct {
    robj *body;
    char sha[41];
} lastEvalBody;

/* Finds EVAL's script by its body (hashing it unless the flags hook just
 * did) and fills sha; NULL when it is not cached yet. */
static dictEntry *findScriptByBody(robj *bodyobj, char *sha) {
    sds body = objectPtr(bodyobj);
    if (lastEvalBody.body == bodyobj) {
        lastEvalBody.body = NULL;
        dictEntry *de = findScriptBySha(lastEvalBody.sha);
        sds cached = de ? dictGetVal(de) : NULL;
        if (cached && sdslen(cached) == sdslen(body) && !memcmp(cached, body, sdslen(body))) {
            memcpy(sha, lastEvalBody.sha, 41);
            return de;
        }
    }
    sha1hex(sha, body, sdslen(body));
    return findScriptBySha(sha);
}

/* Compiles and caches body under sha. Returns NULL after replying. */
static dictEntry *createScript(client *c, sds body, const char *sha) {
    int flags;
    sds err = NULL;
    if (parseShebang(body, sdslen(body), &flags, &err) != C_OK) {
        addReplyErrorSds(c, err);
        return NULL;
    }
    sds code = sdsdup(body);
    if (flags & SCRIPT_FLAG_SHEBANG) code[0] = '-', code[1] = '-'; /* keep line numbers */
    if (isBytecodeText(code, sdslen(code))) { /* parsed as text, like loadstring's (see there) */
        sds text = sdscatsds(sdsnew(" "), code);
        sdsfree(code);
        code = text;
    }
    if (luaL_loadbuffer(lua, code, sdslen(code), "@user_script")) {
        addReplyErrorFormat(c, "Error compiling script (new function): %s", lua_tostring(lua, -1));
        lua_pop(lua, 1);
        sdsfree(code);
        return NULL;
    }
    sdsfree(code);
    scriptingSetGlobalsEnv(lua, -1);
    int ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    /* Compiling leaves the parser's constant table behind as garbage. Left
     * to the collector's pace (a new cycle once the heap doubled), the
     * garbage of tens of thousands of loads is swept at once, and the
     * allocator keeps the pages it was on half empty (allocator_frag_ratio
     * up by 4-6% after 50k SCRIPT LOADs); a small step per compile keeps it
     * swept as it comes. */
    lua_gc(lua, LUA_GCSTEP, 1);
    sds key = sdsnewlen(sha, 40);
    dictEntry *de = dictAddRaw(scripts, key, NULL);
    sdsfree(key); /* the dict embeds its own copy of the key */
    dictSetVal(scripts, de, sdsdup(body));
    *scriptMetaOf(de) = (scriptMeta){.flags = flags, .ref = ref};
    return de;
}

/* EVAL and SCRIPT LOAD: the body's entry, cached now if it was not; fills
 * sha. NULL after replying with the compile error. */
static dictEntry *loadScript(client *c, robj *bodyobj, char *sha) {
    dictEntry *de = findScriptByBody(bodyobj, sha);
    return de ? de : createScript(c, objectPtr(bodyobj), sha);
}

/* ---------------------------------------------------------------- running */

static void luaMaskCountHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    long long elapsed = (long long)(getMonotonicUs() - run.start) / 1000;
    if (!run.timedout && elapsed >= server.busy_reply_threshold) {
        serverLog(LL_WARNING, "Slow script detected: still in execution after %lld milliseconds. You can try killing the script using the SCRIPT KILL command.", elapsed);
        run.timedout = 1;
    }
    if (run.timedout) processEventsWhileBlocked();
    checkKilledOrTimeout(L);
}

static void checkKilledOrTimeout(lua_State *L) {
    if (run.killed) {
        serverLog(LL_WARNING, "Lua script killed by user with SCRIPT KILL.");
        lua_sethook(L, luaMaskCountHook, LUA_MASKLINE, 0);
        raiseError(L, "Script killed by user with SCRIPT KILL...");
    }
}

void scriptingPushStringArray(lua_State *L, robj **elev, int elec) {
    lua_createtable(L, elec, 0);
    for (int j = 0; j < elec; j++) {
        lua_pushlstring(L, objectPtr(elev[j]), sdslen(objectPtr(elev[j])));
        lua_rawseti(L, -2, j + 1);
    }
}

static void setKeysArgv(lua_State *L, const char *name, robj **elev, int elec) {
    scriptingPushStringArray(L, elev, elec);
    lua_setglobal(L, name); /* the real globals table */
}

void scriptingFeedMonitor(client *c) {
    if (!server.loading && !(c->flags & CLIENT_AOF)) monitorFeed(c, c->db->id, c->argv, c->argc);
}

int scriptingGetNumkeys(client *c, const char *not_integer_error, long long *numkeys) {
    if (getLongLongFromObject(c->argv[2], numkeys) != 0) {
        addReplyError(c, not_integer_error);
        return C_ERR;
    }
    if (*numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return C_ERR;
    }
    if (*numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return C_ERR;
    }
    return C_OK;
}

static void runEval(client *c, int evalsha, int readonly_cmd);

static void evalGenericCommand(client *c, int evalsha, int readonly_cmd) {
    /* EVAL is skip_monitor for the pipeline: it is shown here, before the
     * commands the script runs, as Redis 7.0 does. */
    scriptingFeedMonitor(c);
    /* SCRIPT DEBUG asked for the debugger (not for a script queued in MULTI). */
    if ((c->flags & CLIENT_LUA_DEBUG) && !(c->flags & CLIENT_MULTI)) {
        if (evalsha) {
            if (sdslen(objectPtr(c->argv[1])) != 40) addReplyErrorObject(c, shared.noscripterr);
            else addReplyError(c, "Please use EVAL instead of EVALSHA for debugging");
            return;
        }
        if (!ldbStartSession(c)) return;
        runEval(c, 0, readonly_cmd);
        ldbEndSession(c);
        return;
    }
    runEval(c, evalsha, readonly_cmd);
}

static void runEval(client *c, int evalsha, int readonly_cmd) {
    long long numkeys;
    char sha[41];
    if (scriptingGetNumkeys(c, "value is not an integer or out of range", &numkeys) != C_OK) return;
    dictEntry *de;
    if (!evalsha) {
        if (!(de = loadScript(c, c->argv[1], sha))) return;
    } else {
        sds s = objectPtr(c->argv[1]);
        if (sdslen(s) != 40 || !(de = findScriptBySha(s))) {
            addReplyErrorObject(c, shared.noscripterr);
            return;
        }
        memcpy(sha, dictGetKey(de), 41);
    }
    scriptMeta *meta = scriptMetaOf(de);
    lua_rawgeti(lua, LUA_REGISTRYINDEX, meta->ref);
    setKeysArgv(lua, "KEYS", c->argv + 3, (int)numkeys);
    setKeysArgv(lua, "ARGV", c->argv + 3 + numkeys, c->argc - 3 - (int)numkeys);
    scriptingRun(c, lua, sha, 0, meta->flags, readonly_cmd, 0);
}

/* What a script declaring its flags (shebang, functions) must pass before it
 * runs; EVAL-compatible scripts are checked command by command instead. */
static int scriptMayStart(client *c, int flags, int ro_cmd) {
    if (!(flags & SCRIPT_FLAG_SHEBANG)) return 1;
    if ((flags & SCRIPT_FLAG_NO_CLUSTER) && server.cluster_enabled) {
        addReplyError(c, "Can not run script on cluster, 'no-cluster' flag is set.");
        return 0;
    }
    if (!(flags & SCRIPT_FLAG_NO_WRITES)) {
        if (ro_cmd) {
            addReplyError(c, "Can not execute a script with write flag using *_ro command.");
            return 0;
        }
        if (replicaRefusesWritesFrom(c)) {
            addReplyError(c, "-READONLY You can't write against a read only replica.");
            return 0;
        }
        robj *gate = writeGateError();
        if (gate) {
            addReplyErrorObject(c, gate);
            return 0;
        }
        if (tooFewGoodReplicas()) {
            addReplyError(c, "-NOREPLICAS Not enough good replicas to write.");
            return 0;
        }
    }
    if (!(flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)) && server.maxmemory &&
        evictCountedMemory() > server.maxmemory) {
        addReplyErrorObject(c, shared.oomerr);
        return 0;
    }
    return 1;
}

/* The slot of the keys EVAL or FCALL declares (the router saw they share
 * one), -1 without keys or outside cluster mode: undeclared keys a script
 * touches must be in it too. */
static int declaredKeysSlot(client *c) {
    long long numkeys;
    if (!server.cluster_enabled || c->argc < 4 || getLongLongFromObject(c->argv[2], &numkeys) != C_OK ||
        numkeys <= 0 || !sdsEncodedObject(c->argv[3]))
        return -1;
    return (int)keyHashSlot(objectPtr(c->argv[3]), sdslen(objectPtr(c->argv[3])));
}

void scriptingRun(client *c, lua_State *L, const char *name, int nargs, int flags, int ro_cmd, int is_function) {
    if (!scriptMayStart(c, flags, ro_cmd)) {
        lua_pop(L, nargs + 1);
        return;
    }
    int base = lua_gettop(L) - nargs; /* the function */
    lua_pushcfunction(L, errorHandler);
    lua_insert(L, base);

    memset(&run, 0, sizeof(run));
    run.caller = c;
    run.name = name;
    run.start = getMonotonicUs();
    run.running = 1;
    run.readonly = ro_cmd || (flags & SCRIPT_FLAG_NO_WRITES);
    run.flags = flags;
    run.is_function = is_function;
    run.slot = declaredKeysSlot(c);
    run.resp = 2;
    run.repl = REPL_ALL;
    server.in_script = 1;
    lua_client->db = c->db;
    lua_client->flags |= CLIENT_DENY_BLOCKING;
    if (ldbIsActive()) ldbInstallHook(L);
    else lua_sethook(L, luaMaskCountHook, LUA_MASKCOUNT, 100000);
    propagateTransactionStart(c->db->id);
    int err = lua_pcall(L, nargs, 1, base);
    propagateTransactionEnd(c->db->id);
    lua_sethook(L, NULL, 0, 0);
    server.in_script = 0;
    if (run.timedout) serverLog(LL_WARNING, "Slow script terminated.");
    if (err) {
        /* The handler left {err, source, line}. Read raw: the script may have
         * raised a table whose __index raises (unprotected here, that would
         * abort the server, as it aborts Redis) or never returns. */
        const char *msg = "ERR unknown error", *source = "?";
        long line = 0;
        if (lua_istable(L, -1)) {
            lua_pushliteral(L, "err");
            lua_rawget(L, -2);
            if (lua_isstring(L, -1)) msg = lua_tostring(L, -1);
            lua_pushliteral(L, "source");
            lua_rawget(L, -3);
            if (lua_isstring(L, -1)) source = lua_tostring(L, -1);
            lua_pushliteral(L, "line");
            lua_rawget(L, -4);
            line = (long)lua_tointeger(L, -1);
            lua_pushliteral(L, "ignore_error_stats_update");
            lua_rawget(L, -5);
            int counted = lua_toboolean(L, -1);
            sds e = sdscatprintf(sdsempty(), "-%s script: %s, on %s:%ld.", msg, name, source, line);
            if (counted) addReplyErrorSdsCounted(c, e);
            else addReplyErrorSds(c, e);
            lua_pop(L, 4);
        } else {
            addReplyErrorFormat(c, "Error running script: %s", lua_tostring(L, -1));
        }
        lua_pop(L, 1);
    } else {
        luaReplyToClient(c, L);
    }
    lua_pop(L, 1); /* the error handler */
    memset(&run, 0, sizeof(run));
    /* Keep memory in check across many scripts. */
    lua_gc(L, LUA_GCSTEP, 1);
}

void evalCommand(client *c) { evalGenericCommand(c, 0, 0); }
void evalRoCommand(client *c) { evalGenericCommand(c, 0, 1); }
void evalshaCommand(client *c) { evalGenericCommand(c, 1, 0); }
void evalshaRoCommand(client *c) { evalGenericCommand(c, 1, 1); }

void fcallCommand(client *c);   /* features/functions.c */
void fcallRoCommand(client *c);

uint64_t scriptingCommandFlags(client *c, uint64_t flags) {
    int declared = 0, is_eval = 1;
    redisCommandProc *proc = c->cmd->proc;
    if (proc == evalCommand || proc == evalRoCommand) {
        /* A cached script's flags come from its entry; a new one's from its
         * shebang, parsed here and again when EVAL caches it. */
        char sha[41];
        dictEntry *de = findScriptByBody(c->argv[1], sha);
        lastEvalBody.body = c->argv[1];
        memcpy(lastEvalBody.sha, sha, 41);
        if (de) {
            declared = scriptMetaOf(de)->flags;
        } else {
            sds err = NULL;
            if (parseShebang(objectPtr(c->argv[1]), sdslen(objectPtr(c->argv[1])), &declared, &err) != C_OK) declared = 0;
            sdsfree(err);
        }
    } else if (proc == evalshaCommand || proc == evalshaRoCommand) {
        dictEntry *de = sdslen(objectPtr(c->argv[1])) == 40 ? findScriptBySha(objectPtr(c->argv[1])) : NULL;
        if (!de) return flags; /* NOSCRIPT comes later */
        declared = scriptMetaOf(de)->flags;
    } else if (proc == fcallCommand || proc == fcallRoCommand) {
        is_eval = 0;
        declared = functionDeclaredFlags(c->argv[1]);
        if (!declared) return flags; /* no such function: its error comes later */
    } else {
        return flags;
    }
    /* A script without a shebang is not served by a stale replica (7.0 does
     * not let EVAL's own "stale" flag through for it). */
    if (!(declared & SCRIPT_FLAG_SHEBANG)) return is_eval ? flags & ~CMD_STALE : flags;
    flags &= ~(CMD_STALE | CMD_DENYOOM | CMD_WRITE | CMD_MAY_REPLICATE);
    if (!(declared & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES))) flags |= CMD_DENYOOM;
    if (!(declared & SCRIPT_FLAG_NO_WRITES)) flags |= CMD_WRITE;
    if (declared & SCRIPT_FLAG_ALLOW_STALE) flags |= CMD_STALE;
    return flags;
}

int scriptIsTimedout(void) { return run.running && run.timedout; }
long long scriptingElapsedMs(void) { return (long long)(getMonotonicUs() - run.start) / 1000; }
void scriptingRestartClock(void) { run.start = getMonotonicUs(); }
int scriptIsRunning(void) { return run.running; }
robj *scriptBusyError(void) { return run.is_function ? shared.slowscripterr : shared.slowevalerr; }

void scriptingReplyRunningScript(client *c) {
    if (!run.running) {
        addReplyNull(c);
        return;
    }
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "name");
    addReplyBulkCString(c, run.name);
    addReplyBulkCString(c, "command");
    addReplyArrayLen(c, run.caller->argc);
    for (int j = 0; j < run.caller->argc; j++) addReplyBulk(c, run.caller->argv[j]);
    addReplyBulkCString(c, "duration_ms");
    addReplyLongLong(c, (long long)(getMonotonicUs() - run.start) / 1000);
}

void scriptingKill(client *c, int is_eval) {
    if (!run.running) {
        addReplyError(c, "-NOTBUSY No scripts in execution right now.");
        return;
    }
    if (run.wrote) {
        addReplyError(c, "-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
        return;
    }
    /* SCRIPT KILL stops scripts, FUNCTION KILL functions. */
    if (is_eval && run.is_function) {
        addReplyErrorObject(c, shared.slowscripterr);
        return;
    }
    if (!is_eval && !run.is_function) {
        addReplyErrorObject(c, shared.slowevalerr);
        return;
    }
    run.killed = 1;
    addReply(c, shared.ok);
}

int scriptAllowsWhileBusy(client *c) {
    if (!(c->cmd->flags & CMD_ALLOW_BUSY)) return 0;
    /* SHUTDOWN during a busy script only when it does not need to save. */
    if (!strcmp(c->cmd->fullname, "shutdown")) {
        for (int j = 1; j < c->argc; j++)
            if (!strcasecmp(objectPtr(c->argv[j]), "nosave")) return 1;
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ SCRIPT */

void scriptLoadCommand(client *c) {
    char sha[41];
    if (!loadScript(c, c->argv[2], sha)) return;
    addReplyBulkCBuffer(c, sha, 40);
}

void scriptExistsCommand(client *c) {
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        sds key = sdsdup(objectPtr(c->argv[j]));
        sdstolower(key);
        addReply(c, dictFind(scripts, key) ? shared.cone : shared.czero);
        sdsfree(key);
    }
}

/* What an async SCRIPT FLUSH hands to the lazy free thread. */
typedef struct retiredScripts {
    dict *scripts;
    lua_State *lua;
} retiredScripts;

static void freeRetiredScripts(void *ptr) {
    retiredScripts *old = ptr;
    dictRelease(old->scripts);
    lua_close(old->lua);
    zfree(old);
}

/* SCRIPT FLUSH: a new interpreter and an empty cache. As in Redis 7.0, an
 * async flush of more than LAZYFREE_THRESHOLD scripts frees the old ones in
 * the lazy free thread (counted in lazyfreed_objects); here the old
 * interpreter goes with them, as nothing else refers to it. */
static void flushScripts(int async) {
    lastEvalBody.body = NULL;
    if (async && dictSize(scripts) > LAZYFREE_THRESHOLD) {
        retiredScripts *old = zmalloc(sizeof(*old));
        *old = (retiredScripts){.scripts = scripts, .lua = lua};
        size_t count = dictSize(scripts);
        scripts = dictCreate(&scriptsDictType);
        createInterpreter();
        lazyfreeCall(freeRetiredScripts, old, count);
        return;
    }
    dictEmpty(scripts, NULL);
    lua_close(lua);
    createInterpreter();
}

void scriptFlushCommand(client *c) {
    int async;
    if (c->argc == 2) async = server.lazyfree_lazy_user_flush;
    else if (c->argc == 3 && !strcasecmp(objectPtr(c->argv[2]), "sync")) async = 0;
    else if (c->argc == 3 && !strcasecmp(objectPtr(c->argv[2]), "async")) async = 1;
    else {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    flushScripts(async);
    addReply(c, shared.ok);
}

void scriptKillCommand(client *c) { scriptingKill(c, 1); }

void scriptHelpCommand(client *c) {
    const char *help[] = {
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        NULL};
    addReplyHelp(c, help);
}

void scriptingInit(void) {
    scripts = dictCreate(&scriptsDictType);
    createInterpreter();
    lua_client = createClient(-1);
    lua_client->flags |= CLIENT_LUA | CLIENT_DENY_BLOCKING;
    lua_client->authenticated = 1;
    functionsInit();
}
