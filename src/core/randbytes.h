/* randbytes: random bytes from the kernel's generator (getrandom(2)) for
 * what must be unguessable and differ from one process to the next: the hash
 * seed, the run and replication ids, the passwords ACL GENPASS makes. */
#ifndef CORE_RANDBYTES_H
#define CORE_RANDBYTES_H

#include <stddef.h>

/* Fills p with n random bytes: 1, or 0 when the kernel gave none. */
int getRandomBytes(unsigned char *p, size_t n);

/* n random lowercase hex digits and a NUL into dst (n + 1 bytes). Never
 * fails: where the kernel gives nothing, rand() makes the digits, which
 * still tells one process's id from the next (ids, not secrets). */
void getRandomHex(char *dst, size_t n);

#endif
