// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for qemu-tests (the modinit scenario): loaded after
 * ramtrail_initb was unloaded, once ramtrail's module table is full, its
 * text may lie where that module's was. Writing its poke parameter calls
 * msleep() from that text. It prints where the caller is, and can be
 * unloaded. Never load it anywhere else.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static noinline int ramtrail_late_poke(const char *val,
				       const struct kernel_param *kp)
{
	msleep(20);
	return 0;
}

static const struct kernel_param_ops ramtrail_late_ops = {
	.set = ramtrail_late_poke,
};
module_param_cb(poke, &ramtrail_late_ops, NULL, 0200);
MODULE_PARM_DESC(poke, "any value: sleep 20 ms from this module's text");

static int __init ramtrail_late_init(void)
{
	pr_info("ramtrail_late: poke at %lx\n",
		(unsigned long)ramtrail_late_poke);
	return 0;
}

static void __exit ramtrail_late_exit(void)
{
}

module_init(ramtrail_late_init);
module_exit(ramtrail_late_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sleeps from its text on request; for ramtrail's QEMU tests only");
