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
	t->pid = task;
	t->tgid = task;
	snprintf(t->comm, sizeof(t->comm), "task-%lu", task);
}

static u32 crc_table[256];

/* The byte table of the reflected IEEE polynomial, made before main(). */
static void __attribute__((constructor)) crc_table_init(void)
{
	u32 i, crc;
	int k;

	for (i = 0; i < 256; i++) {
		crc = i;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
		crc_table[i] = crc;
	}
}

/* CRC32 (IEEE 802.3, reflected) state update, as the kernel's crc32_le(). */
u32 ramtrail_crc32_update(u32 crc, const void *p, size_t len)
{
	const u8 *b = p;

	while (len--)
		crc = (crc >> 8) ^ crc_table[(crc ^ *b++) & 0xff];
	return crc;
}
