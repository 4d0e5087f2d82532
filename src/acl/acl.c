/* acl: Redis 7.0's access control lists. Users have passwords (kept as
 * SHA-256 hex), flags and selectors; a selector allows commands (a bitmap
 * over command ids, plus the rule text it was built from so ACL GETUSER
 * gives back what was set), key patterns with read/write permissions and
 * channel patterns. A command runs when any of the user's selectors allows
 * it with all its keys and channels. The server asks through the hooks of
 * server/access.h; AUTH and the ACL command family live here. */
#include "acl/acl.h"
#include "server/access.h"
#include "server/command.h"
#include "server/client.h"
#include "server/cmdinfo.h"
#include "server/config.h"
#include "server/reply.h"
#include "server/server.h"
#include "core/glob.h"
#include "core/randbytes.h"
#include "core/zmalloc.h"

#include <ctype.h>
#include <errno.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ------------------------------------------------------------------ types */

#define USER_FLAG_ENABLED (1 << 0)
#define USER_FLAG_DISABLED (1 << 1)
#define USER_FLAG_NOPASS (1 << 2)
#define USER_FLAG_SANITIZE_PAYLOAD (1 << 3)
#define USER_FLAG_SANITIZE_PAYLOAD_SKIP (1 << 4)

#define SELECTOR_FLAG_ROOT (1 << 0)
#define SELECTOR_FLAG_ALLKEYS (1 << 1)
#define SELECTOR_FLAG_ALLCOMMANDS (1 << 2)
#define SELECTOR_FLAG_ALLCHANNELS (1 << 3)
#define SELECTOR_FULL_ACCESS (SELECTOR_FLAG_ALLKEYS | SELECTOR_FLAG_ALLCOMMANDS | SELECTOR_FLAG_ALLCHANNELS)

#define ACL_READ_PERMISSION (1 << 0)
#define ACL_WRITE_PERMISSION (1 << 1)
#define ACL_ALL_PERMISSION (ACL_READ_PERMISSION | ACL_WRITE_PERMISSION)

/* One bit per command id; the last one stands for commands added later, so
 * "+@all" can be told from "every command there is" when describing. */
#define USER_COMMAND_BITS_COUNT 1024
#define FUTURE_COMMANDS_BIT (USER_COMMAND_BITS_COUNT - 1)
#define HASH_PASSWORD_LEN (SHA256_DIGEST_LENGTH * 2)

typedef struct keyPattern {
    int flags; /* ACL_*_PERMISSION */
    sds pattern;
} keyPattern;

typedef struct aclSelector {
    int flags;
    uint64_t allowed_commands[USER_COMMAND_BITS_COUNT / 64];
    /* Per command id: the first arguments allowed although the command is
     * not (+select|0), NULL-terminated; NULL when none. */
    sds **allowed_firstargs;
    list *patterns; /* keyPattern */
    list *channels; /* sds */
} aclSelector;

typedef struct user {
    sds name;
    int flags;
    list *passwords; /* sds: SHA-256 hex */
    list *selectors; /* the root selector first */
} user;

static dict *Users; /* name → user */
static user *DefaultUser;
static list *UsersToLoad; /* `user` lines of redis.conf: sds arrays, NULL-terminated */
static list *ACLLog;

static const struct {
    const char *name;
    uint64_t flag;
} ACLCommandCategories[] = {
    {"keyspace", 1ULL << 0},   {"read", 1ULL << 1},       {"write", 1ULL << 2},      {"set", 1ULL << 3},
    {"sortedset", 1ULL << 4},  {"list", 1ULL << 5},       {"hash", 1ULL << 6},       {"string", 1ULL << 7},
    {"bitmap", 1ULL << 8},     {"hyperloglog", 1ULL << 9}, {"geo", 1ULL << 10},      {"stream", 1ULL << 11},
    {"pubsub", 1ULL << 12},    {"admin", 1ULL << 13},     {"fast", 1ULL << 14},      {"slow", 1ULL << 15},
    {"blocking", 1ULL << 16},  {"dangerous", 1ULL << 17}, {"connection", 1ULL << 18}, {"transaction", 1ULL << 19},
    {"scripting", 1ULL << 20}, {NULL, 0}};

static const struct {
    const char *name;
    int flag;
} ACLUserFlags[] = {{"on", USER_FLAG_ENABLED},
                    {"off", USER_FLAG_DISABLED},
                    {"nopass", USER_FLAG_NOPASS},
                    {"skip-sanitize-payload", USER_FLAG_SANITIZE_PAYLOAD_SKIP},
                    {"sanitize-payload", USER_FLAG_SANITIZE_PAYLOAD},
                    {NULL, 0}};

static uint64_t categoryFlagByName(const char *name) {
    for (int j = 0; ACLCommandCategories[j].name; j++)
        if (!strcasecmp(name, ACLCommandCategories[j].name)) return ACLCommandCategories[j].flag;
    return 0;
}

/* --------------------------------------------------------------- commands */

/* Every command of the table, subcommands included, implemented or not:
 * rules and ACL CAT speak of the whole 7.0 surface, as the reference does. */
typedef void commandVisitor(redisCommand *cmd, void *ctx);

static void forEachCommand(dict *commands, commandVisitor *fn, void *ctx) {
    dictIterator *di = dictGetIterator(commands);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        fn(cmd, ctx);
        if (cmd->subcommands) forEachCommand(cmd->subcommands, fn, ctx);
    }
    dictReleaseIterator(di);
}

static void assignCommandId(redisCommand *cmd, void *ctx) {
    int *next = ctx;
    cmd->id = (*next)++;
    char names[32][CMDINFO_MAX_CATEGORY_LEN];
    int n = commandCategoryNames(cmd, names, 32);
    cmd->acl_categories = 0;
    for (int i = 0; i < n; i++) cmd->acl_categories |= categoryFlagByName(names[i]);
}

/* "get", "config|get"; NULL for unknown names or deeper paths. */
static redisCommand *aclLookupCommand(const char *name) {
    const char *bar = strchr(name, '|');
    if (!bar) return dictFetchValue(server.commands, name);
    if (strchr(bar + 1, '|') || bar - name >= 64) return NULL;
    char parent[64];
    snprintf(parent, sizeof(parent), "%.*s", (int)(bar - name), name);
    redisCommand *p = dictFetchValue(server.commands, parent);
    if (!p || !p->subcommands) return NULL;
    return dictFetchValue(p->subcommands, bar + 1);
}

/* -------------------------------------------------------------- selectors */

static void listFreeSds(void *a) { sdsfree(a); }
static void listFreeKeyPattern(void *a) {
    keyPattern *kp = a;
    sdsfree(kp->pattern);
    zfree(kp);
}

static list *createSdsList(void) {
    list *l = listCreate();
    l->free = listFreeSds;
    return l;
}

static listNode *findSds(list *l, sds value) {
    for (listNode *n = listFirst(l); n; n = n->next)
        if (!sdscmp(listNodeValue(n), value)) return n;
    return NULL;
}

static listNode *findKeyPattern(list *l, sds pattern) {
    for (listNode *n = listFirst(l); n; n = n->next)
        if (!sdscmp(((keyPattern *)listNodeValue(n))->pattern, pattern)) return n;
    return NULL;
}

static list *dupSdsList(list *src) {
    list *l = createSdsList();
    for (listNode *n = listFirst(src); n; n = n->next) listAddNodeTail(l, sdsdup(listNodeValue(n)));
    return l;
}

static list *dupKeyPatternList(list *src) {
    list *l = listCreate();
    l->free = listFreeKeyPattern;
    for (listNode *n = listFirst(src); n; n = n->next) {
        keyPattern *from = listNodeValue(n), *kp = zmalloc(sizeof(*kp));
        kp->flags = from->flags;
        kp->pattern = sdsdup(from->pattern);
        listAddNodeTail(l, kp);
    }
    return l;
}

static aclSelector *createSelector(int flags) {
    aclSelector *s = zcalloc(sizeof(*s));
    s->flags = flags | (server.acl_pubsub_default == ACL_PUBSUB_DEFAULT_ALLCHANNELS ? SELECTOR_FLAG_ALLCHANNELS : 0);
    s->patterns = listCreate();
    s->patterns->free = listFreeKeyPattern;
    s->channels = createSdsList();
    return s;
}

static void resetFirstArgsForCommand(aclSelector *s, int id) {
    if (!s->allowed_firstargs || !s->allowed_firstargs[id]) return;
    for (int i = 0; s->allowed_firstargs[id][i]; i++) sdsfree(s->allowed_firstargs[id][i]);
    zfree(s->allowed_firstargs[id]);
    s->allowed_firstargs[id] = NULL;
}

