/* anet: thin wrappers over BSD sockets for the server's listeners and clients. */
#ifndef CORE_ANET_H
#define CORE_ANET_H

#include <stddef.h>
#include <sys/types.h>

struct iovec;

#define ANET_OK 0
#define ANET_ERR -1
#define ANET_ERR_LEN 256

/* Bind and listen; returns the fd or ANET_ERR with a message in err. */
int anetTcpServer(char *err, int port, const char *bindaddr, int backlog);
int anetUnixServer(char *err, const char *path, unsigned int perm, int backlog);
/* Accept; fills ip/port for TCP. Returns fd or ANET_ERR (errno EAGAIN when none). */
int anetTcpAccept(char *err, int serversock, char *ip, size_t iplen, int *port);
int anetUnixAccept(char *err, int serversock);
/* Starts a non-blocking connect; returns the fd (writable once connected) or ANET_ERR. */
/* source_addr: the local address to connect from (bind-source-addr), or NULL. */
int anetTcpNonBlockConnect(char *err, const char *host, int port, const char *source_addr);
int anetNonBlock(char *err, int fd);
int anetCloexec(int fd);
int anetEnableTcpNoDelay(char *err, int fd);
int anetKeepAlive(char *err, int fd, int interval);
/* "ip:port" of the peer or of our side. */
int anetFdToString(int fd, char *buf, size_t buflen, int peer);

/* A client socket's reads and writes, as every request makes them: -1 and
 * errno as the system calls. recv(2), without the file layer read(2) goes
 * through. */
ssize_t anetRecv(int fd, void *buf, size_t len);
/* What iov holds, in one call: send(2) for one piece (the usual reply: the
 * kernel's shortest path to a socket, as write(2) and writev(2) go through
 * the file layer first), writev(2) for more. No SIGPIPE. */
ssize_t anetWriteIov(int fd, const struct iovec *iov, int iovcnt);

#endif
