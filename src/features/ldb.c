/* ldb: the Lua debugger (see ldb.h).
 *
 * One session at a time runs in a process: the server in sync mode (it waits
 * on the debugger, every other client waits with it), or a forked child that
 * owns the client's socket while the parent forgets the client. The socket is
 * made blocking: the debugger writes its log as one RESP array of status lines
 * and reads the next command straight from it, with a deliberately forgiving
 * parser (only the first command of what arrived counts, as in Redis). The
 * hook fires on every line and every 100000 instructions: a stop happens on a
 * step, a breakpoint, redis.breakpoint() or when the script runs past the busy
 * threshold without one. Values are shown as Redis shows them: Lua values as
 * literals ({1; 2}, {["k"]="v"}), replies of redis.call in a readable form. */
#include "features/ldb.h"
#include "features/scripting.h"
#include "persist/bgchild.h"
#include "server/client.h"
#include "server/reply.h"
#include "server/tls.h"
#include "core/numparse.h"
#include "core/zmalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lua.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define LDB_BREAKPOINTS_MAX 64
#define LDB_MAXLEN_DEFAULT 256
#define LDB_MAXLEN_MIN 60
#define LDB_MAX_VALUE_DEPTH 10    /* nested tables shown before giving up */
#define LDB_MAX_ARGS 1024         /* per debugger command, and bytes per argument */
#define LDB_MAX_BUFFER (1 << 20)  /* unparsed input before the session is dropped */
#define LDB_REDIS_ARGS_SHOWN 10
#define LDB_SEND_TIMEOUT_MS 5000
#define LDB_TIMEOUT_DEFAULT_MS 5000 /* when busy-reply-threshold is 0 */

static struct {
    int active, forked, fd;
    sds *src; /* the script's lines */
    int lines, currentline;
    int bp[LDB_BREAKPOINTS_MAX], bpcount;
    int step, luabp;
    sds *logs; /* lines not sent yet */
    int nlogs;
    sds cbuf; /* what the client sent, not parsed yet */
    size_t maxlen;
    int maxlen_hint_sent;
} ldb;

/* Forked sessions still running (the parent reaps them, or kills them on shutdown). */
static pid_t *children;
static int nchildren;

int ldbIsActive(void) { return ldb.active; }
int ldbIsStepping(void) { return ldb.active && ldb.step; }

/* ------------------------------------------------------------------ SCRIPT DEBUG */

void scriptDebugCommand(client *c) {
    /* The session takes the socket over: nothing may be waiting to go out first. */
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SCRIPT DEBUG must be called outside a pipeline");
        return;
    }
    const char *mode = objectPtr(c->argv[2]);
    if (!strcasecmp(mode, "no")) {
        c->flags &= ~(CLIENT_LUA_DEBUG | CLIENT_LUA_DEBUG_SYNC);
    } else if (!strcasecmp(mode, "yes")) {
        c->flags |= CLIENT_LUA_DEBUG;
        c->flags &= ~CLIENT_LUA_DEBUG_SYNC;
    } else if (!strcasecmp(mode, "sync")) {
        c->flags |= CLIENT_LUA_DEBUG | CLIENT_LUA_DEBUG_SYNC;
    } else {
        addReplyError(c, "Use SCRIPT DEBUG YES/SYNC/NO");
        return;
    }
    addReply(c, shared.ok);
}

/* ------------------------------------------------------------------------ the log */

static void ldbLog(sds entry) {
    ldb.logs = zrealloc(ldb.logs, sizeof(sds) * (ldb.nlogs + 1));
    ldb.logs[ldb.nlogs++] = entry;
}

/* Replies and values can be long: they are cut at maxlen, with a hint the first time. */
static void ldbLogWithMaxLen(sds entry) {
    int trimmed = 0;
    if (ldb.maxlen && sdslen(entry) > ldb.maxlen) {
        sdsrange(entry, 0, (ssize_t)ldb.maxlen - 1);
        entry = sdscatlen(entry, " ...", 4);
        trimmed = 1;
    }
    ldbLog(entry);
    if (trimmed && !ldb.maxlen_hint_sent) {
        ldb.maxlen_hint_sent = 1;
        ldbLog(sdsnew("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming."));
    }
}

