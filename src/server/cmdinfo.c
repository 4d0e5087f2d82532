/* cmdinfo: reads the RESP fragments of the command table (commands.def) into
 * data: ACL categories and key specs. Key specs are parsed once per command,
 * on first use. Commands whose specs cannot say everything (SORT's STORE,
 * MIGRATE's KEYS, SET's GET, BITFIELD's writes) have a function here that
 * finds their keys from the arguments, as Redis's getkeys_proc do. */
#include "server/cmdinfo.h"
#include "core/zmalloc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { BS_INVALID, BS_INDEX, BS_KEYWORD, BS_UNKNOWN };
enum { FK_INVALID, FK_RANGE, FK_KEYNUM, FK_UNKNOWN };

typedef struct keySpec {
    int flags;
    int bs_type, bs_index, bs_startfrom;
    char bs_keyword[32];
    int fk_type, fk_lastkey, fk_keystep, fk_limit, fk_keynumidx, fk_firstkey;
} keySpec;

typedef int getKeysProc(robj **argv, int argc, keyReference *keys);

typedef struct commandKeyInfo {
    keySpec *specs;
    int numspecs;
    getKeysProc *proc;
} commandKeyInfo;

/* ------------------------------------------------------- a small RESP reader */

static long respHeader(const char **p, char *type) {
    *type = **p;
    long n = strtol(*p + 1, NULL, 10);
    *p = strchr(*p, '\n') + 1;
    return n;
}

static void respSkip(const char **p) {
    char t;
    long n = respHeader(p, &t);
    if (t == '*')
        for (long i = 0; i < n; i++) respSkip(p);
    else if (t == '$' && n >= 0)
        *p += n + 2;
}