static void resetFirstArgs(aclSelector *s) {
    if (!s->allowed_firstargs) return;
    for (int j = 0; j < USER_COMMAND_BITS_COUNT; j++) resetFirstArgsForCommand(s, j);
    zfree(s->allowed_firstargs);
    s->allowed_firstargs = NULL;
}

static void addAllowedFirstArg(aclSelector *s, int id, const char *sub) {
    if (!s->allowed_firstargs) s->allowed_firstargs = zcalloc(sizeof(sds *) * USER_COMMAND_BITS_COUNT);
    int items = 0;
    if (s->allowed_firstargs[id]) {
        for (; s->allowed_firstargs[id][items]; items++)
            if (!strcasecmp(s->allowed_firstargs[id][items], sub)) return;
    }
    s->allowed_firstargs[id] = zrealloc(s->allowed_firstargs[id], sizeof(sds) * (items + 2));
    s->allowed_firstargs[id][items] = sdsnew(sub);
    s->allowed_firstargs[id][items + 1] = NULL;
}

static void freeSelector(void *p) {
    aclSelector *s = p;
    listRelease(s->patterns);
    listRelease(s->channels);
    resetFirstArgs(s);
    zfree(s);
}

static aclSelector *copySelector(aclSelector *src) {
    aclSelector *s = createSelector(0);
    s->flags = src->flags;
    memcpy(s->allowed_commands, src->allowed_commands, sizeof(s->allowed_commands));
    listRelease(s->patterns);
    listRelease(s->channels);
    s->patterns = dupKeyPatternList(src->patterns);
    s->channels = dupSdsList(src->channels);
    if (src->allowed_firstargs) {
        for (int j = 0; j < USER_COMMAND_BITS_COUNT; j++) {
            if (!src->allowed_firstargs[j]) continue;
            for (int i = 0; src->allowed_firstargs[j][i]; i++) addAllowedFirstArg(s, j, src->allowed_firstargs[j][i]);
        }
    }
    return s;
}

static int getCommandBit(aclSelector *s, int id) {
    if (id < 0 || id >= USER_COMMAND_BITS_COUNT) return 0;
    return (s->allowed_commands[id / 64] >> (id % 64)) & 1;
}

static void setCommandBit(aclSelector *s, int id, int value) {
    if (id < 0 || id >= USER_COMMAND_BITS_COUNT) return;
    uint64_t bit = 1ULL << (id % 64);
    if (value) {
        s->allowed_commands[id / 64] |= bit;
    } else {
        s->allowed_commands[id / 64] &= ~bit;
        s->flags &= ~SELECTOR_FLAG_ALLCOMMANDS;
    }
}

/* A command's permission goes with its subcommands' and drops any allowed first args. */
static void changeSelectorPerm(aclSelector *s, redisCommand *cmd, int allow) {
    setCommandBit(s, cmd->id, allow);
    resetFirstArgsForCommand(s, cmd->id);
    if (cmd->subcommands) {
        dictIterator *di = dictGetIterator(cmd->subcommands);
        dictEntry *de;
        while ((de = dictNext(di))) setCommandBit(s, ((redisCommand *)dictGetVal(de))->id, allow);
        dictReleaseIterator(di);
    }
}

typedef struct categoryChange {
    aclSelector *s;
    uint64_t cflag;
    int allow;
} categoryChange;

static void changeCategoryPerm(redisCommand *cmd, void *ctx) {
    categoryChange *cc = ctx;
    if (cmd->acl_categories & cc->cflag) changeSelectorPerm(cc->s, cmd, cc->allow);
}

/* +cmd, +cmd|sub, +cmd|firstarg and -cmd. */
static int setSelectorCommand(aclSelector *s, const char *op) {
    int allow = op[0] == '+';
    const char *name = op + 1;
    const char *bar = strrchr(name, '|');
    if (!allow || !bar) {
        redisCommand *cmd = aclLookupCommand(name);
        if (!cmd) {
            errno = ENOENT;
            return C_ERR;
        }
        changeSelectorPerm(s, cmd, allow);
        return C_OK;
    }
    sds copy = sdsnewlen(name, bar - name);
    const char *sub = bar + 1;
    redisCommand *cmd = aclLookupCommand(copy);
    sdsfree(copy);
    if (!cmd) {
        errno = ENOENT;
        return C_ERR;
    }
    if (cmd->parent) {
        errno = ECHILD;
        return C_ERR;
    }
    if (!*sub) {
        errno = EINVAL;
        return C_ERR;
    }
    if (cmd->subcommands) {
        redisCommand *subcmd = aclLookupCommand(name);
        if (!subcmd) {
            errno = ENOENT;
            return C_ERR;
        }
        changeSelectorPerm(s, subcmd, 1);
    } else {
        serverLog(LL_WARNING,
                  "Deprecation warning: Allowing a first arg of an otherwise blocked command is a misuse of ACL "
                  "and may get disabled in the future (offender: +%s)",
                  name);
        addAllowedFirstArg(s, cmd->id, sub);
    }
    return C_OK;
}

static int setSelectorKeyPattern(aclSelector *s, const char *op, size_t oplen) {
    if (s->flags & SELECTOR_FLAG_ALLKEYS) {
        errno = EEXIST;
        return C_ERR;
    }
    int flags = 0;
    size_t offset = 1;
    if (op[0] == '%') {
        for (; offset < oplen; offset++) {
            char ch = (char)toupper((unsigned char)op[offset]);
            if (ch == 'R' && !(flags & ACL_READ_PERMISSION)) {
                flags |= ACL_READ_PERMISSION;
            } else if (ch == 'W' && !(flags & ACL_WRITE_PERMISSION)) {
                flags |= ACL_WRITE_PERMISSION;
            } else if (op[offset] == '~') {
                offset++;
                break;
            } else {
                errno = EINVAL;
                return C_ERR;
            }
        }
    } else {
        flags = ACL_ALL_PERMISSION;
    }
    if (!strcmp(op + offset, "*") && flags == ACL_ALL_PERMISSION) {
        s->flags |= SELECTOR_FLAG_ALLKEYS;
        listEmpty(s->patterns);
        return C_OK;
    }
    keyPattern *kp = zmalloc(sizeof(*kp));
    kp->flags = flags;
    kp->pattern = sdsnewlen(op + offset, oplen - offset);
    listNode *ln = findKeyPattern(s->patterns, kp->pattern);
    if (ln) {
        ((keyPattern *)listNodeValue(ln))->flags |= flags;
        listFreeKeyPattern(kp);
    } else {
        listAddNodeTail(s->patterns, kp);
    }
    return C_OK;
}

static int setSelector(aclSelector *s, const char *op, size_t oplen) {
    if (!strcasecmp(op, "allkeys") || !strcasecmp(op, "~*")) {
        s->flags |= SELECTOR_FLAG_ALLKEYS;
        listEmpty(s->patterns);
    } else if (!strcasecmp(op, "resetkeys")) {
        s->flags &= ~SELECTOR_FLAG_ALLKEYS;
        listEmpty(s->patterns);
    } else if (!strcasecmp(op, "allchannels") || !strcasecmp(op, "&*")) {
        s->flags |= SELECTOR_FLAG_ALLCHANNELS;
        listEmpty(s->channels);
    } else if (!strcasecmp(op, "resetchannels")) {
        s->flags &= ~SELECTOR_FLAG_ALLCHANNELS;
        listEmpty(s->channels);
    } else if (!strcasecmp(op, "allcommands") || !strcasecmp(op, "+@all")) {
        memset(s->allowed_commands, 255, sizeof(s->allowed_commands));
        s->flags |= SELECTOR_FLAG_ALLCOMMANDS;
        resetFirstArgs(s);
    } else if (!strcasecmp(op, "nocommands") || !strcasecmp(op, "-@all")) {
        memset(s->allowed_commands, 0, sizeof(s->allowed_commands));
        s->flags &= ~SELECTOR_FLAG_ALLCOMMANDS;
        resetFirstArgs(s);
    } else if (op[0] == '~' || op[0] == '%') {
        return setSelectorKeyPattern(s, op, oplen);
    } else if (op[0] == '&') {
        if (s->flags & SELECTOR_FLAG_ALLCHANNELS) {
            errno = EISDIR;
            return C_ERR;
        }
        sds pat = sdsnewlen(op + 1, oplen - 1);
        if (findSds(s->channels, pat)) sdsfree(pat);
        else listAddNodeTail(s->channels, pat);
    } else if ((op[0] == '+' || op[0] == '-') && op[1] == '@') {
        uint64_t cflag = categoryFlagByName(op + 2);
        if (!cflag) {
            errno = ENOENT;
            return C_ERR;
        }
        categoryChange cc = {s, cflag, op[0] == '+'};
        forEachCommand(server.commands, changeCategoryPerm, &cc);
    } else if (op[0] == '+' || op[0] == '-') {
        return setSelectorCommand(s, op);
    } else {
        errno = EINVAL;
        return C_ERR;
    }
    return C_OK;
}