static void writeAll(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = connWrite(fd, p, len); /* a TLS client's session goes on in the forked session */
        if (n < 0 && errno == EINTR) continue;
        /* A client gone is noticed by the next read, which ends the dialogue. */
        if (n <= 0) return;
        p += n;
        len -= (size_t)n;
    }
}

/* Sends the pending lines as one array of status replies (newlines become spaces). */
static void ldbSendLogs(void) {
    sds proto = sdscatprintf(sdsempty(), "*%d\r\n", ldb.nlogs);
    for (int j = 0; j < ldb.nlogs; j++) {
        sdsmapchars(ldb.logs[j], "\r\n", "  ", 2);
        proto = sdscatlen(proto, "+", 1);
        proto = sdscatsds(proto, ldb.logs[j]);
        proto = sdscatlen(proto, "\r\n", 2);
        sdsfree(ldb.logs[j]);
    }
    ldb.nlogs = 0;
    writeAll(ldb.fd, proto, sdslen(proto));
    sdsfree(proto);
}

/* --------------------------------------------------------------------- the source */

static const char *sourceLine(int line) {
    if (line < 1 || line > ldb.lines) return "<out of range source code line>";
    return ldb.src[line - 1];
}

static int isBreakpoint(int line) {
    for (int j = 0; j < ldb.bpcount; j++)
        if (ldb.bp[j] == line) return 1;
    return 0;
}

static int addBreakpoint(int line) {
    if (line <= 0 || line > ldb.lines || isBreakpoint(line)) return 0;
    ldb.bp[ldb.bpcount++] = line;
    return 1;
}

static int delBreakpoint(int line) {
    for (int j = 0; j < ldb.bpcount; j++) {
        if (ldb.bp[j] != line) continue;
        memmove(ldb.bp + j, ldb.bp + j + 1, sizeof(int) * (size_t)(ldb.bpcount - j - 1));
        ldb.bpcount--;
        return 1;
    }
    return 0;
}

/* "-> 4   code": the arrow marks the current line, '#' a breakpoint. */
static void logSourceLine(int line) {
    int current = line == ldb.currentline, bp = isBreakpoint(line);
    const char *prefix = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
    ldbLog(sdscatprintf(sdsempty(), "%s%-3d %s", prefix, line, sourceLine(line)));
}

/* The lines within context of around (0: every line). */
static void listSource(int around, int context) {
    for (int j = 1; j <= ldb.lines; j++) {
        if (around != 0 && abs(around - j) > context) continue;
        logSourceLine(j);
    }
}

/* ----------------------------------------------------------------- showing values */

static sds catLuaValue(sds s, lua_State *L, int idx, int level);

/* A table as an array {1; 2} when its keys are 1..n in order, else {[k]=v; ...}. */
static sds catLuaTable(sds s, lua_State *L, int idx, int level) {
    idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
    int is_array = 1;
    lua_Number expected = 1;
    sds as_array = sdsempty(), as_map = sdsempty();
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TNUMBER || lua_tonumber(L, -2) != expected) is_array = 0;
        if (sdslen(as_array)) as_array = sdscatlen(as_array, "; ", 2);
        as_array = catLuaValue(as_array, L, -1, level);
        if (sdslen(as_map)) as_map = sdscatlen(as_map, "; ", 2);
        as_map = sdscatlen(as_map, "[", 1);
        as_map = catLuaValue(as_map, L, -2, level);
        as_map = sdscatlen(as_map, "]=", 2);
        as_map = catLuaValue(as_map, L, -1, level);
        lua_pop(L, 1);
        expected++;
    }
    s = sdscatlen(s, "{", 1);
    s = sdscatsds(s, is_array ? as_array : as_map);
    s = sdscatlen(s, "}", 1);
    sdsfree(as_array);
    sdsfree(as_map);
    return s;
}

