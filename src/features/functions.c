/* functions: Redis 7.0 functions — FUNCTION LOAD/DELETE/FLUSH/LIST/STATS/KILL/HELP
 * and FCALL/FCALL_RO — on the Lua engine of features/scripting.
 *
 * Libraries run in an interpreter of their own (SCRIPT FLUSH does not touch
 * them). Loading a library runs its code once with `redis` bound to the
 * library API (register_function, log, version constants); the callbacks it
 * registers are kept in the registry and later run through the script runner
 * with (keys, args), seeing the full redis API, as in Redis. Libraries are
 * persisted as their code (persist/rdb.c, persist/aof.c through functions.h),
 * and FUNCTION DUMP/RESTORE move them as RDB-format payloads. */
#include "features/functions.h"
#include "features/scripting.h"
#include "persist/rdb.h"
#include "server/keyhook.h"
#include "server/lazyfree.h"
#include "server/reply.h"
#include "core/clock.h"
#include "core/glob.h"
#include "core/zmalloc.h"

#include <ctype.h>
#include <lauxlib.h>
#include <lua.h>
#include <string.h>
#include <strings.h>

typedef struct libraryInfo libraryInfo;

typedef struct functionInfo {
    sds name;
    sds desc; /* NULL: no description */
    int flags; /* SCRIPT_FLAG_* */
    int ref;   /* the callback, in the registry */
    libraryInfo *lib;
} functionInfo;

struct libraryInfo {
    sds name;
    sds code;
    list *functions; /* functionInfo*, in registration order */
};

/* A set of libraries and the functions they register. The server uses one;
 * FUNCTION RESTORE loads its payload into a second and merges that only when
 * every library in it loaded, so a failed restore changes nothing. */
typedef struct librarySet {
    dict *libraries; /* name → libraryInfo */
    dict *functions; /* name → functionInfo (owned by their library) */
} registry;

static lua_State *flua;
static registry *current;

void functionsGetMemory(functionsMemory *fm) {
    memset(fm, 0, sizeof(*fm));
    fm->vm_bytes = scriptingLuaMemory(flua);
    if (!current) return;
    fm->libraries = dictSize(current->libraries);
    fm->functions = dictSize(current->functions);
    fm->registry_bytes = sizeof(*current) + dictMemUsage(current->libraries) + dictMemUsage(current->functions);
    dictIterator *di = dictGetIterator(current->libraries);
    dictEntry *de;
    while ((de = dictNext(di))) {
        libraryInfo *li = dictGetVal(de);
        fm->registry_bytes += sizeof(*li) + sdsAllocSize(li->name) + sdsAllocSize(li->code);
        fm->registry_bytes += li->functions ? listLength(li->functions) * sizeof(functionInfo) : 0;
    }
    dictReleaseIterator(di);
}
static libraryInfo *loading; /* the library FUNCTION LOAD is running, else NULL */
static int load_index_ref;  /* globals' __index while library code loads: only `redis`, the library API */

/* Library names are case sensitive, function names are not (as in Redis). */
static dictType librariesDictType = {dictSdsHash, NULL, dictSdsKeyCompare, dictSdsDestructor, NULL, NULL, 0, 0, NULL};
static dictType functionsDictType = {dictSdsCaseHash, NULL, dictSdsKeyCaseCompare, dictSdsDestructor, NULL, NULL, 0, 0, NULL};

static const struct {
    const char *name;
    int flag;
} functionFlags[] = {{"no-writes", SCRIPT_FLAG_NO_WRITES},
                     {"allow-oom", SCRIPT_FLAG_ALLOW_OOM},
                     {"allow-stale", SCRIPT_FLAG_ALLOW_STALE},
                     {"no-cluster", SCRIPT_FLAG_NO_CLUSTER},
                     {"allow-cross-slot-keys", SCRIPT_FLAG_ALLOW_CROSS_SLOT},
                     {NULL, 0}};

static void freeFunction(functionInfo *fi) {
    if (fi->ref != LUA_NOREF) luaL_unref(flua, LUA_REGISTRYINDEX, fi->ref);
    sdsfree(fi->name);
    sdsfree(fi->desc);
    zfree(fi);
}