static aclSelector *createSelectorFromOpSet(const char *opset, size_t len) {
    aclSelector *s = createSelector(0);
    sds trimmed = sdsnewlen(opset + 1, len - 2);
    int argc = 0;
    sds *argv = sdssplitargs(trimmed, &argc);
    for (int i = 0; argv && i < argc; i++) {
        if (setSelector(s, argv[i], sdslen(argv[i])) == C_ERR) {
            freeSelector(s);
            s = NULL;
            break;
        }
    }
    if (argv) sdsfreesplitres(argv, argc);
    sdsfree(trimmed);
    return s;
}

/* ------------------------------------------------------------------ users */

static aclSelector *rootSelector(user *u) { return listNodeValue(listFirst(u->selectors)); }

static user *createUnlinkedUser(const char *name, size_t len) {
    user *u = zcalloc(sizeof(*u));
    u->name = sdsnewlen(name, len);
    u->flags = USER_FLAG_DISABLED;
    u->passwords = createSdsList();
    u->selectors = listCreate();
    u->selectors->free = freeSelector;
    listAddNodeHead(u->selectors, createSelector(SELECTOR_FLAG_ROOT));
    return u;
}

static void freeUser(user *u) {
    sdsfree(u->name);
    listRelease(u->passwords);
    listRelease(u->selectors);
    zfree(u);
}

/* NULL when the name is taken. */
static user *createUser(const char *name, size_t len) {
    sds key = sdsnewlen(name, len);
    if (dictFind(Users, key)) {
        sdsfree(key);
        return NULL;
    }
    user *u = createUnlinkedUser(name, len);
    dictAdd(Users, key, u);
    return u;
}

static user *getUserByName(const char *name, size_t len) {
    sds key = sdsnewlen(name, len);
    user *u = dictFetchValue(Users, key);
    sdsfree(key);
    return u;
}

static void copyUser(user *dst, user *src) {
    listRelease(dst->passwords);
    listRelease(dst->selectors);
    dst->flags = src->flags;
    dst->passwords = dupSdsList(src->passwords);
    dst->selectors = listCreate();
    dst->selectors->free = freeSelector;
    listIter li;
    listNode *ln;
    listRewind(src->selectors, &li);
    while ((ln = listNext(&li))) listAddNodeTail(dst->selectors, copySelector(listNodeValue(ln)));
}

static sds hashPassword(const char *pass, size_t len) {
    char hex[SHA256_DIGEST_STRING_LENGTH];
    SHA256Data((const uint8_t *)pass, len, hex);
    return sdsnewlen(hex, HASH_PASSWORD_LEN);
}

/* Whether two hashes of HASH_PASSWORD_LEN are equal, in a time that does not
 * tell how many of their first bytes are. */
static int hashesEqual(const char *a, const char *b) {
    unsigned char diff = 0;
    for (int i = 0; i < HASH_PASSWORD_LEN; i++) diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

static int checkPasswordHash(const char *hash, size_t len) {
    if (len != HASH_PASSWORD_LEN) return C_ERR;
    for (size_t i = 0; i < len; i++)
        if (!((hash[i] >= '0' && hash[i] <= '9') || (hash[i] >= 'a' && hash[i] <= 'f'))) return C_ERR;
    return C_OK;
}

/* The hash of a >password, or a #hash as given (NULL with errno if malformed). */
static sds passwordOperand(const char *op, size_t oplen) {
    if (op[0] == '>' || op[0] == '<') return hashPassword(op + 1, oplen - 1);
    if (checkPasswordHash(op + 1, oplen - 1) == C_ERR) {
        errno = EBADMSG;
        return NULL;
    }
    return sdsnewlen(op + 1, oplen - 1);
}

static void setUserFlag(user *u, int set, int clear) {
    u->flags |= set;
    u->flags &= ~clear;
}

static int setUser(user *u, const char *op, size_t oplen) {
    if (oplen == 0) return C_OK;
    if (!strcasecmp(op, "on")) {
        setUserFlag(u, USER_FLAG_ENABLED, USER_FLAG_DISABLED);
    } else if (!strcasecmp(op, "off")) {
        setUserFlag(u, USER_FLAG_DISABLED, USER_FLAG_ENABLED);
    } else if (!strcasecmp(op, "skip-sanitize-payload")) {
        setUserFlag(u, USER_FLAG_SANITIZE_PAYLOAD_SKIP, USER_FLAG_SANITIZE_PAYLOAD);
    } else if (!strcasecmp(op, "sanitize-payload")) {
        setUserFlag(u, USER_FLAG_SANITIZE_PAYLOAD, USER_FLAG_SANITIZE_PAYLOAD_SKIP);
    } else if (!strcasecmp(op, "nopass")) {
        u->flags |= USER_FLAG_NOPASS;
        listEmpty(u->passwords);
    } else if (!strcasecmp(op, "resetpass")) {
        u->flags &= ~USER_FLAG_NOPASS;
        listEmpty(u->passwords);
    } else if (op[0] == '>' || op[0] == '#') {
        sds pass = passwordOperand(op, oplen);
        if (!pass) return C_ERR;
        if (findSds(u->passwords, pass)) sdsfree(pass);
        else listAddNodeTail(u->passwords, pass);
        u->flags &= ~USER_FLAG_NOPASS;
    } else if (op[0] == '<' || op[0] == '!') {
        sds pass = passwordOperand(op, oplen);
        if (!pass) return C_ERR;
        listNode *ln = findSds(u->passwords, pass);
        sdsfree(pass);
        if (!ln) {
            errno = ENODEV;
            return C_ERR;
        }
        listDelNode(u->passwords, ln);
    } else if (op[0] == '(' && op[oplen - 1] == ')') {
        aclSelector *s = createSelectorFromOpSet(op, oplen);
        if (!s) return C_ERR;
        listAddNodeTail(u->selectors, s);
    } else if (!strcasecmp(op, "clearselectors")) {
        while (listLength(u->selectors) > 1) listDelNode(u->selectors, listLast(u->selectors));
    } else if (!strcasecmp(op, "reset")) {
        setUser(u, "resetpass", 9);
        setUser(u, "resetkeys", 9);
        setUser(u, "resetchannels", 13);
        if (server.acl_pubsub_default == ACL_PUBSUB_DEFAULT_ALLCHANNELS) setUser(u, "allchannels", 11);
        setUser(u, "off", 3);
        setUser(u, "sanitize-payload", 16);
        setUser(u, "clearselectors", 14);
        setUser(u, "-@all", 5);
    } else {
        return setSelector(rootSelector(u), op, oplen);
    }
    return C_OK;
}

static const char *setUserErrorString(void) {
    switch (errno) {
    case ENOENT: return "Unknown command or category name in ACL";
    case EINVAL: return "Syntax error";
    case EEXIST:
        return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any "
               "effect. Try 'resetkeys' to start with an empty list of patterns";
    case EISDIR:
        return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any "
               "effect. Try 'resetchannels' to start with an empty list of channels";
    case ENODEV: return "The password you are trying to remove from the user does not exist";
    case EBADMSG:
        return "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
    case EALREADY: return "Duplicate user found. A user can only be defined once in config files";
    case ECHILD: return "Allowing first-arg of a subcommand is not supported";
    default: return "Wrong format";
    }
}

static user *createDefaultUser(void) {
    user *u = createUser("default", 7);
    setUser(u, "+@all", 5);
    setUser(u, "~*", 2);
    setUser(u, "&*", 2);
    setUser(u, "on", 2);
    setUser(u, "nopass", 6);
    return u;
}

static int stringHasSpaces(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (isspace((unsigned char)s[i]) || s[i] == 0) return 1;
    return 0;
}

/* Joins "(+get" "~k)" back into one selector argument; NULL (and the index
 * of the opening one) when a parenthesis is left open. */
static sds *mergeSelectorArguments(sds *argv, int argc, int *merged_argc, int *invalid_idx) {
    *merged_argc = 0;
    int open = -1;
    sds *args = zmalloc(sizeof(sds) * (argc ? argc : 1));
    sds selector = NULL;
    for (int j = 0; j < argc; j++) {
        char *op = argv[j];
        size_t len = sdslen(op);
        if (open == -1 && len && op[0] == '(' && op[len - 1] != ')') {
            selector = sdsdup(argv[j]);
            open = j;
            continue;
        }
        if (open != -1) {
            selector = sdscatprintf(selector, " %s", op);
            if (len && op[len - 1] == ')') {
                open = -1;
                args[(*merged_argc)++] = selector;
            }
            continue;
        }
        args[(*merged_argc)++] = sdsdup(argv[j]);
    }
    if (open != -1) {
        for (int i = 0; i < *merged_argc; i++) sdsfree(args[i]);
        zfree(args);
        sdsfree(selector);
        if (invalid_idx) *invalid_idx = open;
        return NULL;
    }
    return args;
}

static void freeArgs(sds *args, int argc) {
    for (int i = 0; i < argc; i++) sdsfree(args[i]);
    zfree(args);
}

/* ----------------------------------------------------------- descriptions */

static sds catPatternString(sds s, keyPattern *kp) {
    if (kp->flags == ACL_ALL_PERMISSION) s = sdscat(s, "~");
    else if (kp->flags == ACL_READ_PERMISSION) s = sdscat(s, "%R~");
    else s = sdscat(s, "%W~");
    return sdscatsds(s, kp->pattern);
}

static void countCategoryBits(aclSelector *s, uint64_t cflag, unsigned long *on, unsigned long *off) {
    *on = *off = 0;
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        if (!(cmd->acl_categories & cflag)) continue;
        if (getCommandBit(s, cmd->id)) (*on)++;
        else (*off)++;
    }
    dictReleaseIterator(di);
}