static sds catLuaValue(sds s, lua_State *L, int idx, int level) {
    if (level++ == LDB_MAX_VALUE_DEPTH) return sdscat(s, "<max recursion level reached! Nested table?>");
    int t = lua_type(L, idx);
    switch (t) {
    case LUA_TSTRING: {
        size_t len;
        const char *str = lua_tolstring(L, idx, &len);
        return sdscatrepr(s, str, len);
    }
    case LUA_TBOOLEAN: return sdscat(s, lua_toboolean(L, idx) ? "true" : "false");
    case LUA_TNUMBER: return sdscatprintf(s, "%g", (double)lua_tonumber(L, idx));
    case LUA_TNIL: return sdscat(s, "nil");
    case LUA_TTABLE:
        if (!lua_checkstack(L, 4)) return sdscat(s, "<max recursion level reached! Nested table?>");
        return catLuaTable(s, L, idx, level);
    default: {
        const char *name = t == LUA_TFUNCTION        ? "function"
                           : t == LUA_TUSERDATA      ? "userdata"
                           : t == LUA_TTHREAD        ? "thread"
                           : t == LUA_TLIGHTUSERDATA ? "light-userdata"
                                                     : "unknown";
        return sdscatprintf(s, "\"%s@%p\"", name, lua_topointer(L, idx));
    }
    }
}

/* Logs prefix + the value on top of the stack (left there). */
static void logStackValue(lua_State *L, const char *prefix) {
    ldbLogWithMaxLen(catLuaValue(sdsnew(prefix), L, -1, 0));
}

/* A RESP reply as the debugger shows it: bulk strings and status/error lines
 * quoted, integers bare, arrays [a,b], RESP3 maps {k => v}, sets ~(a,b),
 * doubles "(double) 1.5", null "(null)", booleans #true/#false. Types it
 * does not show (big numbers, verbatim strings, attributes) end the text;
 * NULL is returned then. */
static const char *catReplyHuman(sds *o, const char *p) {
    const char *crlf = strstr(p, "\r\n");
    long long n = 0;
    if (!crlf) return NULL;
    switch (*p) {
    case '$':
        string2ll(p + 1, (size_t)(crlf - p - 1), &n);
        if (n < 0) {
            *o = sdscat(*o, "NULL");
            return crlf + 2;
        }
        *o = sdscatrepr(*o, crlf + 2, (size_t)n);
        return crlf + 2 + n + 2;
    case '+':
    case '-': *o = sdscatrepr(*o, p, (size_t)(crlf - p)); return crlf + 2;
    case ':': *o = sdscatlen(*o, p + 1, (size_t)(crlf - p - 1)); return crlf + 2;
    case ',':
        *o = sdscat(*o, "(double) ");
        *o = sdscatlen(*o, p + 1, (size_t)(crlf - p - 1));
        return crlf + 2;
    case '_': *o = sdscat(*o, "(null)"); return crlf + 2;
    case '#': *o = sdscat(*o, p[1] == 't' ? "#true" : "#false"); return crlf + 2;
    case '*':
    case '~':
    case '%': {
        char type = *p;
        string2ll(p + 1, (size_t)(crlf - p - 1), &n);
        p = crlf + 2;
        if (n < 0) {
            *o = sdscat(*o, "NULL");
            return p;
        }
        *o = sdscat(*o, type == '*' ? "[" : type == '~' ? "~(" : "{");
        for (long long j = 0; j < n && p; j++) {
            if (j) *o = sdscatlen(*o, ",", 1);
            p = catReplyHuman(o, p);
            if (p && type == '%') {
                *o = sdscat(*o, " => ");
                p = catReplyHuman(o, p);
            }
        }
        if (!p) return NULL;
        *o = sdscat(*o, type == '*' ? "]" : type == '~' ? ")" : "}");
        return p;
    }
    default: return NULL;
    }
}

