/* crc32c: CRC-32C (Castagnoli, reflected, as iSCSI and ext4 use it;
 * crc32c(0, "123456789") = 0xe3069283). The expiry spool checksums every
 * record with it: on x86-64 with SSE4.2 it is the CPU's crc32 instruction,
 * eight bytes a cycle or so, where the table-driven CRC-64 it replaced was a
 * twentieth of a mass expiry's server CPU; elsewhere a table-driven loop.
 * crc is the value a previous call returned (0 to start). */
#ifndef CORE_CRC32C_H
#define CORE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c(uint32_t crc, const void *p, size_t len);
/* The portable path alone, for the tests on CPUs that take the instruction. */
uint32_t crc32cPortable(uint32_t crc, const void *p, size_t len);

#endif