static void freeLibrary(libraryInfo *li) {
    while (listLength(li->functions)) {
        listNode *ln = listFirst(li->functions);
        freeFunction(listNodeValue(ln));
        listDelNode(li->functions, ln);
    }
    listRelease(li->functions);
    sdsfree(li->name);
    sdsfree(li->code);
    zfree(li);
}

/* Removes a library and its functions from reg and frees it. */
static void unlinkLibrary(registry *reg, libraryInfo *li) {
    listIter it;
    listNode *ln;
    listRewind(li->functions, &it);
    while ((ln = listNext(&it))) dictDelete(reg->functions, ((functionInfo *)listNodeValue(ln))->name);
    dictDelete(reg->libraries, li->name);
    freeLibrary(li);
}

/* Makes a library and its functions reachable by name in reg. */
static void linkLibrary(registry *reg, libraryInfo *li) {
    dictAdd(reg->libraries, sdsdup(li->name), li);
    listIter it;
    listNode *ln;
    listRewind(li->functions, &it);
    while ((ln = listNext(&it))) {
        functionInfo *fi = listNodeValue(ln);
        dictAdd(reg->functions, sdsdup(fi->name), fi);
    }
}

static registry *registryCreate(void) {
    registry *reg = zmalloc(sizeof(*reg));
    reg->libraries = dictCreate(&librariesDictType);
    reg->functions = dictCreate(&functionsDictType);
    return reg;
}

static void registryEmpty(registry *reg) {
    dictIterator *di = dictGetSafeIterator(reg->libraries);
    dictEntry *de;
    while ((de = dictNext(di))) unlinkLibrary(reg, dictGetVal(de));
    dictReleaseIterator(di);
}

static void registryFree(registry *reg) {
    registryEmpty(reg);
    dictRelease(reg->libraries);
    dictRelease(reg->functions);
    zfree(reg);
}

/* Letters, digits and underscores, at least one. */
static int validName(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_') return 0;
    return 1;
}

static const char *badNameError =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

/* ------------------------------------------------------- register_function */

static functionInfo *findInLoading(const char *name) {
    listIter it;
    listNode *ln;
    listRewind(loading->functions, &it);
    while ((ln = listNext(&it))) {
        functionInfo *fi = listNodeValue(ln);
        if (!strcasecmp(fi->name, name)) return fi;
    }
    return NULL;
}

/* The flags table at the top of the stack into *flags; 0 on an unknown flag. */
static int readFlags(lua_State *L, int *flags) {
    *flags = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        const char *f = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int found = 0;
        for (int i = 0; f && functionFlags[i].name; i++)
            if (!strcmp(f, functionFlags[i].name)) *flags |= functionFlags[i].flag, found = 1;
        lua_pop(L, 1);
        if (!found) {
            lua_pop(L, 1);
            return 0;
        }
    }
    return 1;
}

/* redis.register_function(name, callback) or redis.register_function{function_name=,
 * callback=, flags=, description=}. */