/* The single commands (and allowed first args) where the rules so far,
 * applied to fake, still differ from the selector. */
static void describeSingleCommands(aclSelector *s, aclSelector *fake, sds *rules, dict *commands) {
    dictIterator *di = dictGetIterator(commands);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        int userbit = getCommandBit(s, cmd->id);
        if (userbit != getCommandBit(fake, cmd->id)) {
            *rules = sdscatprintf(*rules, "%c%s ", userbit ? '+' : '-', cmd->fullname);
            changeSelectorPerm(fake, cmd, userbit);
        }
        if (cmd->subcommands) describeSingleCommands(s, fake, rules, cmd->subcommands);
        if (!userbit && s->allowed_firstargs && s->allowed_firstargs[cmd->id])
            for (int j = 0; s->allowed_firstargs[cmd->id][j]; j++)
                *rules = sdscatprintf(*rules, "+%s|%s ", cmd->fullname, s->allowed_firstargs[cmd->id][j]);
    }
    dictReleaseIterator(di);
}

/* Redis 7.0's description of a command bitmap: +@all or -@all, then the
 * categories that fit best (more commands in common than not, fewest
 * differences first), then the single commands still different. */
static sds describeSelectorCommandRules(aclSelector *s) {
    int additive = !getCommandBit(s, FUTURE_COMMANDS_BIT);
    sds rules = sdsnew(additive ? "-@all " : "+@all ");
    aclSelector *fake = createSelector(0), *temp = createSelector(0);
    setSelector(fake, additive ? "-@all" : "+@all", 5);
    memcpy(temp->allowed_commands, s->allowed_commands, sizeof(s->allowed_commands));
    char applied[sizeof(ACLCommandCategories) / sizeof(ACLCommandCategories[0])] = {0};
    while (1) {
        int best = -1;
        unsigned long mindiff = ~0UL, maxsame = 0;
        for (int j = 0; ACLCommandCategories[j].name; j++) {
            if (applied[j]) continue;
            unsigned long on, off;
            countCategoryBits(temp, ACLCommandCategories[j].flag, &on, &off);
            unsigned long diff = additive ? off : on, same = additive ? on : off;
            if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
                best = j;
                mindiff = diff;
                maxsame = same;
            }
        }
        if (best == -1) break;
        sds op = sdscatprintf(sdsempty(), "%c@%s", additive ? '+' : '-', ACLCommandCategories[best].name);
        setSelector(fake, op, sdslen(op));
        op[0] = additive ? '-' : '+'; /* temp takes the inverse: the category is dealt with */
        setSelector(temp, op, sdslen(op));
        op[0] = additive ? '+' : '-';
        rules = sdscatprintf(rules, "%s ", op);
        sdsfree(op);
        applied[best] = 1;
    }
    describeSingleCommands(s, fake, &rules, server.commands);
    sdsrange(rules, 0, -2);
    freeSelector(fake);
    freeSelector(temp);
    return rules;
}

static sds describeKeys(aclSelector *s) {
    if (s->flags & SELECTOR_FLAG_ALLKEYS) return sdsnew("~*");
    sds d = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        if (ln != listFirst(s->patterns)) d = sdscat(d, " ");
        d = catPatternString(d, listNodeValue(ln));
    }
    return d;
}

static sds describeChannels(aclSelector *s) {
    if (s->flags & SELECTOR_FLAG_ALLCHANNELS) return sdsnew("&*");
    sds d = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(s->channels, &li);
    while ((ln = listNext(&li))) {
        if (ln != listFirst(s->channels)) d = sdscat(d, " ");
        d = sdscatprintf(d, "&%s", (char *)listNodeValue(ln));
    }
    return d;
}

static sds describeSelector(aclSelector *s) {
    sds res = describeKeys(s);
    if (sdslen(res)) res = sdscat(res, " ");
    if (!(s->flags & SELECTOR_FLAG_ALLCHANNELS)) res = sdscat(res, "resetchannels ");
    sds ch = describeChannels(s);
    if (sdslen(ch)) res = sdscatprintf(res, "%s ", ch);
    sdsfree(ch);
    sds rules = describeSelectorCommandRules(s);
    res = sdscatsds(res, rules);
    sdsfree(rules);
    return res;
}

static sds describeUser(user *u) {
    sds res = sdsempty();
    for (int j = 0; ACLUserFlags[j].flag; j++)
        if (u->flags & ACLUserFlags[j].flag) res = sdscatprintf(res, "%s ", ACLUserFlags[j].name);
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) res = sdscatprintf(res, "#%s ", (char *)listNodeValue(ln));
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        sds d = describeSelector(s);
        if (s->flags & SELECTOR_FLAG_ROOT) res = sdscatsds(res, d);
        else res = sdscatprintf(res, " (%s)", d);
        sdsfree(d);
    }
    return res;
}

static int compareUsers(const void *a, const void *b) {
    const user *ua = *(user *const *)a, *ub = *(user *const *)b;
    return sdscmp(ua->name, ub->name);
}

/* All users in name order (the reference keeps them in a radix tree); zfree the array. */
static user **sortedUsers(unsigned long *count) {
    *count = dictSize(Users);
    user **all = zmalloc(sizeof(user *) * (*count + 1));
    dictIterator *di = dictGetIterator(Users);
    dictEntry *de;
    unsigned long n = 0;
    while ((de = dictNext(di))) all[n++] = dictGetVal(de);
    dictReleaseIterator(di);
    qsort(all, n, sizeof(user *), compareUsers);
    return all;
}

/* "user <name> <rules>" lines without the keyword, for CONFIG REWRITE and ACL SAVE/LIST. */
static sds *describeAllUsers(int *count) {
    unsigned long n;
    user **all = sortedUsers(&n);
    sds *lines = zmalloc(sizeof(sds) * (n + 1));
    for (unsigned long i = 0; i < n; i++) {
        sds d = describeUser(all[i]);
        lines[i] = sdscatprintf(sdsempty(), "%s %s", all[i]->name, d);
        sdsfree(d);
    }
    zfree(all);
    *count = (int)n;
    return lines;
}

/* ------------------------------------------------------------- the checks */

static int selectorCheckKey(aclSelector *s, const char *key, size_t keylen, int keyspec_flags) {
    if (s->flags & SELECTOR_FLAG_ALLKEYS) return ACCESS_OK;
    int need = 0;
    if (keyspec_flags & CMD_KEY_ACCESS) need |= ACL_READ_PERMISSION;
    if (keyspec_flags & (CMD_KEY_INSERT | CMD_KEY_DELETE | CMD_KEY_UPDATE)) need |= ACL_WRITE_PERMISSION;
    listIter li;
    listNode *ln;
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        keyPattern *kp = listNodeValue(ln);
        if ((kp->flags & need) != need) continue;
        if (stringmatchlen(kp->pattern, (int)sdslen(kp->pattern), key, (int)keylen, 0)) return ACCESS_OK;
    }
    return ACCESS_DENIED_KEY;
}

/* Channel patterns (PSUBSCRIBE) must appear literally; channels match the globs. */
static int checkChannelAgainstList(list *reference, const char *channel, size_t len, int is_pattern) {
    listIter li;
    listNode *ln;
    listRewind(reference, &li);
    while ((ln = listNext(&li))) {
        sds pat = listNodeValue(ln);
        if ((is_pattern && !strcmp(pat, channel)) ||
            (!is_pattern && stringmatchlen(pat, (int)sdslen(pat), channel, (int)len, 0)))
            return ACCESS_OK;
    }
    return ACCESS_DENIED_CHANNEL;
}

/* The channels a command names: PUBLISH's first argument, every argument of
 * the subscribe commands (patterns for PSUBSCRIBE). Unsubscribing needs none. */
