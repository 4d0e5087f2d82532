/* config: the one table of directives. redis.conf parsing, --name value
 * overrides, CONFIG GET/SET/REWRITE and INFO all read it. */
#ifndef SERVER_CONFIG_H
#define SERVER_CONFIG_H

#include "server/server.h"

void initServerConfig(void);
/* Parses argv (config file, then --name value pairs); prints the Redis-style
 * fatal error with file, line and reason and returns C_ERR on a bad directive. */
int loadServerConfigFromArgs(int argc, char **argv);
/* Applies the settings that start threads, once the process is the one that
 * will serve (after a daemonizing fork, which threads do not survive):
 * jemalloc's background thread, which purges freed memory off the main thread. */
void configApplyThreadSettings(void);
/* Current value as CONFIG GET shows it; NULL for an unknown name. Caller frees. */
sds configGetValue(const char *name);
/* The crash report's CONFIG DEBUG OUTPUT: the settings Redis 7.0 lists
 * there (lazy freeing, replication loading, limits), a "name value" line
 * each as CONFIG REWRITE writes them. Caller frees. */
sds configDebugInfo(void);
/* Registration points for the modules that own a directive's effect (main.c
 * wires them before the config is read). An apply hook runs after the value
 * is set (from the file, the command line or CONFIG SET); 0 with *err set
 * refuses it. A T_SPECIAL directive's parser and printer may live elsewhere. */
void configSetApplyHook(const char *name, int (*apply)(const char **err));
void configSetSpecialHandlers(const char *name, int (*set)(sds *argv, int argc, int from_file, const char **err),
                              sds (*get)(void));

/* The `user` directive and the requirepass password belong to access control
 * (acl/), which registers these before the configuration is read. */
typedef struct configUserHooks {
    /* A `user` line: argv[0] is the name. 1 when accepted, else 0 and *err. */
    int (*load)(sds *argv, int argc, const char **err);
    /* CONFIG REWRITE: the users as `user` lines without the keyword; caller frees. */
    sds *(*rewrite)(int *count);
    void (*requirepass)(sds password); /* NULL: no password */
} configUserHooks;
void configRegisterUserHooks(const configUserHooks *hooks);
/* CONFIG REWRITE, answering c; force_all (DEBUG CONFIG-REWRITE-FORCE-ALL)
 * writes every directive, defaults included. */
void configRewriteReply(client *c, int force_all);
/* Reads a memory value like "1gb"; returns 0 and sets *err on failure. */
unsigned long long memtoull(const char *p, int *err);

/* The OOM score of this process (oom-score-adj): OOM_CURRENT picks master or
 * replica by role; a forked child sets OOM_BGCHILD. C_ERR when it cannot be written. */
#define OOM_MASTER 0
#define OOM_REPLICA 1
#define OOM_BGCHILD 2
#define OOM_CURRENT -1
int setOomScoreAdj(int process_class);

#endif