static int luaRegisterFunction(lua_State *L) {
    if (!loading) return scriptingRaiseError(L, "redis.register_function can only be called on FUNCTION LOAD command");
    int argc = lua_gettop(L);
    int flags = 0;
    const char *desc = NULL;
    if (argc == 1) {
        if (!lua_istable(L, 1))
            return scriptingRaiseError(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
        lua_pushnil(L);
        while (lua_next(L, 1)) {
            lua_pop(L, 1);
            const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (strcmp(key, "function_name") && strcmp(key, "callback") && strcmp(key, "flags") &&
                strcmp(key, "description"))
                return scriptingRaiseError(L, "unknown argument given to redis.register_function");
        }
        lua_getfield(L, 1, "function_name");
        lua_getfield(L, 1, "callback");
        lua_getfield(L, 1, "description");
        lua_getfield(L, 1, "flags");
        /* Stack: 1 table, 2 name, 3 callback, 4 description, 5 flags. */
        if (lua_isnil(L, 2)) return scriptingRaiseError(L, "redis.register_function must get a function name argument");
        if (!lua_isstring(L, 2))
            return scriptingRaiseError(L, "function_name argument given to redis.register_function must be a string");
        if (lua_isnil(L, 3)) return scriptingRaiseError(L, "redis.register_function must get a callback argument");
        if (!lua_isfunction(L, 3))
            return scriptingRaiseError(L, "callback argument given to redis.register_function must be a function");
        if (!lua_isnil(L, 4)) {
            if (!lua_isstring(L, 4))
                return scriptingRaiseError(L, "description argument given to redis.register_function must be a string");
            desc = lua_tostring(L, 4);
        }
        if (!lua_isnil(L, 5)) {
            if (!lua_istable(L, 5))
                return scriptingRaiseError(L, "flags argument to redis.register_function must be a table representing function flags");
            if (!readFlags(L, &flags)) return scriptingRaiseError(L, "unknown flag given");
        }
    } else if (argc == 2) {
        if (lua_type(L, 1) != LUA_TSTRING && lua_type(L, 1) != LUA_TNUMBER) return scriptingRaiseError(L, "first argument to redis.register_function must be a string");
        if (!lua_isfunction(L, 2)) return scriptingRaiseError(L, "second argument to redis.register_function must be a function");
        lua_pushnil(L);
        lua_insert(L, 1);
        /* Stack: 1 nil, 2 name, 3 callback. */
    } else {
        return scriptingRaiseError(L, "wrong number of arguments to redis.register_function");
    }
    size_t len;
    const char *name = lua_tolstring(L, 2, &len);
    if (!validName(name, len)) return scriptingRaiseError(L, badNameError);
    if (findInLoading(name)) return scriptingRaiseError(L, "Function already exists in the library");
    functionInfo *fi = zcalloc(sizeof(*fi));
    fi->name = sdsnewlen(name, len);
    fi->desc = desc ? sdsnew(desc) : NULL;
    fi->flags = flags;
    fi->lib = loading;
    lua_pushvalue(L, 3);
    fi->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    listAddNodeTail(loading->functions, fi);
    return 0;
}

/* ------------------------------------------------------------------- loading */

/* Reads "#!<engine> name=<lib>" from the first line, split as redis-cli
 * splits a line (name="lib" is lib). Returns the library name or NULL with
 * *err set; Redis's order: bad arguments, no name, a bad name, then the engine. */
static sds parseLibraryMetadata(sds code, sds *err) {
    *err = NULL;
    if (sdslen(code) < 2 || code[0] != '#' || code[1] != '!') {
        *err = sdsnew("Missing library metadata");
        return NULL;
    }
    const char *eol = strchr(code, '\n');
    sds line = sdsnewlen(code, eol ? (size_t)(eol - code) : sdslen(code));
    int n;
    sds *parts = sdssplitargs(line, &n);
    sdsfree(line);
    if (!parts || n == 0) {
        if (parts) sdsfreesplitres(parts, n);
        *err = sdsnew("Invalid library metadata");
        return NULL;
    }
    sds name = NULL;
    for (int i = 1; i < n && !*err; i++) {
        if (!strncmp(parts[i], "name=", 5)) {
            if (name) *err = sdsnew("Invalid metadata value, name argument was given multiple times");
            else name = sdsnew(parts[i] + 5);
        } else {
            *err = sdscatprintf(sdsempty(), "Invalid metadata value given: %s", parts[i]);
        }
    }
    if (!*err && !name) *err = sdsnew("Library name was not given");
    if (!*err && !validName(name, sdslen(name))) *err = sdsnew(badNameError);
    if (!*err && strcasecmp(parts[0] + 2, "lua")) *err = sdscatprintf(sdsempty(), "Engine '%s' not found", parts[0] + 2);
    sdsfreesplitres(parts, n);
    if (*err) {
        sdsfree(name);
        return NULL;
    }
    return name;
}

/* Library code runs once, at load: it may not take the server with it. */
#define LOAD_TIMEOUT_MS 500
static monotime load_start;

static void loadTimeoutHook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    if ((getMonotonicUs() - load_start) / 1000 > LOAD_TIMEOUT_MS) {
        lua_sethook(L, loadTimeoutHook, LUA_MASKLINE, 0); /* raise again on the next line if caught */
        scriptingRaiseError(L, "FUNCTION LOAD timeout");
    }
}

