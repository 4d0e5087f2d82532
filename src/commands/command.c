/* command: the COMMAND command and its subcommands (COUNT, INFO, DOCS, LIST,
 * GETKEYS, GETKEYSANDFLAGS, HELP), answered from server/'s command table
 * as Redis 7.0 answers them (redis-cli builds its hints from INFO and DOCS). */
#include "server/command.h"
#include "server/cmdinfo.h"
#include "server/reply.h"
#include "core/glob.h"
#include "core/zmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void addReplyCommandFlags(client *c, redisCommand *cmd) {
    int count;
    sds *w = sdssplitlen(cmd->flagwords, strlen(cmd->flagwords), " ", 1, &count);
    int real = 0;
    for (int i = 0; i < count; i++)
        if (sdslen(w[i])) real++;
    addReplyArrayLen(c, real);
    for (int i = 0; i < count; i++)
        if (sdslen(w[i])) addReplyStatus(c, w[i]);
    sdsfreesplitres(w, count);
}

static long implementedSubcommands(redisCommand *cmd) {
    long n = 0;
    if (!cmd->subcommands) return 0;
    dictIterator *di = dictGetIterator(cmd->subcommands);
    dictEntry *de;
    while ((de = dictNext(di)))
        if (((redisCommand *)dictGetVal(de))->proc) n++;
    dictReleaseIterator(di);
    return n;
}

/* The fragments are RESP arrays "*N\r\n..."; skip their header to splice the body. */
static const char *fragmentBody(const char *frag, long *count) {
    *count = strtol(frag + 1, NULL, 10);
    return strchr(frag, '\n') + 1;
}

static void addReplyCommandInfo(client *c, redisCommand *cmd) {
    if (!cmd) {
        addReplyNullArray(c);
        return;
    }
    addReplyArrayLen(c, 10);
    addReplyBulkCString(c, cmd->fullname);
    addReplyLongLong(c, cmd->arity);
    addReplyCommandFlags(c, cmd);
    addReplyLongLong(c, cmd->firstkey);
    addReplyLongLong(c, cmd->lastkey);
    addReplyLongLong(c, cmd->keystep);
    long n;
    const char *body = fragmentBody(cmd->info_resp, &n);
    addReplyProto(c, body, strlen(body));
    addReplyArrayLen(c, implementedSubcommands(cmd));
    if (cmd->subcommands) {
        dictIterator *di = dictGetIterator(cmd->subcommands);
        dictEntry *de;
        while ((de = dictNext(di))) {
            redisCommand *sub = dictGetVal(de);
            if (sub->proc) addReplyCommandInfo(c, sub);
        }
        dictReleaseIterator(di);
    }
}

static void addReplyCommandDocs(client *c, redisCommand *cmd) {
    long n;
    const char *body = fragmentBody(cmd->docs_resp, &n);
    long subs = implementedSubcommands(cmd);
    addReplyArrayLen(c, n + (subs ? 2 : 0));
    addReplyProto(c, body, strlen(body));
    if (subs) {
        addReplyBulkCString(c, "subcommands");
        addReplyMapLen(c, subs);
        dictIterator *di = dictGetIterator(cmd->subcommands);
        dictEntry *de;
        while ((de = dictNext(di))) {
            redisCommand *sub = dictGetVal(de);
            if (!sub->proc) continue;
            addReplyBulkCString(c, sub->fullname);
            addReplyCommandDocs(c, sub);
        }
        dictReleaseIterator(di);
    }
}

static long countImplemented(void) {
    long n = 0;
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di)))
        if (commandImplemented(dictGetVal(de))) n++;
    dictReleaseIterator(di);
    return n;
}

void commandCommand(client *c) {
    addReplyArrayLen(c, countImplemented());
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di)))
        if (commandImplemented(dictGetVal(de))) addReplyCommandInfo(c, dictGetVal(de));
    dictReleaseIterator(di);
}

void commandCountCommand(client *c) { addReplyLongLong(c, countImplemented()); }

void commandInfoCommand(client *c) {
    if (c->argc == 2) {
        commandCommand(c);
        return;
    }
    addReplyArrayLen(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) addReplyCommandInfo(c, lookupCommandByCString(objectPtr(c->argv[i])));
}

