// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for qemu-tests (the modinit scenario): loaded after
 * ramtrail_inita, its text may lie where that module's init text was.
 * Writing its poke parameter calls msleep() from that text. It prints
 * where the caller is, and can be unloaded. Built with
 * RAMTRAIL_OTHER_BUILD, it is another build of the same module, of the
 * same sizes, whose functions lie elsewhere. Never load it anywhere else.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#ifdef RAMTRAIL_OTHER_BUILD
static noinline void ramtrail_initb_other(void)
{
	pr_info("ramtrail_initb: another build\n");
}
#endif

static noinline int ramtrail_initb_poke(const char *val,
					const struct kernel_param *kp)
{
#ifdef RAMTRAIL_OTHER_BUILD
	ramtrail_initb_other();
#endif
	msleep(20);
	return 0;
}

static const struct kernel_param_ops ramtrail_initb_ops = {
	.set = ramtrail_initb_poke,
};
module_param_cb(poke, &ramtrail_initb_ops, NULL, 0200);
MODULE_PARM_DESC(poke, "any value: sleep 20 ms from this module's text");

static int __init ramtrail_initb_init(void)
{
	pr_info("ramtrail_initb: poke at %lx\n",
		(unsigned long)ramtrail_initb_poke);
	return 0;
}

static void __exit ramtrail_initb_exit(void)
{
}

module_init(ramtrail_initb_init);
module_exit(ramtrail_initb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sleeps from its text on request; for ramtrail's QEMU tests only");
