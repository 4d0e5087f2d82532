/* table: the command table (commands.def) with its procs linked in. main.c
 * hands it to populateCommandTable(); server/ never sees the procs' modules. */
#ifndef COMMANDS_TABLE_H
#define COMMANDS_TABLE_H

#include "server/command.h"

extern const commandDef commandTable[];
extern const size_t commandTableSize;

#endif
