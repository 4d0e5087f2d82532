/* command: the declarative command table (commands/commands.def, handed
 * over by main.c with its procs bound) turned into lookup dicts and a fast
 * name index, and arity checks. The COMMAND command that describes it is
 * commands/command.c's. A row without a proc is treated as unknown, so the
 * table can list the whole 7.0 surface. */
#include "server/command.h"
#include "core/zmalloc.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>


static uint64_t cstrCaseHash(const void *key) {
    return dictGenCaseHashFunction((const unsigned char *)key, strlen(key));
}
static int cstrCaseCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return strcasecmp(a, b) == 0;
}
static dictType commandDictType = {cstrCaseHash, NULL, cstrCaseCompare, NULL, NULL, NULL, 0, 0, NULL};

static uint64_t parseFlags(const char *words) {
    static const struct {
        const char *name;
        uint64_t flag;
    } names[] = {{"write", CMD_WRITE},           {"readonly", CMD_READONLY},
                 {"denyoom", CMD_DENYOOM},       {"module", CMD_MODULE},
                 {"admin", CMD_ADMIN},           {"pubsub", CMD_PUBSUB},
                 {"noscript", CMD_NOSCRIPT},     {"blocking", CMD_BLOCKING},
                 {"loading", CMD_LOADING},       {"stale", CMD_STALE},
                 {"skip_monitor", CMD_SKIP_MONITOR}, {"skip_slowlog", CMD_SKIP_SLOWLOG},
                 {"asking", CMD_ASKING},         {"fast", CMD_FAST},
                 {"no_auth", CMD_NO_AUTH},       {"may_replicate", CMD_MAY_REPLICATE},
                 {"sentinel", CMD_SENTINEL},     {"only_sentinel", CMD_ONLY_SENTINEL},
                 {"no_mandatory_keys", CMD_NO_MANDATORY_KEYS}, {"protected", CMD_PROTECTED},
                 {"no_async_loading", CMD_NO_ASYNC_LOADING}, {"no_multi", CMD_NO_MULTI},
                 {"movablekeys", CMD_MOVABLE_KEYS}, {"allow_busy", CMD_ALLOW_BUSY},
                 {NULL, 0}};
    uint64_t flags = 0;
    int count;
    sds *w = sdssplitlen(words, strlen(words), " ", 1, &count);
    for (int i = 0; i < count; i++)
        for (int j = 0; names[j].name; j++)
            if (!strcmp(w[i], names[j].name)) flags |= names[j].flag;
    sdsfreesplitres(w, count);
    return flags;
}

static void buildCommandIndex(void);

void populateCommandTable(const commandDef *defs, size_t n) {
    server.commands = dictCreate(&commandDictType);
    for (size_t i = 0; i < n; i++) {
        const commandDef *d = &defs[i];
        redisCommand *cmd = zcalloc(sizeof(*cmd));
        cmd->fullname = d->name;
        const char *bar = strchr(d->name, '|');
        cmd->name = bar ? bar + 1 : d->name;
        cmd->proc = d->proc;
        cmd->arity = d->arity;
        cmd->flagwords = d->flags;
        cmd->flags = parseFlags(d->flags);
        static const char *effects[] = {"exec", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", NULL};
        for (int e = 0; effects[e]; e++)
            if (!strcmp(d->name, effects[e])) cmd->flags |= CMD_PROPAGATES_EFFECTS;
        cmd->firstkey = d->first;
        cmd->lastkey = d->last;
        cmd->keystep = d->step;
        cmd->group = d->group;
        cmd->info_resp = d->info_resp;
        cmd->docs_resp = d->docs_resp;
        cmd->nsubcommands = d->nsub;
        if (bar) {
            char parent[64];
            snprintf(parent, sizeof(parent), "%.*s", (int)(bar - d->name), d->name);
            redisCommand *p = dictFetchValue(server.commands, parent);
            if (!p) continue;
            cmd->parent = p;
            if (!p->subcommands) p->subcommands = dictCreate(&commandDictType);
            dictAdd(p->subcommands, (void *)cmd->name, cmd);
        } else {
            dictAdd(server.commands, (void *)cmd->name, cmd);
        }
    }
    server.exec_command = dictFetchValue(server.commands, "exec");
    server.ping_command = dictFetchValue(server.commands, "ping");
    buildCommandIndex();
}

/* Implemented: has a proc, or is a container with at least one implemented subcommand. */
int commandImplemented(redisCommand *cmd) {
    if (!cmd->subcommands) return cmd->proc != NULL;
    dictIterator *di = dictGetIterator(cmd->subcommands);
    dictEntry *de;
    int found = 0;
    while ((de = dictNext(di)))
        if (((redisCommand *)dictGetVal(de))->proc) found = 1;
    dictReleaseIterator(di);
    return found;
}

/* The name index: every implemented top-level command in an open-addressing
 * table under a cheap case-folding hash. Finding argv[0] is on every request's
 * path; the seeded SipHash and strcasecmp of the commands dict cost several
 * times more, and the table never changes after start-up. */
static struct commandSlot {
    const char *name;
    size_t len;
    uint64_t head; /* the first 8 bytes of the name, zero-padded: most names are whole in it */
    redisCommand *cmd;
} *commandIndex;
static size_t commandIndexMask;

static inline unsigned char foldCase(unsigned char ch) { return ch + ((unsigned)(ch - 'A') < 26u) * 32; }

/* Hashes the name case-folded and packs its first 8 folded bytes in *head,
 * in one pass: a name of up to 8 bytes is then compared as one word. */
static inline uint64_t commandNameHash(const char *name, size_t len, uint64_t *head) {
    uint64_t h = 1469598103934665603ULL, w = 0; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = foldCase((unsigned char)name[i]);
        h = (h ^ ch) * 1099511628211ULL;
        if (i < 8) w |= (uint64_t)ch << (8 * i);
    }
    *head = w;
    return h ^ (h >> 29);
}

