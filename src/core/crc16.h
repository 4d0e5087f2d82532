/* crc16: the CRC-16/XMODEM checksum (polynomial 0x1021, initial value 0, no
 * reflection, no final xor) and the Redis Cluster hash slot built on it.
 * Every Redis Cluster node and client maps a key to the same one of 16384
 * slots this way, so the function is part of the protocol. */
#ifndef CORE_CRC16_H
#define CORE_CRC16_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_SLOTS 16384

uint16_t crc16(const char *buf, size_t len);

/* The slot of a key: CRC16 mod 16384 of the whole key, or of its hash tag,
 * the bytes between the first '{' and the first '}' after it when there is at
 * least one byte between them ("{user1}.a" hashes "user1", "a{}{b}" all of it). */
unsigned int keyHashSlot(const char *key, size_t len);

#endif
