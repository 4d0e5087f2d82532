/* table: binds each row of commands.def to its proc. The procs live in
 * commands/, features/ and persist/; declaring them here by name, not
 * weakly, makes a misspelt or missing proc a link error. Rows a module does
 * not implement say NOPROC and stay NULL (an unknown command). */
#include "commands/table.h"

#include <stddef.h>

/* First pass: one declaration per proc. NOPROC rows declare a name that is
 * never defined nor used, which the linker does not mind. */
#define NOPROC unimplementedCommandProc
#define CMD(name, proc, ...) void proc(client *c);
#include "commands/commands.def"
#undef CMD
#undef NOPROC

#define NOPROC NULL
const commandDef commandTable[] = {
#define CMD(name, proc, arity, flags, first, last, step, group, nsub, info, docs) \
    {name, proc, arity, flags, first, last, step, group, nsub, info, docs},
#include "commands/commands.def"
#undef CMD
};
#undef NOPROC

const size_t commandTableSize = sizeof(commandTable) / sizeof(commandTable[0]);