/* ----------------------------------------------------------- what redis.call reports */

void ldbLogRedisCommand(robj **argv, int argc) {
    sds line = sdsnew("<redis>");
    for (int j = 0; j < argc; j++) {
        if (j == LDB_REDIS_ARGS_SHOWN) {
            /* Redis counts the rest one short; redis-cli users know it that way. */
            line = sdscatprintf(line, " ... (%d more)", argc - j - 1);
            break;
        }
        line = sdscatlen(line, " ", 1);
        line = sdscatsds(line, objectPtr(argv[j]));
    }
    ldbLog(line);
}

void ldbLogRedisReply(const char *resp) {
    sds line = sdsnew("<reply> ");
    catReplyHuman(&line, resp);
    ldbLogWithMaxLen(line);
}

void ldbLogError(const char *err, size_t len) {
    ldbLog(sdscatlen(sdsnew("<error> "), err, len));
}

/* ----------------------------------------------------------------- redis.* helpers */

/* redis.debug(...): logs its arguments, when a session is on. */
static int luaRedisDebug(lua_State *L) {
    if (!ldb.active) return 0;
    int argc = lua_gettop(L);
    sds line = sdscatprintf(sdsempty(), "<debug> line %d: ", ldb.currentline);
    for (int j = 1; j <= argc; j++) {
        line = catLuaValue(line, L, j, 0);
        if (j != argc) line = sdscatlen(line, ", ", 2);
    }
    ldbLog(line);
    return 0;
}

/* redis.breakpoint(): stop at the next line; true when a session is on. */
static int luaRedisBreakpoint(lua_State *L) {
    if (ldb.active) ldb.luabp = 1;
    lua_pushboolean(L, ldb.active);
    return 1;
}

void ldbRegisterApi(lua_State *L, int index) {
    index = index < 0 ? lua_gettop(L) + index + 1 : index;
    lua_pushcfunction(L, luaRedisDebug);
    lua_setfield(L, index, "debug");
    lua_pushcfunction(L, luaRedisBreakpoint);
    lua_setfield(L, index, "breakpoint");
}

/* ------------------------------------------------------------------ the commands */

static void freeArgs(sds *argv, int argc) {
    for (int j = 0; j < argc; j++) sdsfree(argv[j]);
    zfree(argv);
}

/* "*<n>\r\n$<len>\r\n<arg>\r\n..." at the start of what was read (anything
 * before the first '*' is skipped). NULL with *err on a protocol error, NULL
 * alone when more must be read. */
static sds *parseCommand(int *argcp, const char **err) {
    const char *buf = ldb.cbuf, *end = buf + sdslen(ldb.cbuf);
    if (buf == end) return NULL;
    const char *p = memchr(buf, '*', (size_t)(end - buf));
    if (!p) goto protoerr;
    const char *nl = memmem(p, (size_t)(end - p), "\r\n", 2);
    if (!nl) return NULL;
    int argc = atoi(p + 1);
    if (argc <= 0 || argc > LDB_MAX_ARGS) goto protoerr;
    p = nl + 2;
    sds *argv = zmalloc(sizeof(sds) * (size_t)argc);
    int have = 0;
    while (have < argc) {
        if (p >= end) goto more;
        if (*p != '$') goto bad;
        nl = memmem(p, (size_t)(end - p), "\r\n", 2);
        if (!nl) goto more;
        int len = atoi(p + 1);
        if (len <= 0 || len > LDB_MAX_ARGS) goto bad;
        p = nl + 2;
        if (end - p < (ptrdiff_t)len + 2) goto more;
        argv[have++] = sdsnewlen(p, (size_t)len);
        p += len;
        if (p[0] != '\r' || p[1] != '\n') goto bad;
        p += 2;
    }
    *argcp = argc;
    return argv;
more:
    freeArgs(argv, have);
    return NULL;
bad:
    freeArgs(argv, have);
protoerr:
    *err = "protocol error";
    return NULL;
}