/* Runs the library code, collecting its functions into li. Returns NULL or an error. */
static sds runLibraryCode(libraryInfo *li) {
    lua_State *L = flua;
    sds chunk = sdsdup(li->code);
    chunk[0] = '-', chunk[1] = '-'; /* the metadata line becomes a comment; line numbers stay */
    int failed = luaL_loadbuffer(L, chunk, sdslen(chunk), "@user_function");
    sdsfree(chunk);
    if (failed) {
        sds err = sdscatprintf(sdsempty(), "Error compiling function: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return err;
    }
    /* The code sees the read-only globals every script sees; while it is
     * loading they read from the library API alone (only `redis`, with
     * register_function), as in Redis: its functions, once called, see all. */
    scriptingSetGlobalsEnv(L, -1);          /* chunk */
    lua_getfenv(L, -1);                     /* chunk, globals proxy */
    lua_getmetatable(L, -1);                /* chunk, proxy, its metatable */
    lua_remove(L, -2);                      /* chunk, mt */
    lua_getfield(L, -1, "__index");         /* chunk, mt, runtime index */
    lua_rawgeti(L, LUA_REGISTRYINDEX, load_index_ref);
    lua_setfield(L, -3, "__index");
    lua_pushvalue(L, -3);
    lua_remove(L, -4);                      /* mt, runtime index, chunk */
    lua_pushcfunction(L, scriptingErrorHandler);
    lua_insert(L, -2);
    loading = li;
    load_start = getMonotonicUs();
    lua_sethook(L, loadTimeoutHook, LUA_MASKCOUNT, 100000);
    failed = lua_pcall(L, 0, 0, -2);
    lua_sethook(L, NULL, 0, 0);
    loading = NULL;
    sds err = NULL;
    if (failed) {
        lua_getfield(L, -1, "err");
        err = sdscatprintf(sdsempty(), "Error registering functions: %s",
                           lua_isstring(L, -1) ? lua_tostring(L, -1) : "unknown error");
        lua_pop(L, 2);
    }
    lua_pop(L, 1);                  /* the handler */
    lua_setfield(L, -2, "__index"); /* the runtime globals again */
    lua_pop(L, 1);
    return err;
}

/* FUNCTION LOAD into reg: returns the library name, or NULL with *err set. */
static sds loadLibrary(registry *reg, sds code, int replace, sds *err) {
    sds name = parseLibraryMetadata(code, err);
    if (!name) return NULL;
    libraryInfo *old = dictFetchValue(reg->libraries, name);
    if (old && !replace) {
        *err = sdscatprintf(sdsempty(), "Library '%s' already exists", name);
        sdsfree(name);
        return NULL;
    }
    libraryInfo *li = zcalloc(sizeof(*li));
    li->name = sdsdup(name);
    li->code = sdsdup(code);
    li->functions = listCreate();
    *err = runLibraryCode(li);
    if (!*err && listLength(li->functions) == 0) *err = sdsnew("No functions registered");
    listIter it;
    listNode *ln;
    listRewind(li->functions, &it);
    while (!*err && (ln = listNext(&it))) {
        functionInfo *other = dictFetchValue(reg->functions, ((functionInfo *)listNodeValue(ln))->name);
        if (other && other->lib != old) *err = sdscatprintf(sdsempty(), "Function %s already exists", other->name);
    }
    if (*err) {
        freeLibrary(li);
        sdsfree(name);
        return NULL;
    }
    if (old) unlinkLibrary(reg, old);
    linkLibrary(reg, li);
    return name;
}

/* loadLibrary for callers that want only the error: NULL on success. */
static sds createLibrary(registry *reg, sds code, int replace) {
    sds err = NULL;
    sdsfree(loadLibrary(reg, code, replace, &err));
    return err;
}

static sds storeCreate(sds code, int replace) { return createLibrary(current, code, replace); }

static int storeForEachCode(int (*fn)(void *ctx, sds code), void *ctx) {
    dictIterator *di = dictGetIterator(current->libraries);
    dictEntry *de;
    int ok = 1;
    while (ok && (de = dictNext(di))) ok = fn(ctx, ((libraryInfo *)dictGetVal(de))->code);
    dictReleaseIterator(di);
    return ok;
}

void functionsFlushAll(void) {
    registryEmpty(current);
    lua_gc(flua, LUA_GCCOLLECT, 0);
}

static librarySet *storeSetAside(librarySet *set) {
    registry *old = current;
    current = set ? set : registryCreate();
    return old;
}

static void storeFreeSet(librarySet *set) {
    registryFree(set);
    lua_gc(flua, LUA_GCCOLLECT, 0);
}

const libraryStore functionsLibraryStore = {
    .create = storeCreate,
    .for_each_code = storeForEachCode,
    .flush_all = functionsFlushAll,
    .set_aside = storeSetAside,
    .free_set = storeFreeSet,
};

static void createLoadApi(void) {
    lua_State *L = flua;
    lua_newtable(L); /* the real table behind the read-only proxy */
    lua_pushcfunction(L, luaRegisterFunction);
    lua_setfield(L, -2, "register_function");
    /* Copied from the runtime API: log, its levels, the version. */
    static const char *shared_names[] = {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
                                         "REDIS_VERSION", "REDIS_VERSION_NUM", NULL};
    lua_getfield(L, LUA_GLOBALSINDEX, "redis");
    for (int i = 0; shared_names[i]; i++) {
        lua_getfield(L, -1, shared_names[i]);
        lua_setfield(L, -3, shared_names[i]);
    }
    lua_pop(L, 1);
    scriptingPushReadonlyProxy(L, -1, 1); /* api, its proxy */
    lua_newtable(L);                      /* the load-time globals: redis alone */
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "redis");
    scriptingPushReadonlyProxy(L, -1, 1); /* ..., globals, their strict proxy */
    lua_getmetatable(L, -1);
    lua_getfield(L, -1, "__index");       /* strict reads of the load-time globals */
    load_index_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 5);
}

