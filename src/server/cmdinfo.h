/* cmdinfo: what the command table's RESP info fragment says, as data for the
 * code that must act on it: a command's ACL categories, and its keys with
 * their access flags (read, write...) found through the key specs, as Redis
 * 7.0's getKeysFromCommandWithSpecs finds them. */
#ifndef SERVER_CMDINFO_H
#define SERVER_CMDINFO_H

#include "server/server.h"

/* Key spec flags, as named in COMMAND INFO. */
#define CMD_KEY_RO (1 << 0)
#define CMD_KEY_RW (1 << 1)
#define CMD_KEY_OW (1 << 2)
#define CMD_KEY_RM (1 << 3)
#define CMD_KEY_ACCESS (1 << 4)
#define CMD_KEY_UPDATE (1 << 5)
#define CMD_KEY_INSERT (1 << 6)
#define CMD_KEY_DELETE (1 << 7)
#define CMD_KEY_NOT_KEY (1 << 8)
#define CMD_KEY_INCOMPLETE (1 << 9)
#define CMD_KEY_VARIABLE_FLAGS (1 << 10)
#define CMD_KEY_FLAG_COUNT 11
/* The names of the flags set in `flags`, in COMMAND INFO's order; returns how many. */
int keySpecFlagNames(int flags, const char *names[CMD_KEY_FLAG_COUNT]);

typedef struct keyReference {
    int pos;   /* argv index */
    int flags; /* CMD_KEY_* */
} keyReference;

#define CMDINFO_MAX_CATEGORY_LEN 24
/* Copies up to max category names (without '@') into names; returns how many. */
int commandCategoryNames(struct redisCommand *cmd, char names[][CMDINFO_MAX_CATEGORY_LEN], int max);
/* 1 when the command may name keys at all. */
int commandHasKeys(struct redisCommand *cmd);
/* 1 when the command has key specs (not-key ones too: shard channels) or a
 * key finder: what cluster mode routes by slot, as Redis 7.0. */
int commandHasKeySpecs(struct redisCommand *cmd);
/* The keys of cmd called with argv, with their flags; *keys is allocated
 * (zfree it) when the count is positive. */
int getKeysWithFlags(struct redisCommand *cmd, robj **argv, int argc, keyReference **keys);
/* The same, with the not-key arguments of key specs too (shard channels):
 * what cluster mode routes by slot, as Redis 7.0. */
int getRoutingKeys(struct redisCommand *cmd, robj **argv, int argc, keyReference **keys);

#endif
