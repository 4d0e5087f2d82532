/* monitor: MONITOR and the feed of executed commands (see monitor.h).
 * Lines look like: +1700000000.123456 [0 127.0.0.1:5555] "set" "k" "v"
 * The pipeline feeds a command after it ran, with the argv as the client sent
 * it; secrets were already replaced there by the commands that take them
 * (redactClientCommandArgument), so nothing here knows command names. */
#include "features/monitor.h"
#include "server/client.h"
#include "server/reply.h"

#include <sys/time.h>

void monitorFeed(client *c, int dictid, robj **argv, int argc) {
    if (listLength(server.monitors) == 0) return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    sds line = sdscatprintf(sdsempty(), "+%ld.%06ld ", (long)tv.tv_sec, (long)tv.tv_usec);
    if (c->flags & CLIENT_LUA) line = sdscatprintf(line, "[%d lua] ", dictid);
    else if (c->flags & CLIENT_UNIX_SOCKET) line = sdscatprintf(line, "[%d unix:%s] ", dictid, server.unixsocket);
    else line = sdscatprintf(line, "[%d %s] ", dictid, c->addr);
    for (int j = 0; j < argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *p = stringObjectView(argv[j], buf, &len);
        line = sdscatrepr(line, p, len);
        if (j != argc - 1) line = sdscatlen(line, " ", 1);
    }
    line = sdscatlen(line, "\r\n", 2);
    /* The line is a status reply in both protocols; monitors see their own
     * commands too, except a QUIT: nothing follows its +OK. */
    listIter li;
    listNode *ln;
    listRewind(server.monitors, &li);
    while ((ln = listNext(&li))) {
        client *m = listNodeValue(ln);
        if (!(m->flags & CLIENT_CLOSE_AFTER_REPLY)) addReplyProto(m, line, sdslen(line));
    }
    sdsfree(line);
}

void monitorCommand(client *c) {
    if (c->flags & CLIENT_DENY_BLOCKING) {
        addReplyError(c, "MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    /* Already monitoring: ignored without a reply, as Redis does for a replica. */
    if (c->flags & CLIENT_MONITOR) return;
    c->flags |= CLIENT_MONITOR;
    listAddNodeTail(server.monitors, c);
    addReply(c, shared.ok);
}

void monitorCallObserver(const callInfo *ci) {
    client *c = ci->c;
    if (ci->reprocessing || listLength(server.monitors) == 0 || server.loading || (c->flags & CLIENT_AOF) ||
        (ci->cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN)))
        return;
    monitorFeed(c, c->db->id, ci->argv, ci->argc);
}
