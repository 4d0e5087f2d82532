/* slowlog: SLOWLOG GET/LEN/RESET/HELP (see slowlog.h). Entries keep at most
 * 32 arguments and 128 bytes of each, as Redis does, so the log stays small.
 * The pipeline hands in the argv as the client sent it (secrets already
 * redacted); commands run by scripts are logged from the script's client. */
#include "features/slowlog.h"
#include "server/reply.h"
#include "server/dispatch.h"
#include "core/zmalloc.h"

#include <strings.h>

#define SLOWLOG_ENTRY_MAX_ARGC 32
#define SLOWLOG_ENTRY_MAX_STRING 128

typedef struct slowlogEntry {
    robj **argv;
    int argc;
    long long id;
    long long duration;
    time_t time;
    sds cname;
    sds peerid;
} slowlogEntry;

static list *slowlog;
static long long slowlog_entry_id;

static void slowlogFreeEntry(void *ptr) {
    slowlogEntry *se = ptr;
    for (int j = 0; j < se->argc; j++) decrRefCount(se->argv[j]);
    zfree(se->argv);
    sdsfree(se->cname);
    sdsfree(se->peerid);
    zfree(se);
}

void slowlogInit(void) {
    slowlog = listCreate();
    slowlog->free = slowlogFreeEntry;
}

static slowlogEntry *slowlogCreateEntry(client *c, robj **argv, int argc, long long duration) {
    slowlogEntry *se = zmalloc(sizeof(*se));
    int slargc = argc > SLOWLOG_ENTRY_MAX_ARGC ? SLOWLOG_ENTRY_MAX_ARGC : argc;
    se->argc = slargc;
    se->argv = zmalloc(sizeof(robj *) * slargc);
    for (int j = 0; j < slargc; j++) {
        if (slargc != argc && j == slargc - 1) {
            se->argv[j] = createObject(OBJ_STRING, sdscatprintf(sdsempty(), "... (%d more arguments)", argc - slargc + 1));
        } else if (argv[j]->type == OBJ_STRING && sdsEncodedObject(argv[j]) &&
                   sdslen(objectPtr(argv[j])) > SLOWLOG_ENTRY_MAX_STRING) {
            sds s = sdsnewlen(objectPtr(argv[j]), SLOWLOG_ENTRY_MAX_STRING);
            s = sdscatprintf(s, "... (%lu more bytes)", (unsigned long)sdslen(objectPtr(argv[j])) - SLOWLOG_ENTRY_MAX_STRING);
            se->argv[j] = createObject(OBJ_STRING, s);
        } else if (argv[j]->refcount == OBJ_SHARED_REFCOUNT) {
            se->argv[j] = argv[j];
        } else {
            se->argv[j] = dupStringObject(argv[j]);
        }
    }
    se->time = time(NULL);
    se->duration = duration;
    se->id = slowlog_entry_id++;
    /* A client without a connection (the script client) shows as Redis's "?:0". */
    se->peerid = sdsnew(c->fd == -1 && c->addr[0] == '\0' ? "?:0" : c->addr);
    se->cname = c->name ? sdsnew(objectPtr(c->name)) : sdsempty();
    return se;
}

void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration) {
    if (server.slowlog_log_slower_than < 0) return;
    if (duration >= server.slowlog_log_slower_than) listAddNodeHead(slowlog, slowlogCreateEntry(c, argv, argc, duration));
    while (listLength(slowlog) > server.slowlog_max_len) listDelNode(slowlog, listLast(slowlog));
}

void slowlogResetCommand(client *c) {
    while (listLength(slowlog) > 0) listDelNode(slowlog, listLast(slowlog));
    addReply(c, shared.ok);
}

void slowlogLenCommand(client *c) { addReplyLongLong(c, listLength(slowlog)); }

void slowlogGetCommand(client *c) {
    long long count = 10;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3) {
        if (getLongLongFromObject(c->argv[2], &count) != 0 || count < -1) {
            addReplyError(c, "count should be greater than or equal to -1");
            return;
        }
        if (count == -1) count = listLength(slowlog);
    }
    if (count > (long long)listLength(slowlog)) count = listLength(slowlog);
    addReplyArrayLen(c, count);
    listIter li;
    listNode *ln;
    listRewind(slowlog, &li);
    while (count-- && (ln = listNext(&li))) {
        slowlogEntry *se = listNodeValue(ln);
        addReplyArrayLen(c, 6);
        addReplyLongLong(c, se->id);
        addReplyLongLong(c, se->time);
        addReplyLongLong(c, se->duration);
        addReplyArrayLen(c, se->argc);
        for (int j = 0; j < se->argc; j++) addReplyBulk(c, se->argv[j]);
        addReplyBulkCBuffer(c, se->peerid, sdslen(se->peerid));
        addReplyBulkCBuffer(c, se->cname, sdslen(se->cname));
    }
}

void slowlogHelpCommand(client *c) {
    const char *help[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL};
    addReplyHelp(c, help);
}

void slowlogCallObserver(const callInfo *ci) {
    if (ci->blocked || !(ci->call_flags & CALL_SLOWLOG) || (ci->cmd->flags & CMD_SKIP_SLOWLOG)) return;
    slowlogPushEntryIfNeeded(ci->c, ci->argv, ci->argc, ci->duration_us);
}