/* A simple or bulk string into out (truncated to outlen-1). */
static void respString(const char **p, char *out, size_t outlen) {
    char t;
    const char *start = *p;
    long n = respHeader(p, &t);
    const char *s;
    size_t len;
    if (t == '$') {
        s = *p;
        len = n < 0 ? 0 : (size_t)n;
        *p += len + 2;
    } else {
        s = start + 1;
        len = (size_t)(strchr(start, '\r') - s);
    }
    if (len >= outlen) len = outlen - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

/* --------------------------------------------------------------- categories */

int commandCategoryNames(struct redisCommand *cmd, char names[][CMDINFO_MAX_CATEGORY_LEN], int max) {
    const char *p = cmd->info_resp;
    char t;
    respHeader(&p, &t);
    long n = respHeader(&p, &t);
    int count = 0;
    for (long i = 0; i < n; i++) {
        char name[CMDINFO_MAX_CATEGORY_LEN + 1];
        respString(&p, name, sizeof(name));
        if (count < max && name[0] == '@') {
            memcpy(names[count], name + 1, CMDINFO_MAX_CATEGORY_LEN);
            names[count][CMDINFO_MAX_CATEGORY_LEN - 1] = '\0';
            count++;
        }
    }
    return count;
}

/* ---------------------------------------------------------------- key specs */

static const struct {
    const char *name;
    int flag;
} keySpecFlags[] = {{"RO", CMD_KEY_RO},         {"RW", CMD_KEY_RW},         {"OW", CMD_KEY_OW},
                    {"RM", CMD_KEY_RM},         {"access", CMD_KEY_ACCESS}, {"update", CMD_KEY_UPDATE},
                    {"insert", CMD_KEY_INSERT}, {"delete", CMD_KEY_DELETE}, {"not_key", CMD_KEY_NOT_KEY},
                    {"incomplete", CMD_KEY_INCOMPLETE}, {"variable_flags", CMD_KEY_VARIABLE_FLAGS}};

static int keySpecFlag(const char *name) {
    for (int i = 0; i < CMD_KEY_FLAG_COUNT; i++)
        if (!strcmp(keySpecFlags[i].name, name)) return keySpecFlags[i].flag;
    return 0;
}

int keySpecFlagNames(int flags, const char *names[CMD_KEY_FLAG_COUNT]) {
    int n = 0;
    for (int i = 0; i < CMD_KEY_FLAG_COUNT; i++)
        if (flags & keySpecFlags[i].flag) names[n++] = keySpecFlags[i].name;
    return n;
}

/* Reads a "spec" map of integers/strings: calls back for each field. */
static void parseSpecFields(const char **p, keySpec *ks, int begin) {
    char t;
    long n = respHeader(p, &t);
    for (long i = 0; i + 1 < n; i += 2) {
        char field[32];
        respString(p, field, sizeof(field));
        if (!strcmp(field, "keyword")) {
            respString(p, ks->bs_keyword, sizeof(ks->bs_keyword));
            continue;
        }
        const char *q = *p;
        long v = respHeader(&q, &t);
        respSkip(p);
        if (begin && !strcmp(field, "index")) ks->bs_index = (int)v;
        else if (begin && !strcmp(field, "startfrom")) ks->bs_startfrom = (int)v;
        else if (!strcmp(field, "lastkey")) ks->fk_lastkey = (int)v;
        else if (!strcmp(field, "keystep")) ks->fk_keystep = (int)v;
        else if (!strcmp(field, "limit")) ks->fk_limit = (int)v;
        else if (!strcmp(field, "keynumidx")) ks->fk_keynumidx = (int)v;
        else if (!strcmp(field, "firstkey")) ks->fk_firstkey = (int)v;
    }
}

/* begin_search / find_keys: a map {type, spec}. */
static void parseSearch(const char **p, keySpec *ks, int begin) {
    char t;
    long n = respHeader(p, &t);
    for (long i = 0; i + 1 < n; i += 2) {
        char field[16];
        respString(p, field, sizeof(field));
        if (!strcmp(field, "type")) {
            char type[16];
            respString(p, type, sizeof(type));
            int v;
            if (begin) v = !strcmp(type, "index") ? BS_INDEX : !strcmp(type, "keyword") ? BS_KEYWORD : BS_UNKNOWN;
            else v = !strcmp(type, "range") ? FK_RANGE : !strcmp(type, "keynum") ? FK_KEYNUM : FK_UNKNOWN;
            if (begin) ks->bs_type = v;
            else ks->fk_type = v;
        } else if (!strcmp(field, "spec")) {
            parseSpecFields(p, ks, begin);
        } else {
            respSkip(p);
        }
    }
}

static void parseKeySpec(const char **p, keySpec *ks) {
    char t;
    long n = respHeader(p, &t);
    for (long i = 0; i + 1 < n; i += 2) {
        char field[16];
        respString(p, field, sizeof(field));
        if (!strcmp(field, "flags")) {
            long nf = respHeader(p, &t);
            for (long f = 0; f < nf; f++) {
                char flag[32];
                respString(p, flag, sizeof(flag));
                ks->flags |= keySpecFlag(flag);
            }
        } else if (!strcmp(field, "begin_search")) {
            parseSearch(p, ks, 1);
        } else if (!strcmp(field, "find_keys")) {
            parseSearch(p, ks, 0);
        } else {
            respSkip(p);
        }
    }
}

/* ------------------------------------------------- keys found from arguments */

/* Arguments may have been turned into integers by a command that already ran
 * on them (a transaction checked again at EXEC): those match no keyword. */
static int argIs(robj *arg, const char *word) { return sdsEncodedObject(arg) && !strcasecmp(objectPtr(arg), word); }

static int sortGetKeys(robj **argv, int argc, keyReference *keys) {
    int num = 0, found_store = 0;
    keys[num].pos = 1;
    keys[num++].flags = CMD_KEY_RO | CMD_KEY_ACCESS;
    for (int i = 2; i < argc; i++) {
        if (argIs(argv[i], "limit")) i += 2;
        else if (argIs(argv[i], "get") || argIs(argv[i], "by")) i += 1;
        else if (argIs(argv[i], "store") && i + 1 < argc) {
            /* The last STORE wins, as in SORT itself. */
            found_store = 1;
            keys[num].pos = i + 1;
            keys[num].flags = CMD_KEY_OW | CMD_KEY_UPDATE;
        }
    }
    return num + found_store;
}

static int sortRoGetKeys(robj **argv, int argc, keyReference *keys) {
    (void)argv, (void)argc;
    keys[0].pos = 1;
    keys[0].flags = CMD_KEY_RO | CMD_KEY_ACCESS;
    return 1;
}

static int migrateGetKeys(robj **argv, int argc, keyReference *keys) {
    int first = 3, num = 1;
    for (int i = 6; i < argc; i++) {
        if (argIs(argv[i], "keys")) {
            if (!sdsEncodedObject(argv[3]) || sdslen(objectPtr(argv[3])) > 0) return 0;
            first = i + 1;
            num = argc - first;
            break;
        }
        if (argIs(argv[i], "auth")) i += 1;
        else if (argIs(argv[i], "auth2")) i += 2;
    }
    for (int i = 0; i < num; i++) {
        keys[i].pos = first + i;
        keys[i].flags = CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_DELETE;
    }
    return num;
}

static int setGetKeys(robj **argv, int argc, keyReference *keys) {
    keys[0].pos = 1;
    keys[0].flags = CMD_KEY_OW | CMD_KEY_UPDATE;
    for (int i = 3; i < argc; i++)
        if (argIs(argv[i], "get")) keys[0].flags = CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_UPDATE;
    return 1;
}

static int bitfieldGetKeys(robj **argv, int argc, keyReference *keys) {
    int readonly = 1;
    for (int i = 2; i < argc; i++) {
        int rem = argc - i - 1;
        if (argIs(argv[i], "get") && rem >= 2) {
            i += 2;
        } else if (argIs(argv[i], "overflow") && rem >= 1) {
            i += 1;
        } else {
            /* SET, INCRBY, or a syntax error: assume it writes. */
            readonly = 0;
            break;
        }
    }
    keys[0].pos = 1;
    keys[0].flags = readonly ? (CMD_KEY_RO | CMD_KEY_ACCESS) : (CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_UPDATE);
    return 1;
}

/* ------------------------------------------------------------------ parsing */

static dict *keyInfos; /* redisCommand* → commandKeyInfo */

static dictType keyInfoDictType = {dictPtrHash, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL};

static commandKeyInfo *keyInfo(struct redisCommand *cmd) {
    if (!keyInfos) keyInfos = dictCreate(&keyInfoDictType);
    commandKeyInfo *ki = dictFetchValue(keyInfos, cmd);
    if (ki) return ki;
    ki = zcalloc(sizeof(*ki));
    const char *p = cmd->info_resp;
    char t;
    respHeader(&p, &t);
    respSkip(&p); /* categories */
    respSkip(&p); /* tips */
    long n = respHeader(&p, &t);
    ki->specs = n ? zcalloc(sizeof(keySpec) * n) : NULL;
    ki->numspecs = (int)n;
    for (long i = 0; i < n; i++) parseKeySpec(&p, &ki->specs[i]);
    static const struct {
        const char *name;
        getKeysProc *proc;
    } procs[] = {{"sort", sortGetKeys}, {"sort_ro", sortRoGetKeys}, {"migrate", migrateGetKeys},
                 {"set", setGetKeys},   {"bitfield", bitfieldGetKeys}, {NULL, NULL}};
    for (int i = 0; procs[i].name; i++)
        if (!strcmp(cmd->fullname, procs[i].name)) ki->proc = procs[i].proc;
    dictAdd(keyInfos, cmd, ki);
    return ki;
}

int commandHasKeys(struct redisCommand *cmd) {
    commandKeyInfo *ki = keyInfo(cmd);
    if (ki->proc) return 1;
    for (int i = 0; i < ki->numspecs; i++)
        if (!(ki->specs[i].flags & CMD_KEY_NOT_KEY)) return 1;
    return 0;
}

int commandHasKeySpecs(struct redisCommand *cmd) {
    commandKeyInfo *ki = keyInfo(cmd);
    return ki->proc || ki->numspecs > 0;
}

/* Redis's getKeysUsingKeySpecs: -1 when a spec cannot be followed (the
 * command's own key finder, if any, is then used). */
static int keysFromSpecs(commandKeyInfo *ki, int with_not_keys, robj **argv, int argc, keyReference **out) {
    int count = 0, cap = 0;
    keyReference *keys = NULL;
    for (int j = 0; j < ki->numspecs; j++) {
        keySpec *spec = &ki->specs[j];
        int first = 0, last, step;
        if ((spec->flags & CMD_KEY_NOT_KEY) && !with_not_keys) continue;
        if (spec->bs_type == BS_INDEX) {
            first = spec->bs_index;
        } else if (spec->bs_type == BS_KEYWORD) {
            int start = spec->bs_startfrom > 0 ? spec->bs_startfrom : argc + spec->bs_startfrom;
            int end = spec->bs_startfrom > 0 ? argc - 1 : 0;
            for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
                if (i >= argc || i < 1) break;
                if (argIs(argv[i], spec->bs_keyword)) {
                    first = i + 1;
                    break;
                }
            }
            if (!first) continue;
        } else {
            goto invalid;
        }
        if (spec->fk_type == FK_RANGE) {
            if (spec->fk_lastkey >= 0) last = first + spec->fk_lastkey;
            else if (!spec->fk_limit) last = argc + spec->fk_lastkey;
            else last = first + ((argc - first) / spec->fk_limit + spec->fk_lastkey);
            step = spec->fk_keystep;
        } else if (spec->fk_type == FK_KEYNUM) {
            long long numkeys;
            if (first + spec->fk_keynumidx >= argc) goto invalid;
            if (getLongLongFromObject(argv[first + spec->fk_keynumidx], &numkeys) != 0 || numkeys < 0) goto invalid;
            first += spec->fk_firstkey;
            last = first + (int)numkeys - 1;
            step = spec->fk_keystep;
        } else {
            goto invalid;
        }
        if (last >= argc || last < first || first >= argc) goto invalid;
        if (step < 1) step = 1;
        for (int i = first; i <= last; i += step) {
            if (count == cap) {
                cap = cap ? cap * 2 : 8;
                keys = zrealloc(keys, sizeof(*keys) * cap);
            }
            keys[count].pos = i;
            keys[count++].flags = spec->flags;
        }
        if (spec->flags & CMD_KEY_INCOMPLETE) goto invalid;
    }
    *out = keys;
    return count;
invalid:
    zfree(keys);
    *out = NULL;
    return -1;
}

static int keysOf(struct redisCommand *cmd, int with_not_keys, robj **argv, int argc, keyReference **keys) {
    commandKeyInfo *ki = keyInfo(cmd);
    *keys = NULL;
    int varflags = 0;
    for (int i = 0; i < ki->numspecs; i++) varflags |= ki->specs[i].flags & CMD_KEY_VARIABLE_FLAGS;
    if (ki->numspecs && !varflags) {
        int n = keysFromSpecs(ki, with_not_keys, argv, argc, keys);
        if (n >= 0) return n;
    }
    if (!ki->proc) return 0;
    *keys = zmalloc(sizeof(keyReference) * (argc + 1));
    int n = ki->proc(argv, argc, *keys);
    if (n <= 0) {
        zfree(*keys);
        *keys = NULL;
        return 0;
    }
    return n;
}

int getKeysWithFlags(struct redisCommand *cmd, robj **argv, int argc, keyReference **keys) {
    return keysOf(cmd, 0, argv, argc, keys);
}

int getRoutingKeys(struct redisCommand *cmd, robj **argv, int argc, keyReference **keys) {
    return keysOf(cmd, 1, argv, argc, keys);
}
