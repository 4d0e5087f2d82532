/* lifecycle: start-up, the cron, serving clients from inside something long,
 * signals, and shutdown (lifecycle.c). */
#ifndef SERVER_LIFECYCLE_H
#define SERVER_LIFECYCLE_H

#include "server/server.h"

/* Shutdown as Redis 7.0: unless NOW (or shutdown-timeout 0), a master whose
 * replicas lag pauses writes and waits for their acknowledgement up to
 * shutdown-timeout seconds, then saves as configured and exits. C_OK: ready,
 * call exit(); C_ERR: waiting (SHUTDOWN's client stays blocked) or failed
 * (blocked clients got the error, the server goes on). */
int prepareForShutdown(int flags);
/* Serves the clients whose sockets are ready, without timers, from inside
 * something long (a slow script, a replica loading its master's snapshot):
 * they get their -BUSY or -LOADING answers, INFO, SCRIPT KILL. */
void processEventsWhileBlocked(void);
/* SHUTDOWN ABORT: C_ERR when no shutdown is under way or asked for. */
int abortShutdown(void);
/* SHUTDOWN's client waits (BLOCKED_SHUTDOWN) until the shutdown fails or exits. */
void blockClientOnShutdown(client *c);
/* Logs from a signal handler (async-signal-safe), in Redis's form. */

/* Start-up steps main.c runs, in this order around reading the config. */
void oomHandler(size_t size);
void setRandomSeedAndRunId(void);
/* Redis's start-up banner: the logo (with the PID, which test harnesses
 * wait for) when always-show-logo is set or on a terminal, else one line. */
void showStartupBanner(void);
/* Redis 7.0's start-up checks of the kernel's memory settings, logged after
 * "Server initialized": vm.overcommit_memory other than 1, and transparent
 * huge pages set to always, which this process then turns off for itself
 * (disable-thp yes, prctl PR_SET_THP_DISABLE) or warns about. */
void checkKernelMemorySettings(void);
/* The lines Redis logs once its config is read (before the banner). */
void logServerStarting(int argc, const char *argv0);
void daemonize(void);
void initServer(void);               /* the event loop, listeners, databases */
/* Config apply hooks of bind and port, which CONFIG SET may change: the TCP
 * listeners are opened again on the new address(es) or port. */
int applyBind(const char **err);
int applyPort(const char **err);
int applyTlsPort(const char **err);
int applyWatchdogPeriod(const char **err);
/* The pidfile directive's file; a daemonized server (background) writes
 * /var/run/redis.pid when none is set, as Redis 7.0. */
void createPidFile(int background);
/* The process title from proc-title-template, {title} being `title` (NULL:
 * the executable as started). C_ERR when the template does not expand. */
int serverSetProcTitle(const char *title);
/* Config apply hook of proc-title-template: refuses a template that does not
 * expand (unknown variable, unclosed brace) or expands to nothing. */
int applyProcTitleTemplate(const char **err);

#endif
