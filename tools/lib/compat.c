// SPDX-License-Identifier: GPL-2.0
/* Userspace versions of the kernel helpers fs/ramtrail/compat.h names. */
#include "compat.h"

/* CRC32 (IEEE 802.3, reflected) state update, as the kernel's crc32_le(). */
u32 ramtrail_crc32_update(u32 crc, const void *p, size_t len)
{
	const u8 *b = p;
	int k;

	while (len--) {
		crc ^= *b++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return crc;
}