void commandDocsCommand(client *c) {
    if (c->argc == 2) {
        addReplyMapLen(c, countImplemented());
        dictIterator *di = dictGetIterator(server.commands);
        dictEntry *de;
        while ((de = dictNext(di))) {
            redisCommand *cmd = dictGetVal(de);
            if (!commandImplemented(cmd)) continue;
            addReplyBulkCString(c, cmd->fullname);
            addReplyCommandDocs(c, cmd);
        }
        dictReleaseIterator(di);
        return;
    }
    void *replylen = addReplyDeferredLen(c);
    long n = 0;
    for (int i = 2; i < c->argc; i++) {
        redisCommand *cmd = lookupCommandByCString(objectPtr(c->argv[i]));
        if (!cmd) continue;
        addReplyBulkCString(c, cmd->fullname);
        addReplyCommandDocs(c, cmd);
        n++;
    }
    setDeferredMapLen(c, replylen, n);
}

void commandListCommand(client *c) {
    const char *pattern = NULL, *aclcat = NULL;
    if (c->argc == 5) {
        if (strcasecmp(objectPtr(c->argv[2]), "filterby")) {
            addReplyErrorObject(c, shared.syntaxerr); /* as 7.0 answers any other shape */
            return;
        }
        const char *kind = objectPtr(c->argv[3]);
        if (!strcasecmp(kind, "pattern")) pattern = objectPtr(c->argv[4]);
        else if (!strcasecmp(kind, "aclcat")) aclcat = objectPtr(c->argv[4]);
        else if (strcasecmp(kind, "module")) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        } else {
            addReply(c, shared.emptyarray); /* no modules */
            return;
        }
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    void *replylen = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *di = dictGetIterator(server.commands);
    dictEntry *de;
    while ((de = dictNext(di))) {
        redisCommand *cmd = dictGetVal(de);
        if (!commandImplemented(cmd)) continue;
        redisCommand *all[1 + 64];
        int cnt = 0;
        all[cnt++] = cmd;
        if (cmd->subcommands) {
            dictIterator *si = dictGetIterator(cmd->subcommands);
            dictEntry *se;
            while ((se = dictNext(si)) && cnt < 65)
                if (((redisCommand *)dictGetVal(se))->proc) all[cnt++] = dictGetVal(se);
            dictReleaseIterator(si);
        }
        for (int i = 0; i < cnt; i++) {
            if (pattern && !stringmatch(pattern, all[i]->fullname, 1)) continue;
            if (aclcat) {
                char needle[80];
                snprintf(needle, sizeof(needle), "+@%s\r\n", aclcat);
                if (!strstr(all[i]->info_resp, needle)) continue;
            }
            addReplyBulkCString(c, all[i]->fullname);
            n++;
        }
    }
    dictReleaseIterator(di);
    setDeferredArrayLen(c, replylen, n);
}

/* COMMAND GETKEYS / GETKEYSANDFLAGS: the keys the command's key specs (or,
 * where they cannot tell, its own key finder) find, as Redis 7.0 finds them. */
static void getKeysSubcommand(client *c, int with_flags) {
    redisCommand *cmd = lookupCommand(c->argv + 2, c->argc - 2);
    if (!cmd) {
        addReplyError(c, "Invalid command specified");
        return;
    }
    if (!commandHasKeys(cmd)) {
        addReplyError(c, "The command has no key arguments");
        return;
    }
    if (!commandCheckArity(cmd, c->argc - 2)) {
        addReplyError(c, "Invalid number of arguments specified for command");
        return;
    }
    keyReference *keys;
    int n = getKeysWithFlags(cmd, c->argv + 2, c->argc - 2, &keys);
    if (n <= 0) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS) addReplyArrayLen(c, 0);
        else addReplyError(c, "Invalid arguments specified for command");
        zfree(keys);
        return;
    }
    addReplyArrayLen(c, n);
    for (int i = 0; i < n; i++) {
        robj *key = c->argv[keys[i].pos + 2];
        if (!with_flags) {
            addReplyBulk(c, key);
            continue;
        }
        addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        const char *names[CMD_KEY_FLAG_COUNT];
        int nnames = keySpecFlagNames(keys[i].flags, names);
        addReplyArrayLen(c, nnames);
        for (int j = 0; j < nnames; j++) addReplyStatus(c, names[j]);
    }
    zfree(keys);
}

void commandGetkeysCommand(client *c) { getKeysSubcommand(c, 0); }

void commandGetkeysandflagsCommand(client *c) { getKeysSubcommand(c, 1); }

void commandHelpCommand(client *c) {
    const char *help[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        NULL};
    addReplyHelp(c, help);
}