static void logHelp(void) {
    static const char *help[] = {
        "Redis Lua debugger help:",
        "[h]elp               Show this help.",
        "[s]tep               Run current line and stop again.",
        "[n]ext               Alias for step.",
        "[c]ontinue           Run till next breakpoint.",
        "[l]ist               List source code around current line.",
        "[l]ist [line]        List source code around [line].",
        "                     line = 0 means: current position.",
        "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
        "                     to show before/after [line].",
        "[w]hole              List all source code. Alias for 'list 1 1000000'.",
        "[p]rint              Show all the local variables.",
        "[p]rint <var>        Show the value of the specified variable.",
        "                     Can also show global vars KEYS and ARGV.",
        "[b]reak              Show all breakpoints.",
        "[b]reak <line>       Add a breakpoint to the specified line.",
        "[b]reak -<line>      Remove breakpoint from the specified line.",
        "[b]reak 0            Remove all breakpoints.",
        "[t]race              Show a backtrace.",
        "[e]val <code>        Execute some Lua code (in a different callframe).",
        "[r]edis <cmd>        Execute a Redis command.",
        "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
        "                     Specifying zero as <len> means unlimited.",
        "[a]bort              Stop the execution of the script. In sync",
        "                     mode dataset changes will be retained.",
        "",
        "Debugger functions you can call from Lua scripts:",
        "redis.debug()        Produce logs in the debugger console.",
        "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
        "                     next line of code.",
        NULL};
    for (int j = 0; help[j]; j++) ldbLog(sdsnew(help[j]));
}

/* print <name>: the innermost local of that name, at any level; KEYS and ARGV as globals. */
static void printVariable(lua_State *L, const char *name) {
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        const char *local;
        for (int i = 1; (local = lua_getlocal(L, &ar, i)) != NULL; i++) {
            if (!strcmp(name, local)) {
                logStackValue(L, "<value> ");
                lua_pop(L, 1);
                return;
            }
            lua_pop(L, 1);
        }
    }
    if (!strcmp(name, "ARGV") || !strcmp(name, "KEYS")) {
        lua_getglobal(L, name);
        logStackValue(L, "<value> ");
        lua_pop(L, 1);
    } else {
        ldbLog(sdsnew("No such variable."));
    }
}

/* print: the current function's locals. */
static void printLocals(lua_State *L) {
    lua_Debug ar;
    int shown = 0;
    if (lua_getstack(L, 0, &ar)) {
        const char *local;
        for (int i = 1; (local = lua_getlocal(L, &ar, i)) != NULL; i++) {
            if (!strstr(local, "(*temporary)")) {
                sds prefix = sdscatprintf(sdsempty(), "<value> %s = ", local);
                logStackValue(L, prefix);
                sdsfree(prefix);
                shown++;
            }
            lua_pop(L, 1);
        }
    }
    if (!shown) ldbLog(sdsnew("No local variables in the current context."));
}

static void trace(lua_State *L) {
    lua_Debug ar;
    int shown = 0;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Snl", &ar);
        if (!strstr(ar.short_src, "user_script")) continue;
        ldbLog(sdscatprintf(sdsempty(), "%s %s:", level == 0 ? "In" : "From", ar.name ? ar.name : "top level"));
        logSourceLine(ar.currentline);
        shown++;
    }
    if (!shown) ldbLog(sdsnew("<error> Can't retrieve Lua stack."));
}