static int commandChannels(redisCommand *cmd, int argc, int *first, int *last, int *is_pattern) {
    const char *n = cmd->fullname;
    *is_pattern = 0;
    if (!strcmp(n, "publish") || !strcmp(n, "spublish")) {
        *first = *last = 1;
        return argc > 1;
    }
    if (!strcmp(n, "subscribe") || !strcmp(n, "ssubscribe") || !strcmp(n, "psubscribe")) {
        *is_pattern = n[0] == 'p';
        *first = 1;
        *last = argc - 1;
        return argc > 1;
    }
    return 0;
}

typedef struct keyCache {
    int init;
    int numkeys;
    keyReference *keys;
} keyCache;

static int selectorCheckCmd(aclSelector *s, redisCommand *cmd, robj **argv, int argc, int *errpos, keyCache *cache) {
    if (!(s->flags & SELECTOR_FLAG_ALLCOMMANDS) && !(cmd->flags & CMD_NO_AUTH) && !getCommandBit(s, cmd->id)) {
        int idx = cmd->parent ? 2 : 1;
        sds *allowed = s->allowed_firstargs ? s->allowed_firstargs[cmd->id] : NULL;
        if (argc <= idx || !allowed) return ACCESS_DENIED_CMD;
        int found = 0;
        for (int i = 0; allowed[i] && !found; i++)
            if (sdsEncodedObject(argv[idx]) && !strcasecmp(objectPtr(argv[idx]), allowed[i])) found = 1;
        if (!found) return ACCESS_DENIED_CMD;
    }
    if (!(s->flags & SELECTOR_FLAG_ALLKEYS) && commandHasKeys(cmd)) {
        if (!cache->init) {
            cache->numkeys = getKeysWithFlags(cmd, argv, argc, &cache->keys);
            cache->init = 1;
        }
        for (int j = 0; j < cache->numkeys; j++) {
            char buf[LONG_STR_SIZE];
            size_t len;
            const char *key = stringObjectView(argv[cache->keys[j].pos], buf, &len);
            if (selectorCheckKey(s, key, len, cache->keys[j].flags) != ACCESS_OK) {
                *errpos = cache->keys[j].pos;
                return ACCESS_DENIED_KEY;
            }
        }
    }
    int first, last, is_pattern;
    if (!(s->flags & SELECTOR_FLAG_ALLCHANNELS) && commandChannels(cmd, argc, &first, &last, &is_pattern)) {
        for (int j = first; j <= last; j++) {
            char buf[LONG_STR_SIZE];
            size_t len;
            const char *channel = stringObjectView(argv[j], buf, &len);
            if (checkChannelAgainstList(s->channels, channel, len, is_pattern) != ACCESS_OK) {
                *errpos = j;
                return ACCESS_DENIED_CHANNEL;
            }
        }
    }
    return ACCESS_OK;
}

/* When every selector refuses, the reason reported is the most specific one,
 * and among equal reasons the one at the furthest argument, as in Redis. */
static int checkUserCommandPerm(user *u, redisCommand *cmd, robj **argv, int argc, int *errpos) {
    if (!u) return ACCESS_OK;
    /* A root selector allowing everything (the default user's) decides at
     * once: nothing to look up per command. */
    aclSelector *root = listNodeValue(listFirst(u->selectors));
    if ((root->flags & SELECTOR_FULL_ACCESS) == SELECTOR_FULL_ACCESS) return ACCESS_OK;
    int relevant = ACCESS_DENIED_CMD, last_idx = 0;
    keyCache cache = {0, 0, NULL};
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        int idx = 0;
        int ret = selectorCheckCmd(listNodeValue(ln), cmd, argv, argc, &idx, &cache);
        if (ret == ACCESS_OK) {
            zfree(cache.keys);
            return ACCESS_OK;
        }
        if (ret > relevant || (ret == relevant && idx > last_idx)) {
            relevant = ret;
            last_idx = idx;
        }
    }
    zfree(cache.keys);
    *errpos = last_idx;
    return relevant;
}

/* SORT BY/GET read keys the arguments do not name: they need a selector that
 * allows the command and may read every key. */
static int userHasFullKeyAccess(client *c) {
    if (!c->user) return 1;
    listIter li;
    listNode *ln;
    listRewind(c->user->selectors, &li);
    while ((ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        int pos = 0;
        keyCache cache = {0, 0, NULL};
        int ret = selectorCheckCmd(s, c->cmd, c->argv, c->argc, &pos, &cache);
        zfree(cache.keys);
        if (ret != ACCESS_OK) continue;
        if (s->flags & SELECTOR_FLAG_ALLKEYS) return 1;
        listIter pi;
        listNode *pn;
        listRewind(s->patterns, &pi);
        while ((pn = listNext(&pi))) {
            keyPattern *kp = listNodeValue(pn);
            if ((kp->flags & ACL_READ_PERMISSION) && !strcmp(kp->pattern, "*")) return 1;
        }
    }
    return 0;
}

/* -------------------------------------------------------------------- log */

#define ACL_LOG_GROUPING_MAX_TIME_DELTA 60000

typedef struct aclLogEntry {
    long long count;
    int reason, context;
    sds object, username, cinfo;
    long long ctime;
} aclLogEntry;

static void freeLogEntry(void *p) {
    aclLogEntry *le = p;
    sdsfree(le->object);
    sdsfree(le->username);
    sdsfree(le->cinfo);
    zfree(le);
}

static int logEntriesMatch(aclLogEntry *a, aclLogEntry *b) {
    return a->reason == b->reason && a->context == b->context && b->ctime - a->ctime <= ACL_LOG_GROUPING_MAX_TIME_DELTA &&
           !sdscmp(a->object, b->object) && !sdscmp(a->username, b->username);
}

/* Takes object; a repeat of one of the last entries only bumps its count. */
static void addLogEntry(client *c, int reason, int context, const char *username, sds object) {
    aclLogEntry *le = zmalloc(sizeof(*le));
    le->count = 1;
    le->reason = reason;
    le->context = context;
    le->object = object;
    le->username = sdsnew(username);
    le->ctime = server.mstime;
    le->cinfo = catClientInfoString(sdsempty(), server.current_client ? server.current_client : c);
    listIter li;
    listNode *ln;
    listRewind(ACLLog, &li);
    for (int toscan = 10; toscan-- && (ln = listNext(&li));) {
        aclLogEntry *cur = listNodeValue(ln);
        if (logEntriesMatch(cur, le)) {
            listDelNode(ACLLog, ln); /* the log frees no values: cur lives on */
            listAddNodeHead(ACLLog, cur);
            sdsfree(cur->cinfo);
            cur->cinfo = le->cinfo;
            le->cinfo = NULL;
            cur->ctime = le->ctime;
            cur->count++;
            freeLogEntry(le);
            return;
        }
    }
    listAddNodeHead(ACLLog, le);
    while (listLength(ACLLog) > (unsigned long)server.acllog_max_len) {
        freeLogEntry(listNodeValue(listLast(ACLLog)));
        listDelNode(ACLLog, listLast(ACLLog));
    }
}

static void logDenial(client *c, int reason, int context, redisCommand *cmd, robj **argv, int errpos) {
    sds object;
    if (reason == ACCESS_DENIED_CMD) object = sdsnew(cmd->fullname);
    else if (reason == ACCESS_DENIED_KEY || reason == ACCESS_DENIED_CHANNEL) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *arg = stringObjectView(argv[errpos], buf, &len);
        object = sdsnewlen(arg, len);
    }
    else object = sdsempty();
    addLogEntry(c, reason, context, c->user ? c->user->name : "default", object);
}

/* ---------------------------------------------------- clients and hooks */

static int hookCheck(client *c, redisCommand *cmd, robj **argv, int argc, int *errpos) {
    return checkUserCommandPerm(c->user, cmd, argv, argc, errpos);
}

static void setDefaultUser(client *c) {
    c->user = DefaultUser;
    c->authenticated = (DefaultUser->flags & USER_FLAG_NOPASS) && !(DefaultUser->flags & USER_FLAG_DISABLED);
}

static int authRequired(client *c) {
    return (!(DefaultUser->flags & USER_FLAG_NOPASS) || (DefaultUser->flags & USER_FLAG_DISABLED)) && !c->authenticated;
}

static const char *userName(client *c) { return c->user ? c->user->name : "(superuser)"; }

static void *lookupUser(const char *name, size_t len) { return getUserByName(name, len); }

static int checkUserCredentials(robj *username, robj *password) {
    user *u = getUserByName(objectPtr(username), sdslen(objectPtr(username)));
    if (!u || (u->flags & USER_FLAG_DISABLED)) return C_ERR;
    if (u->flags & USER_FLAG_NOPASS) return C_OK;
    sds hashed = hashPassword(objectPtr(password), sdslen(objectPtr(password)));
    int ok = 0;
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li)))
        if (hashesEqual(hashed, listNodeValue(ln))) ok = 1;
    sdsfree(hashed);
    return ok ? C_OK : C_ERR;
}

