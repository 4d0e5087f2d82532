/* migrate: MIGRATE (see migrate.c). What INFO reports of it. */
#ifndef COMMANDS_MIGRATE_H
#define COMMANDS_MIGRATE_H

/* Connections to MIGRATE targets kept open for reuse (migrate_cached_sockets). */
int migrateCachedSockets(void);

#endif