static void breakCommand(sds *argv, int argc) {
    if (argc == 1) {
        if (ldb.bpcount == 0) {
            ldbLog(sdsnew("No breakpoints set. Use 'b <line>' to add one."));
            return;
        }
        ldbLog(sdscatprintf(sdsempty(), "%d breakpoints set:", ldb.bpcount));
        for (int j = 0; j < ldb.bpcount; j++) logSourceLine(ldb.bp[j]);
        return;
    }
    for (int j = 1; j < argc; j++) {
        long line;
        if (!string2l(argv[j], sdslen(argv[j]), &line)) {
            ldbLog(sdscatprintf(sdsempty(), "Invalid argument:'%s'", argv[j]));
        } else if (line == 0) {
            ldb.bpcount = 0;
            ldbLog(sdsnew("All breakpoints removed."));
        } else if (line > 0) {
            if (ldb.bpcount == LDB_BREAKPOINTS_MAX) ldbLog(sdsnew("Too many breakpoints set."));
            else if (addBreakpoint((int)line)) listSource((int)line, 1);
            else ldbLog(sdsnew("Wrong line number."));
        } else {
            if (delBreakpoint((int)-line)) ldbLog(sdsnew("Breakpoint removed."));
            else ldbLog(sdsnew("No breakpoint in the specified line."));
        }
    }
}

static void maxlenCommand(sds *argv, int argc) {
    if (argc == 2) {
        int len = atoi(argv[1]);
        ldb.maxlen_hint_sent = 1; /* the user knows about trimming */
        if (len != 0 && len <= LDB_MAXLEN_MIN) len = LDB_MAXLEN_MIN;
        ldb.maxlen = (size_t)len;
    }
    if (ldb.maxlen) ldbLog(sdscatprintf(sdsempty(), "<value> replies are truncated at %d bytes.", (int)ldb.maxlen));
    else ldbLog(sdsnew("<value> replies are unlimited."));
}

