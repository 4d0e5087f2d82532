/* supervise: telling a service manager how the server is doing, as Redis 7.0
 * does under `supervised upstart|systemd|auto` (supervise.c). */
#ifndef SERVER_SUPERVISE_H
#define SERVER_SUPERVISE_H

/* After the config is read, before daemonizing: resolves `auto` from the
 * environment (UPSTART_JOB, NOTIFY_SOCKET), then under upstart stops the
 * process (SIGSTOP: upstart's readiness signal), under systemd sends
 * "STATUS=Redis is loading...". Returns whether the server is supervised (a
 * supervised server does not daemonize); the mode in effect is
 * server.supervised_mode, SUPERVISED_NONE when the request failed. */
int superviseStart(void);
/* Sends one notification (newline-terminated "KEY=value" lines) to systemd's
 * $NOTIFY_SOCKET when supervised by systemd; nothing otherwise. */
void superviseNotify(const char *msg);
/* The two messages Redis sends once its data is loaded. */
void superviseReady(void);
/* INFO's process_supervised: upstart, systemd or no. */
const char *superviseModeName(void);

#endif