static int authenticate(client *c, robj *username, robj *password) {
    if (checkUserCredentials(username, password) == C_OK) {
        c->authenticated = 1;
        c->user = getUserByName(objectPtr(username), sdslen(objectPtr(username)));
        return C_OK;
    }
    addLogEntry(c, ACCESS_DENIED_AUTH, (c->flags & CLIENT_MULTI) ? ACCESS_CTX_MULTI : ACCESS_CTX_TOPLEVEL,
                objectPtr(username), sdsnew(objectPtr(c->argv[0])));
    return C_ERR;
}

/* A client being served finishes its command (and gets its reply) first. */
static void killClient(client *c) {
    if (c == server.current_client) c->flags |= CLIENT_CLOSE_AFTER_COMMAND;
    else freeClientAsync(c);
}

static void freeUserAndKillClients(user *u) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->user != u) continue;
        /* Defensive, as in Redis: until it is gone it is nobody. */
        c->user = DefaultUser;
        c->authenticated = 0;
        killClient(c);
    }
    freeUser(u);
}

static int dictChannelsAllowed(dict *d, list *upcoming) {
    if (!d) return 1;
    int ok = 1;
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while (ok && (de = dictNext(di))) {
        robj *o = dictGetKey(de);
        ok = checkChannelAgainstList(upcoming, objectPtr(o), sdslen(objectPtr(o)), 0) == ACCESS_OK;
    }
    dictReleaseIterator(di);
    return ok;
}

/* After a change of the user's channel permissions, its subscribers that are
 * subscribed to something no longer allowed are disconnected. */