void functionsInit(void) {
    flua = scriptingNewInterpreter();
    current = registryCreate();
    createLoadApi();
}

/* ------------------------------------------------------------------ commands */

void functionLoadCommand(client *c) {
    int replace = 0;
    int argpos = 2;
    /* Options, then the code as the last argument. */
    while (argpos < c->argc - 1) {
        const char *opt = objectPtr(c->argv[argpos++]);
        if (strcasecmp(opt, "replace")) {
            addReplyErrorFormat(c, "Unknown option given: %s", opt);
            return;
        }
        replace = 1;
    }
    sds err = NULL;
    sds name = loadLibrary(current, objectPtr(c->argv[argpos]), replace, &err);
    if (!name) {
        addReplyErrorSds(c, err);
        return;
    }
    keyChanged(NULL, NULL, 0, NULL, 1); /* a write outside the keyspace */
    addReplyBulkSds(c, name);
}

void functionDeleteCommand(client *c) {
    libraryInfo *li = dictFetchValue(current->libraries, objectPtr(c->argv[2]));
    if (!li) {
        addReplyError(c, "Library not found");
        return;
    }
    unlinkLibrary(current, li);
    keyChanged(NULL, NULL, 0, NULL, 1); /* a write outside the keyspace */
    addReply(c, shared.ok);
}

static void freeRegistryJob(void *reg) { registryFree(reg); }

/* FUNCTION FLUSH. As in Redis 7.0, an async flush of more than
 * LAZYFREE_THRESHOLD functions frees the libraries in the lazy free thread
 * (counted in lazyfreed_objects). Their callbacks leave the interpreter here
 * first, as it is the main thread's alone; the collector reclaims them as it
 * goes, where a sync flush collects at once. */
static void flushFunctions(int async) {
    size_t count = dictSize(current->functions);
    if (!async || count <= LAZYFREE_THRESHOLD) {
        functionsFlushAll();
        return;
    }
    registry *old = current;
    current = registryCreate();
    dictIterator *di = dictGetIterator(old->functions);
    dictEntry *de;
    while ((de = dictNext(di))) {
        functionInfo *fi = dictGetVal(de);
        luaL_unref(flua, LUA_REGISTRYINDEX, fi->ref);
        fi->ref = LUA_NOREF;
    }
    dictReleaseIterator(di);
    lazyfreeCall(freeRegistryJob, old, count);
}

void functionFlushCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    int async;
    if (c->argc == 2) async = server.lazyfree_lazy_user_flush;
    else if (!strcasecmp(objectPtr(c->argv[2]), "sync")) async = 0;
    else if (!strcasecmp(objectPtr(c->argv[2]), "async")) async = 1;
    else {
        addReplyError(c, "FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    flushFunctions(async);
    keyChanged(NULL, NULL, 0, NULL, 1); /* a write outside the keyspace */
    addReply(c, shared.ok);
}

void functionDumpCommand(client *c) { addReplyBulkSds(c, rdbDumpFunctions()); }

enum restorePolicy { RESTORE_APPEND, RESTORE_REPLACE, RESTORE_FLUSH };

static sds loadIntoRegistry(void *reg, sds code) { return createLibrary(reg, code, 0); }

/* Moves every library of incoming into the server's registry and frees
 * incoming, or changes nothing and returns the error (incoming kept). */
static sds mergeRegistry(registry *incoming, enum restorePolicy policy) {
    if (policy == RESTORE_FLUSH) {
        registryFree(current);
        current = incoming;
        return NULL;
    }
    dictIterator *di = dictGetIterator(incoming->libraries);
    dictEntry *de;
    sds err = NULL;
    while (!err && (de = dictNext(di))) {
        libraryInfo *li = dictGetVal(de);
        if (policy == RESTORE_APPEND && dictFind(current->libraries, li->name))
            err = sdscatprintf(sdsempty(), "Library %s already exists", li->name);
    }
    dictReleaseIterator(di);
    /* A function may keep its name only when REPLACE drops the library that has it. */
    di = dictGetIterator(incoming->functions);
    while (!err && (de = dictNext(di))) {
        functionInfo *other = dictFetchValue(current->functions, dictGetKey(de));
        if (other && !dictFind(incoming->libraries, other->lib->name))
            err = sdscatprintf(sdsempty(), "Function %s already exists", other->name);
    }
    dictReleaseIterator(di);
    if (err) return err;
    di = dictGetIterator(incoming->libraries);
    while ((de = dictNext(di))) {
        libraryInfo *li = dictGetVal(de);
        libraryInfo *old = dictFetchValue(current->libraries, li->name);
        if (old) unlinkLibrary(current, old);
        linkLibrary(current, li);
    }
    dictReleaseIterator(di);
    /* The libraries now belong to the server's registry: release only the indexes. */
    dictRelease(incoming->libraries);
    dictRelease(incoming->functions);
    zfree(incoming);
    return NULL;
}

void functionRestoreCommand(client *c) {
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    enum restorePolicy policy = RESTORE_APPEND;
    if (c->argc == 4) {
        const char *p = objectPtr(c->argv[3]);
        if (!strcasecmp(p, "flush")) policy = RESTORE_FLUSH;
        else if (!strcasecmp(p, "replace")) policy = RESTORE_REPLACE;
        else if (strcasecmp(p, "append")) {
            addReplyError(c, "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
    }
    sds payload = objectPtr(c->argv[2]);
    registry *incoming = registryCreate();
    sds err = rdbRestoreFunctionsPayload(payload, sdslen(payload), loadIntoRegistry, incoming);
    if (!err) err = mergeRegistry(incoming, policy);
    if (err) {
        registryFree(incoming);
        lua_gc(flua, LUA_GCCOLLECT, 0);
        addReplyErrorSds(c, err);
        return;
    }
    keyChanged(NULL, NULL, 0, NULL, 1); /* a write outside the keyspace */
    addReply(c, shared.ok);
}

static void addReplyFunction(client *c, functionInfo *fi) {
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "name");
    addReplyBulkCBuffer(c, fi->name, sdslen(fi->name));
    addReplyBulkCString(c, "description");
    if (fi->desc) addReplyBulkCBuffer(c, fi->desc, sdslen(fi->desc));
    else addReplyNull(c);
    addReplyBulkCString(c, "flags");
    int n = 0;
    for (int i = 0; functionFlags[i].name; i++)
        if (fi->flags & functionFlags[i].flag) n++;
    addReplySetLen(c, n);
    for (int i = 0; functionFlags[i].name; i++)
        if (fi->flags & functionFlags[i].flag) addReplyStatus(c, functionFlags[i].name);
}

void functionListCommand(client *c) {
    int with_code = 0;
    const char *pattern = NULL;
    for (int i = 2; i < c->argc; i++) {
        const char *arg = objectPtr(c->argv[i]);
        if (!with_code && !strcasecmp(arg, "withcode")) {
            with_code = 1;
        } else if (!pattern && !strcasecmp(arg, "libraryname")) {
            if (i == c->argc - 1) {
                addReplyError(c, "library name argument was not given");
                return;
            }
            pattern = objectPtr(c->argv[++i]);
        } else {
            addReplyErrorFormat(c, "Unknown argument %s", arg);
            return;
        }
    }
    void *len = addReplyDeferredLen(c);
    long count = 0;
    dictIterator *di = dictGetIterator(current->libraries);
    dictEntry *de;
    while ((de = dictNext(di))) {
        libraryInfo *li = dictGetVal(de);
        if (pattern && !stringmatchlen(pattern, strlen(pattern), li->name, sdslen(li->name), 1)) continue;
        count++;
        addReplyMapLen(c, with_code ? 4 : 3);
        addReplyBulkCString(c, "library_name");
        addReplyBulkCBuffer(c, li->name, sdslen(li->name));
        addReplyBulkCString(c, "engine");
        addReplyBulkCString(c, "LUA");
        addReplyBulkCString(c, "functions");
        addReplyArrayLen(c, (long)listLength(li->functions));
        listIter it;
        listNode *ln;
        listRewind(li->functions, &it);
        while ((ln = listNext(&it))) addReplyFunction(c, listNodeValue(ln));
        if (with_code) {
            addReplyBulkCString(c, "library_code");
            addReplyBulkCBuffer(c, li->code, sdslen(li->code));
        }
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, len, count);
}

void functionStatsCommand(client *c) {
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "running_script");
    scriptingReplyRunningScript(c);
    addReplyBulkCString(c, "engines");
    addReplyMapLen(c, 1);
    addReplyBulkCString(c, "LUA");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "libraries_count");
    addReplyLongLong(c, (long long)dictSize(current->libraries));
    addReplyBulkCString(c, "functions_count");
    addReplyLongLong(c, (long long)dictSize(current->functions));
}

