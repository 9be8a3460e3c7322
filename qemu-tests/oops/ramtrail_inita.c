// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for qemu-tests (the modinit scenario): its init calls
 * msleep(), so that a traced call has its caller in this module's init
 * text, which the kernel frees once the init has run and the next module
 * loaded may take (ramtrail_initb). It prints where its init is. Never
 * load it anywhere else.
 */
#include <linux/delay.h>
#include <linux/module.h>

static int __init ramtrail_inita_init(void)
{
	msleep(20);
	pr_info("ramtrail_inita: init at %lx\n",
		(unsigned long)ramtrail_inita_init);
	return 0;
}

module_init(ramtrail_inita_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sleeps in its init; for ramtrail's QEMU tests only");
