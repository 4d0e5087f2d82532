/* prefetch: a pipeline's keys are brought into the CPU's cache together.
 *
 * In a keyspace bigger than the caches, finding a key is two or three
 * dependent cache misses (its bucket, its object, the rest of the object),
 * and a pipelined GET or INCR waits on them longer than it runs. When a
 * client's query buffer holds several whole commands, their keys' buckets are
 * requested at once, then the objects the buckets lead to, and only then do
 * the commands run: the misses overlap instead of queueing. The same for the
 * members a pipeline looks up in one big hash, set or sorted set (HSET h f v,
 * SADD s m, ZADD z 1 m ...), in the table the value keeps them in. Only hints:
 * a guess made wrong by the commands before (a SELECT, a key deleted, a
 * rehash, ZADD's options moving its members) costs a wasted prefetch. */
#include "server/prefetch.h"
#include "server/command.h"
#include "server/db.h"
#include "server/resp_parse.h"

#include <string.h>

/* A keyspace this small stays in the caches: looking ahead would only cost. */
#define PREFETCH_MIN_KEYS 16384
/* The same for a value's members. */
#define PREFETCH_MIN_MEMBERS 4096
/* Reads whose commands are not looked at after a look that found nothing to fetch. */
#define PREFETCH_REST 8
/* The arguments one look at a command takes in (MSET's first keys). */
#define PEEK_ARGS 32

void prefetchMarkMemberCommands(void) {
    static const struct {
        const char *name;
        int first, step;
    } members[] = {
        {"hset", 2, 2},    {"hmset", 2, 2},  {"hsetnx", 2, 0},     {"hget", 2, 0},       {"hmget", 2, 1},
        {"hincrby", 2, 0}, {"hincrbyfloat", 2, 0}, {"hexists", 2, 0}, {"hdel", 2, 1},    {"hstrlen", 2, 0},
        {"sadd", 2, 1},    {"srem", 2, 1},   {"sismember", 2, 0},  {"smismember", 2, 1}, {"zadd", 3, 2},
        {"zincrby", 3, 0}, {"zscore", 2, 0}, {"zmscore", 2, 1},    {"zrem", 2, 1},       {"zrank", 2, 0},
        {"zrevrank", 2, 0},
    };
    for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
        struct redisCommand *cmd = lookupCommandByCString(members[i].name);
        if (!cmd) continue;
        cmd->member_first = members[i].first;
        cmd->member_step = members[i].step;
    }
}

/* Fewer unread bytes than this, before any command of a read ran, are
 * mostly one command: not worth a look ahead. */
#define PREFETCH_MIN_BYTES 256

static int sameBytes(const char *a, size_t alen, const char *b, size_t blen) {
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* Keys (or members) as bytes, for dictPrefetchSdsKeys. */
typedef struct byteKeys {
    const char *ptr[DICT_PREFETCH_MAX];
    size_t len[DICT_PREFETCH_MAX];
    int n;
} byteKeys;

/* Adds a key (or member) unless it is the one added last (LPUSH mylist ...:
 * in the cache by then). */
static void addKey(byteKeys *k, const respArg *a) {
    if (k->n == DICT_PREFETCH_MAX) return;
    if (k->n && sameBytes(k->ptr[k->n - 1], k->len[k->n - 1], a->ptr, a->len)) return;
    k->ptr[k->n] = a->ptr;
    k->len[k->n++] = a->len;
}

/* The members of one value the pipeline looks up: the first key whose
 * command looks up members, and those of every command on that same key. */
typedef struct memberLookups {
    respArg key;
    byteKeys members;
} memberLookups;

static void collectMembers(memberLookups *ml, struct redisCommand *cmd, const respArg *args, int argc) {
    const respArg *key = &args[cmd->firstkey];
    if (ml->key.ptr == NULL) ml->key = *key;
    else if (!sameBytes(ml->key.ptr, ml->key.len, key->ptr, key->len)) return;
    for (int k = cmd->member_first; k < argc && k < PEEK_ARGS && ml->members.n < DICT_PREFETCH_MAX;
         k += cmd->member_step) {
        addKey(&ml->members, &args[k]);
        if (cmd->member_step == 0) break;
    }
}

static void prefetchMembers(client *c, memberLookups *ml) {
    robj *o = dbPeekValue(c->db, ml->key.ptr, ml->key.len);
    if (o) valuePrefetchMembers(o, ml->members.ptr, ml->members.len, ml->members.n, PREFETCH_MIN_MEMBERS);
}

void prefetchQueuedKeys(client *c) {
    /* Not for a lone command (one per read, as without pipelining): only once
     * one ran and more follow, or the bytes are more than one takes. */
    if (c->qb_pos == 0 && sdslen(c->querybuf) <= PREFETCH_MIN_BYTES) return;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    c->prefetched_to = sdslen(c->querybuf);
    if (c->multibulklen || dictSize(c->db->dict) == 0) return;
    if (c->prefetch_rest) {
        c->prefetch_rest--;
        return;
    }
    const char *start = c->querybuf + c->qb_pos, *p = start;
    byteKeys keys = {.n = 0};
    int ncmds = 0;
    memberLookups ml = {.key = {NULL, 0}, .members = {.n = 0}};
    respArg args[PEEK_ARGS];
    respArg lastname = {NULL, 0};
    struct redisCommand *cmd = NULL;
    while (keys.n < DICT_PREFETCH_MAX && ml.members.n < DICT_PREFETCH_MAX) {
        int argc;
        size_t len = respPeekRequest(p, avail, args, PEEK_ARGS, &argc);
        if (!len) break;
        p += len;
        avail -= len;
        ncmds++;
        /* A pipeline mostly repeats one command. */
        if (!lastname.ptr || !sameBytes(lastname.ptr, lastname.len, args[0].ptr, args[0].len)) {
            cmd = lookupTopCommand(args[0].ptr, args[0].len);
            lastname = args[0];
        }
        if (!cmd || cmd->firstkey <= 0 || cmd->keystep <= 0 || cmd->firstkey >= argc || cmd->firstkey >= PEEK_ARGS)
            continue;
        if (cmd->member_first) collectMembers(&ml, cmd, args, argc);
        int last = cmd->lastkey < 0 ? argc + cmd->lastkey : cmd->lastkey;
        for (int k = cmd->firstkey; k <= last && k < argc && k < PEEK_ARGS; k += cmd->keystep) addKey(&keys, &args[k]);
    }
    /* One command alone looks its key up at once: nothing would overlap. */
    if (ncmds < 2) return;
    /* A pipeline on one key (LPUSH mylist ...) finds it in the cache: the
     * look-ahead rests for a while, then looks again. */
    if (keys.n <= 1 && ml.members.n <= 1) c->prefetch_rest = PREFETCH_REST;
    /* The rest of the buffer is looked at when the commands get there. */
    c->prefetched_to = c->qb_pos + (size_t)(p - start);
    if (dictSize(c->db->dict) >= PREFETCH_MIN_KEYS) dictPrefetchSdsKeys(c->db->dict, keys.ptr, keys.len, keys.n, 0);
    if (ml.members.n > 1) prefetchMembers(c, &ml);
}
