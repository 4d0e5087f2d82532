/* command: the command table (command.c) — built from commands.def's rows,
 * looked up by name (with subcommands), renamed by rename-command — and the
 * COMMAND command's replies. */
#ifndef SERVER_COMMAND_H
#define SERVER_COMMAND_H

#include "server/server.h"

/* The command table: rows of commands.def (see there), procs bound by
 * commands/table.c; proc NULL: not implemented. */
typedef struct commandDef {
    const char *name;
    redisCommandProc *proc;
    int arity;
    const char *flags;
    int first, last, step;
    const char *group;
    int nsub;
    const char *info_resp, *docs_resp;
} commandDef;
void populateCommandTable(const commandDef *defs, size_t n);
struct redisCommand *lookupCommand(robj **argv, int argc);
struct redisCommand *lookupCommandByCString(const char *name);
struct redisCommand *lookupTopCommand(const char *name, size_t len); /* any case; no subcommands */
/* rename-command: the command is found under newname from now on ("" removes
 * it). 0 with *err set (Redis's words) when oldname is unknown or newname taken. */
int commandTableRename(const char *oldname, const char *newname, const char **err);
int commandCheckArity(struct redisCommand *cmd, int argc);
/* Implemented: has a proc, or is a container with at least one implemented subcommand. */
int commandImplemented(struct redisCommand *cmd);
/* name is a command with subcommands (CONFIG, CLIENT, ...). */
int commandIsContainer(robj *name);


#endif
