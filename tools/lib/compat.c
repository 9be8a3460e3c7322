// SPDX-License-Identifier: GPL-2.0
/* Userspace versions of the kernel helpers fs/ramtrail/compat.h names. */
#include "compat.h"

/* CRC32 (IEEE 802.3, reflected), equal to the kernel's ~crc32_le(~0, ...). */
u32 ramtrail_crc32(const void *p, size_t len)
{
	const u8 *b = p;
	u32 crc = ~0U;
	int k;

	while (len--) {
		crc ^= *b++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}