/* The message of an error value: a string, or a Redis error table's text. */
static sds errorText(lua_State *L) {
    if (lua_istable(L, -1)) {
        lua_pushliteral(L, "err");
        lua_rawget(L, -2);
        sds s = sdsnew(lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error");
        lua_pop(L, 1);
        return s;
    }
    return sdsnew(lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error");
}

/* eval <code>: as an expression first ("return <code>"), else as statements;
 * it sees the script's read-only globals, not its locals. */
static void ldbEvalCommand(lua_State *L, sds *argv, int argc) {
    sds code = sdsempty();
    for (int j = 1; j < argc; j++) {
        if (j > 1) code = sdscatlen(code, " ", 1);
        code = sdscatsds(code, argv[j]);
    }
    sds expr = sdscatsds(sdsnew("return "), code);
    int failed = luaL_loadbuffer(L, expr, sdslen(expr), "@ldb_eval");
    if (failed) {
        lua_pop(L, 1);
        failed = luaL_loadbuffer(L, code, sdslen(code), "@ldb_eval");
    }
    sdsfree(code);
    sdsfree(expr);
    if (!failed) {
        scriptingSetGlobalsEnv(L, -1);
        failed = lua_pcall(L, 0, 1, 0);
    }
    if (failed) {
        sds err = errorText(L);
        ldbLog(sdscatsds(sdsnew("<error> "), err));
        sdsfree(err);
    } else {
        logStackValue(L, "<retval> ");
    }
    lua_pop(L, 1);
}

/* redis <cmd> ...: through redis.call, stepping so that it logs the call. */
static void ldbRedisCommand(lua_State *L, sds *argv, int argc) {
    if (!lua_checkstack(L, argc + 1)) {
        ldbLog(sdsnew("<reply> max lua stack reached"));
        return;
    }
    lua_getglobal(L, "redis");
    lua_getfield(L, -1, "call");
    for (int j = 1; j < argc; j++) lua_pushlstring(L, argv[j], sdslen(argv[j]));
    ldb.step = 1;
    lua_pcall(L, argc - 1, 1, 0);
    ldb.step = 0;
    lua_pop(L, 2);
}

static int is(const char *cmd, const char *shortname, const char *name) {
    return !strcasecmp(cmd, shortname) || !strcasecmp(cmd, name);
}

/* Reads and runs debugger commands until one resumes the script. C_ERR when
 * the client went away (the script then runs to its end undisturbed). */
static int repl(lua_State *L) {
    for (;;) {
        sds *argv;
        int argc;
        const char *err = NULL;
        while ((argv = parseCommand(&argc, &err)) == NULL) {
            if (err) {
                sdsclear(ldb.cbuf);
                scriptingRaiseError(L, err);
            }
            char buf[1024];
            ssize_t n = connRead(ldb.fd, buf, sizeof(buf));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                ldb.step = 0;
                ldb.bpcount = 0;
                return C_ERR;
            }
            ldb.cbuf = sdscatlen(ldb.cbuf, buf, (size_t)n);
            if (sdslen(ldb.cbuf) > LDB_MAX_BUFFER) {
                sdsclear(ldb.cbuf);
                scriptingRaiseError(L, "max client buffer reached");
            }
        }
        /* Whatever came with the command is dropped. */
        sdsclear(ldb.cbuf);
        const char *cmd = argv[0];
        if (is(cmd, "s", "step") || is(cmd, "n", "next")) {
            ldb.step = 1;
            freeArgs(argv, argc);
            return C_OK;
        } else if (is(cmd, "c", "continue")) {
            freeArgs(argv, argc);
            return C_OK;
        } else if (is(cmd, "a", "abort")) {
            freeArgs(argv, argc);
            scriptingRaiseError(L, "script aborted for user request");
        } else if (is(cmd, "h", "help")) {
            logHelp();
        } else if (is(cmd, "t", "trace")) {
            trace(L);
        } else if (is(cmd, "m", "maxlen")) {
            maxlenCommand(argv, argc);
        } else if (is(cmd, "b", "break")) {
            breakCommand(argv, argc);
        } else if (is(cmd, "e", "eval")) {
            ldbEvalCommand(L, argv, argc);
        } else if (argc > 1 && is(cmd, "r", "redis")) {
            ldbRedisCommand(L, argv, argc);
        } else if (is(cmd, "l", "list")) {
            int around = ldb.currentline, context = 5;
            if (argc > 1) {
                int line = atoi(argv[1]);
                if (line > 0) around = line;
            }
            if (argc > 2) context = atoi(argv[2]);
            listSource(around, context);
        } else if (is(cmd, "w", "whole")) {
            listSource(1, 1000000);
        } else if (is(cmd, "p", "print")) {
            if (argc == 2) printVariable(L, argv[1]);
            else printLocals(L);
        } else {
            ldbLog(sdsnew("<error> Unknown Redis Lua debugger command or wrong number of arguments."));
        }
        ldbSendLogs();
        freeArgs(argv, argc);
    }
}

/* ------------------------------------------------------------------------ the hook */

static void hook(lua_State *L, lua_Debug *ar) {
    lua_getstack(L, 0, ar);
    lua_getinfo(L, "Sl", ar);
    ldb.currentline = ar->currentline;
    int bp = isBreakpoint(ldb.currentline) || ldb.luabp;
    int timeout = 0;
    /* Code the script loaded (loadstring) is not the script. */
    if (!strstr(ar->short_src, "user_script")) return;
    if (ar->event == LUA_HOOKCOUNT && !ldb.step && !bp) {
        long long limit = server.busy_reply_threshold ? server.busy_reply_threshold : LDB_TIMEOUT_DEFAULT_MS;
        if (scriptingElapsedMs() < limit) return;
        timeout = 1;
        ldb.step = 1;
    }
    if (!ldb.step && !bp) return;
    const char *reason = bp ? (ldb.luabp ? "redis.breakpoint() called" : "break point")
                         : timeout ? "timeout reached, infinite loop?"
                                   : "step over";
    ldb.step = 0;
    ldb.luabp = 0;
    ldbLog(sdscatprintf(sdsempty(), "* Stopped at %d, stop reason = %s", ldb.currentline, reason));
    logSourceLine(ldb.currentline);
    ldbSendLogs();
    /* With nobody left to resume it, a script stuck in a loop would hold the process forever. */
    if (repl(L) == C_ERR && timeout)
        scriptingRaiseError(L, "timeout during Lua debugging with client closing connection");
    scriptingRestartClock(); /* the time spent at the prompt is not the script's */
}

void ldbInstallHook(lua_State *L) { lua_sethook(L, hook, LUA_MASKLINE | LUA_MASKCOUNT, 100000); }

/* ---------------------------------------------------------------------- sessions */

static void setBlocking(int fd, int blocking, long long send_timeout_ms) {
    int flags = fcntl(fd, F_GETFL);
    if (flags != -1) fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
    struct timeval tv = {.tv_sec = send_timeout_ms / 1000, .tv_usec = (send_timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

int ldbStartSession(client *c) {
    ldb.forked = !(c->flags & CLIENT_LUA_DEBUG_SYNC);
    if (ldb.forked) {
        pid_t pid = bgchildFork(BGCHILD_OTHER);
        if (pid == -1) {
            c->flags &= ~(CLIENT_LUA_DEBUG | CLIENT_LUA_DEBUG_SYNC);
            addReplyErrorFormat(c, "Fork() failed: can't run EVAL in debugging mode: %s", strerror(errno));
            return 0;
        }
        if (pid > 0) {
            /* The child has the connection now: here it is forgotten. */
            children = zrealloc(children, sizeof(pid_t) * (size_t)(nchildren + 1));
            children[nchildren++] = pid;
            freeClientAsync(c);
            return 0;
        }
        serverLog(LL_WARNING, "Redis forked for debugging eval");
    } else {
        serverLog(LL_WARNING, "Redis synchronous debugging eval session started");
    }
    ldb.fd = c->fd;
    setBlocking(ldb.fd, 1, LDB_SEND_TIMEOUT_MS);
    /* A reply still queued goes first, or the client would read it as the debugger's. */
    sds pending = clientTakeReply(c);
    writeAll(ldb.fd, pending, sdslen(pending));
    sdsfree(pending);
    ldb.active = 1;
    ldb.step = 1;
    ldb.luabp = 0;
    ldb.bpcount = 0;
    ldb.currentline = -1;
    ldb.maxlen = LDB_MAXLEN_DEFAULT;
    ldb.maxlen_hint_sent = 0;
    if (ldb.cbuf) sdsclear(ldb.cbuf);
    else ldb.cbuf = sdsempty();
    /* The source, line by line, as the debugger lists it. */
    sds src = sdsdup(objectPtr(c->argv[1]));
    size_t len = sdslen(src);
    while (len && (src[len - 1] == '\n' || src[len - 1] == '\r')) len--;
    sdssetlen(src, len);
    src[len] = '\0';
    ldb.src = sdssplitlen(src, (ssize_t)len, "\n", 1, &ldb.lines);
    sdsfree(src);
    return 1;
}

void ldbEndSession(client *c) {
    ldbLog(sdsnew("<endsession>"));
    ldbSendLogs();
    if (ldb.forked) {
        /* The child's only client: its reply is written here, then the child goes. */
        sds reply = clientTakeReply(c);
        writeAll(ldb.fd, reply, sdslen(reply));
        sdsfree(reply);
        serverLog(LL_WARNING, "Lua debugging session child exiting");
        _exit(0);
    }
    serverLog(LL_WARNING, "Redis synchronous debugging eval session ended");
    setBlocking(ldb.fd, 0, 0);
    /* The end of the connection tells the client the session is over. */
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    sdsfreesplitres(ldb.src, ldb.lines);
    ldb.src = NULL;
    ldb.lines = 0;
    ldb.active = 0;
}

static void forgetChild(int j) {
    bgchildCollect(children[j]);
    children[j] = children[--nchildren];
}

void ldbCron(void) {
    for (int j = 0; j < nchildren;) {
        int status;
        pid_t pid = waitpid(children[j], &status, WNOHANG);
        if (pid == 0) {
            j++;
            continue;
        }
        forgetChild(j);
    }
}

void ldbKillForkedSessions(void) {
    while (nchildren) {
        serverLog(LL_WARNING, "Killing debugging session %ld", (long)children[0]);
        kill(children[0], SIGKILL);
        forgetChild(0);
    }
}