static void buildCommandIndex(void) {
    zfree(commandIndex);
    size_t slots = 16;
    while (slots < dictSize(server.commands) * 4) slots <<= 1;
    commandIndex = zcalloc(slots * sizeof(*commandIndex));
    commandIndexMask = slots - 1;
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        if (!commandImplemented(cmd)) continue;
        const char *name = dictGetKey(de); /* cmd->name unless rename-command changed it */
        size_t len = strlen(name);
        uint64_t head;
        size_t i = commandNameHash(name, len, &head) & commandIndexMask;
        while (commandIndex[i].name) i = (i + 1) & commandIndexMask;
        commandIndex[i] = (struct commandSlot){name, len, head, cmd};
    }
    dictReleaseIterator(di);
}

/* The implemented top-level command called name (any case), or NULL. */
static redisCommand *findCommand(const char *name, size_t len) {
    uint64_t head;
    for (size_t i = commandNameHash(name, len, &head) & commandIndexMask;; i = (i + 1) & commandIndexMask) {
        const struct commandSlot *s = &commandIndex[i];
        if (!s->name) return NULL;
        if (s->len != len || s->head != head) continue;
        size_t j = 8;
        while (j < len && foldCase((unsigned char)name[j]) == (unsigned char)s->name[j]) j++;
        if (j >= len) return s->cmd;
    }
}

int commandTableRename(const char *oldname, const char *newname, const char **err) {
    redisCommand *cmd = findCommand(oldname, strlen(oldname));
    if (!cmd) {
        *err = "No such command in rename-command";
        return 0;
    }
    if (newname[0] && dictFind(server.commands, newname)) {
        *err = "Target command name already exists";
        return 0;
    }
    dictEntry *de = dictFind(server.commands, oldname);
    if (de) {
        const char *key = dictGetKey(de);
        dictDelete(server.commands, oldname);
        if (key != cmd->name) zfree((char *)key); /* a name an earlier rename gave it */
    }
    if (newname[0]) dictAdd(server.commands, zstrdup(newname), cmd);
    buildCommandIndex();
    return 1;
}

struct redisCommand *lookupTopCommand(const char *name, size_t len) { return findCommand(name, len); }

struct redisCommand *lookupCommandByCString(const char *name) {
    const char *bar = strchr(name, '|');
    if (!bar) return findCommand(name, strlen(name));
    redisCommand *p = findCommand(name, (size_t)(bar - name));
    if (!p || !p->subcommands) return NULL;
    redisCommand *sub = dictFetchValue(p->subcommands, bar + 1);
    return sub && sub->proc ? sub : NULL;
}

/* Returns the command or subcommand; NULL when unknown. For a container
 * without a subcommand argument the container itself (arity then fails). */
struct redisCommand *lookupCommand(robj **argv, int argc) {
    if (!sdsEncodedObject(argv[0])) return NULL;
    redisCommand *cmd = findCommand(objectPtr(argv[0]), sdslen(objectPtr(argv[0])));
    if (!cmd || !cmd->subcommands || argc == 1) return cmd;
    if (!sdsEncodedObject(argv[1]) || sdslen(objectPtr(argv[1])) >= 64) return NULL;
    redisCommand *sub = dictFetchValue(cmd->subcommands, objectPtr(argv[1]));
    return sub && sub->proc ? sub : NULL;
}

int commandIsContainer(robj *name) {
    if (!sdsEncodedObject(name)) return 0;
    redisCommand *cmd = findCommand(objectPtr(name), sdslen(objectPtr(name)));
    return cmd && cmd->subcommands;
}

int commandCheckArity(struct redisCommand *cmd, int argc) {
    return !((cmd->arity > 0 && cmd->arity != argc) || (argc < -cmd->arity));
}