static void killPubsubClientsIfNeeded(user *updated, user *original) {
    listIter li, lpi;
    listNode *ln, *lpn;
    listRewind(updated->selectors, &li);
    while ((ln = listNext(&li)))
        if (((aclSelector *)listNodeValue(ln))->flags & SELECTOR_FLAG_ALLCHANNELS) return;
    list *upcoming = listCreate();
    listRewind(updated->selectors, &li);
    while ((ln = listNext(&li))) {
        listRewind(((aclSelector *)listNodeValue(ln))->channels, &lpi);
        while ((lpn = listNext(&lpi))) listAddNodeTail(upcoming, listNodeValue(lpn));
    }
    int match = 1;
    listRewind(original->selectors, &li);
    while (match && (ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        if (s->flags & SELECTOR_FLAG_ALLCHANNELS) match = 0;
        listRewind(s->channels, &lpi);
        while (match && (lpn = listNext(&lpi)))
            if (!findSds(upcoming, listNodeValue(lpn))) match = 0;
    }
    if (!match) {
        listRewind(server.clients, &li);
        while ((ln = listNext(&li))) {
            client *c = listNodeValue(ln);
            if (c->user != original || !(c->flags & CLIENT_PUBSUB)) continue;
            int ok = 1;
            listRewind(c->pubsub_patterns, &lpi);
            while (ok && (lpn = listNext(&lpi))) {
                robj *o = listNodeValue(lpn);
                ok = checkChannelAgainstList(upcoming, objectPtr(o), sdslen(objectPtr(o)), 1) == ACCESS_OK;
            }
            if (ok) ok = dictChannelsAllowed(c->pubsub_channels, upcoming);
            if (ok) ok = dictChannelsAllowed(c->pubsubshard_channels, upcoming);
            if (!ok) {
                if (c == server.current_client) killClient(c);
                else freeClient(c);
            }
        }
    }
    listRelease(upcoming);
}

/* ACL SETUSER's work: all rules apply to a copy first, so a bad one changes nothing. */
static sds stringSetUser(user *u, sds username, sds *argv, int argc) {
    int merged_argc = 0, invalid_idx = 0;
    sds *args = mergeSelectorArguments(argv, argc, &merged_argc, &invalid_idx);
    if (!args)
        return sdscatprintf(sdsempty(), "Unmatched parenthesis in acl selector starting at '%s'.", argv[invalid_idx]);
    sds error = NULL;
    user *tempu = createUnlinkedUser(username, sdslen(username));
    if (u) copyUser(tempu, u);
    for (int j = 0; j < merged_argc; j++) {
        if (setUser(tempu, args[j], sdslen(args[j])) != C_OK) {
            error = sdscatprintf(sdsempty(), "Error in ACL SETUSER modifier '%s': %s", args[j], setUserErrorString());
            break;
        }
    }
    if (!error) {
        if (u) killPubsubClientsIfNeeded(tempu, u);
        else u = createUser(username, sdslen(username));
        copyUser(u, tempu);
    }
    freeUser(tempu);
    freeArgs(args, merged_argc);
    return error;
}

/* ------------------------------------------------------- config and files */

static int configLoadUser(sds *argv, int argc, const char **err) {
    static char buf[512];
    listIter li;
    listNode *ln;
    listRewind(UsersToLoad, &li);
    while ((ln = listNext(&li))) {
        if (!sdscmp(((sds *)listNodeValue(ln))[0], argv[0])) {
            errno = EALREADY;
            snprintf(buf, sizeof(buf), "Error in user declaration '%s': %s", argv[0], setUserErrorString());
            *err = buf;
            return 0;
        }
    }
    int merged_argc = 0, invalid_idx = 0;
    sds *args = mergeSelectorArguments(argv + 1, argc - 1, &merged_argc, &invalid_idx);
    if (!args) {
        errno = EINVAL;
        snprintf(buf, sizeof(buf), "Error in user declaration '%s': %s", argv[1 + invalid_idx], setUserErrorString());
        *err = buf;
        return 0;
    }
    user *fake = createUnlinkedUser(argv[0], sdslen(argv[0]));
    for (int j = 0; j < merged_argc; j++) {
        if (setUser(fake, args[j], sdslen(args[j])) == C_ERR && errno != ENOENT) {
            snprintf(buf, sizeof(buf), "Error in user declaration '%s': %s", args[j], setUserErrorString());
            *err = buf;
            freeUser(fake);
            freeArgs(args, merged_argc);
            return 0;
        }
    }
    freeUser(fake);
    sds *copy = zmalloc(sizeof(sds) * (merged_argc + 2));
    copy[0] = sdsdup(argv[0]);
    for (int j = 0; j < merged_argc; j++) copy[j + 1] = args[j];
    copy[merged_argc + 1] = NULL;
    zfree(args);
    listAddNodeTail(UsersToLoad, copy);
    return 1;
}

static void updateDefaultUserPassword(sds password) {
    setUser(DefaultUser, "resetpass", 9);
    if (password) {
        sds op = sdscatsds(sdsnew(">"), password);
        setUser(DefaultUser, op, sdslen(op));
        sdsfree(op);
    } else {
        setUser(DefaultUser, "nopass", 6);
    }
}

static int loadConfiguredUsers(void) {
    listIter li;
    listNode *ln;
    listRewind(UsersToLoad, &li);
    while ((ln = listNext(&li))) {
        sds *rules = listNodeValue(ln);
        if (stringHasSpaces(rules[0], sdslen(rules[0]))) {
            serverLog(LL_WARNING, "Spaces not allowed in ACL usernames");
            return C_ERR;
        }
        user *u = createUser(rules[0], sdslen(rules[0]));
        if (!u) {
            u = getUserByName(rules[0], sdslen(rules[0])); /* only "default" exists already */
            setUser(u, "reset", 5);
        }
        for (int j = 1; rules[j]; j++) {
            if (setUser(u, rules[j], sdslen(rules[j])) != C_OK) {
                serverLog(LL_WARNING, "Error loading ACL rule '%s' for the user named '%s': %s", rules[j], rules[0],
                          setUserErrorString());
                return C_ERR;
            }
        }
        if (u->flags & USER_FLAG_DISABLED)
            serverLog(LL_NOTICE,
                      "The user '%s' is disabled (there is no 'on' modifier in the user description). Make sure "
                      "this is not a configuration error.",
                      rules[0]);
    }
    return C_OK;
}

static void freeUsersDict(dict *d) {
    dictIterator *di = dictGetIterator(d);
    dictEntry *de;
    while ((de = dictNext(di))) {
        user *u = dictGetVal(de);
        if (u != DefaultUser) freeUserAndKillClients(u);
    }
    dictReleaseIterator(di);
    dictRelease(d);
}

static dictType usersDictType;

/* NULL on success, else the errors (the users are then left as they were). */
static sds loadFromFile(const char *filename) {
    FILE *fp = fopen(filename, "r");
    if (!fp) return sdscatprintf(sdsempty(), "Error loading ACLs, opening file '%s': %s", filename, strerror(errno));
    sds acls = sdsempty();
    char buf[1024];
    while (fgets(buf, sizeof(buf), fp)) acls = sdscat(acls, buf);
    fclose(fp);
    int totlines;
    sds *lines = sdssplitlen(acls, sdslen(acls), "\n", 1, &totlines);
    sdsfree(acls);
    sds errors = sdsempty();
    dict *old_users = Users;
    Users = dictCreate(&usersDictType);
    for (int i = 0; i < totlines; i++) {
        int linenum = i + 1, argc;
        lines[i] = sdstrim(lines[i], " \t\r\n");
        if (lines[i][0] == '\0') continue;
        sds *argv = sdssplitlen(lines[i], sdslen(lines[i]), " ", 1, &argc);
        if (argc == 0) {
            sdsfreesplitres(argv, argc);
            continue;
        }
        if (strcmp(argv[0], "user") || argc < 2) {
            errors = sdscatprintf(errors, "%s:%d should start with user keyword. ", server.acl_filename, linenum);
            sdsfreesplitres(argv, argc);
            continue;
        }
        if (stringHasSpaces(argv[1], sdslen(argv[1]))) {
            errors = sdscatprintf(errors, "'%s:%d: username '%s' contains invalid characters. ", server.acl_filename,
                                  linenum, argv[1]);
            sdsfreesplitres(argv, argc);
            continue;
        }
        user *u = createUser(argv[1], sdslen(argv[1]));
        if (!u) {
            errors = sdscatprintf(errors, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum);
            sdsfreesplitres(argv, argc);
            continue;
        }
        int merged_argc = 0;
        sds *args = mergeSelectorArguments(argv + 2, argc - 2, &merged_argc, NULL);
        if (!args) {
            errors = sdscatprintf(errors, "%s:%d: Unmatched parenthesis in selector definition.", server.acl_filename,
                                  linenum);
        }
        int syntax_error = 0;
        for (int j = 0; args && j < merged_argc; j++) {
            args[j] = sdstrim(args[j], "\t\r\n");
            if (setUser(u, args[j], sdslen(args[j])) != C_OK) {
                if (errno == ENOENT) {
                    errors = sdscatprintf(errors, "%s:%d: Error in applying operation '%s': %s. ", server.acl_filename,
                                          linenum, args[j], setUserErrorString());
                } else if (!syntax_error) {
                    errors = sdscatprintf(errors, "%s:%d: %s. ", server.acl_filename, linenum, setUserErrorString());
                    syntax_error = 1;
                }
            }
        }
        if (args) freeArgs(args, merged_argc);
        sdsfreesplitres(argv, argc);
    }
    sdsfreesplitres(lines, totlines);
    if (sdslen(errors)) {
        dict *failed = Users;
        Users = old_users;
        dictIterator *di = dictGetIterator(failed);
        dictEntry *de;
        while ((de = dictNext(di))) freeUser(dictGetVal(de));
        dictReleaseIterator(di);
        dictRelease(failed);
        return sdscat(errors, "WARNING: ACL errors detected, no change to the previously active ACL rules was performed");
    }
    sdsfree(errors);
    /* The default user object is referenced everywhere: it takes the new rules. */
    user *new_default = getUserByName("default", 7);
    if (!new_default) new_default = createDefaultUser();
    copyUser(DefaultUser, new_default);
    sds dkey = sdsnew("default");
    dictDelete(Users, dkey); /* frees the key only */
    freeUser(new_default);
    dictAdd(Users, sdsnew("default"), DefaultUser);
    dictDelete(old_users, dkey);
    sdsfree(dkey);
    freeUsersDict(old_users);
    return NULL;
}

static int saveToFile(const char *filename) {
    int count;
    sds *lines = describeAllUsers(&count);
    sds acl = sdsempty();
    for (int j = 0; j < count; j++) {
        acl = sdscatprintf(acl, "user %s\n", lines[j]);
        sdsfree(lines[j]);
    }
    zfree(lines);
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%d-%lld", filename, (int)getpid(), server.mstime);
    FILE *fp = fopen(tmp, "w");
    int ok = fp && fwrite(acl, 1, sdslen(acl), fp) == sdslen(acl);
    if (fp) ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0 && ok;
    if (fp) fclose(fp);
    if (ok && rename(tmp, filename) == -1) ok = 0;
    if (!ok) {
        serverLog(LL_WARNING, "Saving the ACL file %s failed: %s", filename, strerror(errno));
        unlink(tmp);
    }
    sdsfree(tmp);
    sdsfree(acl);
    return ok ? C_OK : C_ERR;
}

static void freeUserRules(void *p) {
    sds *rules = p;
    for (int j = 0; rules[j]; j++) sdsfree(rules[j]);
    zfree(rules);
}

void aclLoadUsersAtStartup(void) {
    if (server.acl_filename[0] && listLength(UsersToLoad)) {
        serverLog(LL_WARNING,
                  "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is "
                  "invalid. This setup is very likely to lead to configuration errors and security holes, please "
                  "define either an ACL file or declare users directly in your redis.conf, but not both.");
        exit(1);
    }
    if (loadConfiguredUsers() == C_ERR) {
        serverLog(LL_WARNING, "Critical error while loading ACLs. Exiting.");
        exit(1);
    }
    if (server.acl_filename[0]) {
        sds errors = loadFromFile(server.acl_filename);
        if (errors) {
            serverLog(LL_WARNING, "Aborting Redis startup because of ACL errors: %s", errors);
            exit(1);
        }
    }
    listRelease(UsersToLoad);
    UsersToLoad = listCreate();
    UsersToLoad->free = freeUserRules;
}

static int userSkipsSanitize(client *c) { return c->user && (c->user->flags & USER_FLAG_SANITIZE_PAYLOAD_SKIP); }

void aclInit(void) {
    usersDictType = (dictType){.hashFunction = dictSdsHash, .keyCompare = dictSdsKeyCompare,
                               .keyDestructor = dictSdsDestructor};
    Users = dictCreate(&usersDictType);
    UsersToLoad = listCreate();
    UsersToLoad->free = freeUserRules;
    ACLLog = listCreate();
    int next = 0;
    forEachCommand(server.commands, assignCommandId, &next);
    DefaultUser = createDefaultUser();
    static const accessHooks hooks = {hookCheck,    logDenial, authenticate, setDefaultUser,      authRequired,
                                      userName,     lookupUser, userHasFullKeyAccess, userSkipsSanitize};
    accessRegister(&hooks);
    static const configUserHooks cfg = {configLoadUser, describeAllUsers, updateDefaultUserPassword};
    configRegisterUserHooks(&cfg);
}

/* --------------------------------------------------------------- commands */

void authCommand(client *c) {
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    for (int j = 1; j < c->argc; j++) redactClientCommandArgument(c, j);
    robj *username, *password;
    if (c->argc == 2) {
        if (DefaultUser->flags & USER_FLAG_NOPASS) {
            addReplyError(c, "AUTH <password> called without any password configured for the default user. Are "
                             "you sure your configuration is correct?");
            return;
        }
        username = createStringObject("default", 7);
        password = c->argv[1];
    } else {
        username = c->argv[1];
        incrRefCount(username);
        password = c->argv[2];
    }
    if (authenticate(c, username, password) == C_OK) addReply(c, shared.ok);
    else addReplyError(c, "-WRONGPASS invalid username-password pair or user is disabled.");
    decrRefCount(username);
}

void aclSetuserCommand(client *c) {
    for (int j = 2; j < c->argc; j++) redactClientCommandArgument(c, j);
    sds username = objectPtr(c->argv[2]);
    if (stringHasSpaces(username, sdslen(username))) {
        addReplyError(c, "Usernames can't contain spaces or null characters");
        return;
    }
    user *u = getUserByName(username, sdslen(username));
    sds *args = zmalloc(sizeof(sds) * c->argc);
    for (int i = 3; i < c->argc; i++) args[i - 3] = objectPtr(c->argv[i]);
    sds error = stringSetUser(u, username, args, c->argc - 3);
    zfree(args);
    if (!error) {
        addReply(c, shared.ok);
    } else {
        /* The error may quote user input: keep it on one line. */
        for (size_t i = 0; i < sdslen(error); i++)
            if (error[i] == '\r' || error[i] == '\n') error[i] = ' ';
        addReplyErrorSds(c, error);
    }
}

void aclDeluserCommand(client *c) {
    for (int j = 2; j < c->argc; j++) {
        if (!strcmp(objectPtr(c->argv[j]), "default")) {
            addReplyError(c, "The 'default' user cannot be removed");
            return;
        }
    }
    long deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        user *u = dictFetchValue(Users, objectPtr(c->argv[j]));
        if (!u) continue;
        dictDelete(Users, objectPtr(c->argv[j]));
        freeUserAndKillClients(u);
        deleted++;
    }
    addReplyLongLong(c, deleted);
}

