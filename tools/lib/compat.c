// SPDX-License-Identifier: GPL-2.0
/* Userspace versions of the kernel helpers fs/ramtrail/compat.h names. */
#include "compat.h"

#include <stdio.h>
#include <linux/ramtrail.h>

__thread struct ramtrail_user_env ramtrail_user_env = { .task = 1 };

/* A test task: pid and tgid are its number, comm "task-<number>". */
void ramtrail_env_describe(struct ramtrail_ev_task *t)
{
	unsigned long task = ramtrail_user_env.task;

	memset(t, 0, sizeof(*t));
	t->pid = cpu_to_le32(task);
	t->tgid = cpu_to_le32(task);
	snprintf(t->comm, sizeof(t->comm), "task-%lu", task);
}

static u32 crc_table[8][256];

/*
 * The tables of the reflected IEEE polynomial, made before main(): byte n
 * of an 8-byte group in table 7 - n (slicing by 8, as lib/crc32.c).
 */
static void __attribute__((constructor)) crc_table_init(void)
{
	u32 i, crc;
	int k;

	for (i = 0; i < 256; i++) {
		crc = i;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
		crc_table[0][i] = crc;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_table[k][i] = (crc_table[k - 1][i] >> 8) ^
					  crc_table[0][crc_table[k - 1][i] & 0xff];
}

/* CRC32 (IEEE 802.3, reflected) state update, as the kernel's crc32_le(). */
u32 ramtrail_crc32_update(u32 crc, const void *p, size_t len)
{
	const u8 *b = p;
	u32 lo, hi;

	for (; len >= 8; len -= 8, b += 8) {
		memcpy(&lo, b, 4);
		memcpy(&hi, b + 4, 4);
		lo ^= crc;
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][lo >> 8 & 0xff] ^
		      crc_table[5][lo >> 16 & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][hi & 0xff] ^ crc_table[2][hi >> 8 & 0xff] ^
		      crc_table[1][hi >> 16 & 0xff] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *b++) & 0xff];
	return crc;
}