void functionKillCommand(client *c) { scriptingKill(c, 0); }

void functionHelpCommand(client *c) {
    const char *help[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        NULL};
    addReplyHelp(c, help);
}

static void fcallGeneric(client *c, int ro) {
    /* Shown before the commands the function runs, as EVAL is. */
    scriptingFeedMonitor(c);
    functionInfo *fi = dictFetchValue(current->functions, objectPtr(c->argv[1]));
    if (!fi) {
        addReplyError(c, "Function not found");
        return;
    }
    long long numkeys;
    if (scriptingGetNumkeys(c, "Bad number of keys provided", &numkeys) != C_OK) return;
    lua_rawgeti(flua, LUA_REGISTRYINDEX, fi->ref);
    scriptingPushStringArray(flua, c->argv + 3, (int)numkeys);
    scriptingPushStringArray(flua, c->argv + 3 + numkeys, c->argc - 3 - (int)numkeys);
    scriptingRun(c, flua, fi->name, 2, fi->flags | SCRIPT_FLAG_SHEBANG, ro, 1);
}

int functionDeclaredFlags(robj *name) {
    functionInfo *fi = dictFetchValue(current->functions, objectPtr(name));
    return fi ? fi->flags | SCRIPT_FLAG_SHEBANG : 0;
}

void fcallCommand(client *c) { fcallGeneric(c, 0); }
void fcallRoCommand(client *c) { fcallGeneric(c, 1); }