static void addReplySelectorDescription(client *c, aclSelector *s) {
    addReplyBulkCString(c, "commands");
    addReplyBulkSds(c, describeSelectorCommandRules(s));
    addReplyBulkCString(c, "keys");
    addReplyBulkSds(c, describeKeys(s));
    addReplyBulkCString(c, "channels");
    addReplyBulkSds(c, describeChannels(s));
}

void aclGetuserCommand(client *c) {
    user *u = getUserByName(objectPtr(c->argv[2]), sdslen(objectPtr(c->argv[2])));
    if (!u) {
        addReplyNull(c);
        return;
    }
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "flags");
    int numflags = 0;
    for (int j = 0; ACLUserFlags[j].flag; j++)
        if (u->flags & ACLUserFlags[j].flag) numflags++;
    addReplySetLen(c, numflags);
    for (int j = 0; ACLUserFlags[j].flag; j++)
        if (u->flags & ACLUserFlags[j].flag) addReplyBulkCString(c, ACLUserFlags[j].name);
    addReplyBulkCString(c, "passwords");
    addReplyArrayLen(c, listLength(u->passwords));
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) addReplyBulkCBuffer(c, listNodeValue(ln), sdslen(listNodeValue(ln)));
    addReplySelectorDescription(c, rootSelector(u));
    addReplyBulkCString(c, "selectors");
    addReplyArrayLen(c, listLength(u->selectors) - 1);
    listRewind(u->selectors, &li);
    listNext(&li);
    while ((ln = listNext(&li))) {
        addReplyMapLen(c, 3);
        addReplySelectorDescription(c, listNodeValue(ln));
    }
}

void aclListCommand(client *c) {
    int count;
    sds *lines = describeAllUsers(&count);
    addReplyArrayLen(c, count);
    for (int j = 0; j < count; j++) {
        addReplyBulkSds(c, sdscatsds(sdsnew("user "), lines[j]));
        sdsfree(lines[j]);
    }
    zfree(lines);
}

void aclUsersCommand(client *c) {
    unsigned long n;
    user **all = sortedUsers(&n);
    addReplyArrayLen(c, n);
    for (unsigned long i = 0; i < n; i++) addReplyBulkCBuffer(c, all[i]->name, sdslen(all[i]->name));
    zfree(all);
}

void aclWhoamiCommand(client *c) {
    if (c->user) addReplyBulkCBuffer(c, c->user->name, sdslen(c->user->name));
    else addReplyNull(c);
}

typedef struct catListing {
    client *c;
    uint64_t cflag;
    long count;
} catListing;

static void addCommandOfCategory(redisCommand *cmd, void *ctx) {
    catListing *cl = ctx;
    if (!(cmd->acl_categories & cl->cflag)) return;
    addReplyBulkCString(cl->c, cmd->fullname);
    cl->count++;
}

void aclCatCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 2) {
        void *dl = addReplyDeferredLen(c);
        int j;
        for (j = 0; ACLCommandCategories[j].name; j++) addReplyBulkCString(c, ACLCommandCategories[j].name);
        setDeferredArrayLen(c, dl, j);
        return;
    }
    uint64_t cflag = categoryFlagByName(objectPtr(c->argv[2]));
    if (!cflag) {
        addReplyErrorFormat(c, "Unknown category '%.128s'", (char *)objectPtr(c->argv[2]));
        return;
    }
    catListing cl = {c, cflag, 0};
    void *dl = addReplyDeferredLen(c);
    forEachCommand(server.commands, addCommandOfCategory, &cl);
    setDeferredArrayLen(c, dl, cl.count);
}

void aclLogCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    long long count = 10;
    if (c->argc == 3) {
        if (!strcasecmp(objectPtr(c->argv[2]), "reset")) {
            while (listLength(ACLLog)) {
                freeLogEntry(listNodeValue(listFirst(ACLLog)));
                listDelNode(ACLLog, listFirst(ACLLog));
            }
            addReply(c, shared.ok);
            return;
        }
        if (getLongLongFromObject(c->argv[2], &count) != 0) {
            addReplyError(c, "value is not an integer or out of range");
            return;
        }
        if (count < 0) count = 0;
    }
    if ((unsigned long long)count > listLength(ACLLog)) count = listLength(ACLLog);
    static const char *reasons[] = {"unknown", "command", "key", "auth", "channel"};
    static const char *contexts[] = {"toplevel", "multi", "lua"};
    addReplyArrayLen(c, count);
    listIter li;
    listNode *ln;
    listRewind(ACLLog, &li);
    while (count-- && (ln = listNext(&li))) {
        aclLogEntry *le = listNodeValue(ln);
        addReplyMapLen(c, 7);
        addReplyBulkCString(c, "count");
        addReplyLongLong(c, le->count);
        addReplyBulkCString(c, "reason");
        addReplyBulkCString(c, reasons[le->reason]);
        addReplyBulkCString(c, "context");
        addReplyBulkCString(c, contexts[le->context]);
        addReplyBulkCString(c, "object");
        addReplyBulkCBuffer(c, le->object, sdslen(le->object));
        addReplyBulkCString(c, "username");
        addReplyBulkCBuffer(c, le->username, sdslen(le->username));
        addReplyBulkCString(c, "age-seconds");
        addReplyDouble(c, (double)(server.mstime - le->ctime) / 1000);
        addReplyBulkCString(c, "client-info");
        addReplyBulkCBuffer(c, le->cinfo, sdslen(le->cinfo));
    }
}

void aclGenpassCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
#define GENPASS_MAX_BITS 4096
    long long bits = 256;
    if (c->argc == 3 && getLongLongFromObject(c->argv[2], &bits) != 0) {
        addReplyError(c, "value is not an integer or out of range");
        return;
    }
    if (bits <= 0 || bits > GENPASS_MAX_BITS) {
        addReplyErrorFormat(c,
                            "ACL GENPASS argument must be the number of bits for the output password, a positive "
                            "number up to %d",
                            GENPASS_MAX_BITS);
        return;
    }
    long chars = (long)(bits + 3) / 4;
    char pass[GENPASS_MAX_BITS / 4 + 1];
    if (!getRandomHex(pass, (size_t)chars)) { /* digits from rand() make no password */
        addReplyError(c, "Unable to generate random data");
        return;
    }
    addReplyBulkCBuffer(c, pass, chars);
}

void aclDryrunCommand(client *c) {
    user *u = getUserByName(objectPtr(c->argv[2]), sdslen(objectPtr(c->argv[2])));
    if (!u) {
        addReplyErrorFormat(c, "User '%s' not found", (char *)objectPtr(c->argv[2]));
        return;
    }
    redisCommand *cmd = lookupCommand(c->argv + 3, c->argc - 3);
    if (!cmd) {
        addReplyErrorFormat(c, "Command '%s' not found", (char *)objectPtr(c->argv[3]));
        return;
    }
    if (!commandCheckArity(cmd, c->argc - 3)) {
        addReplyErrorFormat(c, "wrong number of arguments for '%s' command", cmd->fullname);
        return;
    }
    int idx = 0;
    int result = checkUserCommandPerm(u, cmd, c->argv + 3, c->argc - 3, &idx);
    if (result == ACCESS_OK) {
        addReply(c, shared.ok);
        return;
    }
    sds err;
    if (result == ACCESS_DENIED_CMD)
        err = sdscatprintf(sdsempty(), "This user has no permissions to run the '%s' command", cmd->fullname);
    else
        err = sdscatprintf(sdsempty(), "This user has no permissions to access the '%s' %s",
                           (char *)objectPtr(c->argv[idx + 3]), result == ACCESS_DENIED_KEY ? "key" : "channel");
    addReplyBulkSds(c, err);
}

static const char *noAclFileError =
    "This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER "
    "command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store "
    "users in the Redis configuration.";

void aclLoadCommand(client *c) {
    if (!server.acl_filename[0]) {
        addReplyError(c, noAclFileError);
        return;
    }
    sds errors = loadFromFile(server.acl_filename);
    if (!errors) {
        addReply(c, shared.ok);
    } else {
        addReplyError(c, errors);
        sdsfree(errors);
    }
}

void aclSaveCommand(client *c) {
    if (!server.acl_filename[0]) {
        addReplyError(c, noAclFileError);
        return;
    }
    if (saveToFile(server.acl_filename) == C_OK) addReply(c, shared.ok);
    else addReplyError(c, "There was an error trying to save the ACLs. Please check the server logs for more information");
}

void aclHelpCommand(client *c) {
    const char *help[] = {
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        NULL};
    addReplyHelp(c, help);
}
