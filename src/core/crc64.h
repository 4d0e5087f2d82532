/* crc64: CRC-64 with the Jones polynomial, reflected, as Redis computes it
 * for RDB files and DUMP payloads (crc64(0, "123456789") = 0xe9c6d914c4b8d9ca). */
#ifndef CORE_CRC64_H
#define CORE_CRC64_H

#include <stddef.h>
#include <stdint.h>

uint64_t crc64(uint64_t crc, const void *p, size_t len);

#endif
