// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for qemu-tests: loading it oopses (a NULL pointer write in
 * module init), which the kernel survives when panic_on_oops is off. Never
 * load it anywhere else.
 */
#include <linux/module.h>

static int *ramtrail_oops_target;

static int __init ramtrail_oops_init(void)
{
	pr_info("ramtrail_oops: writing through a NULL pointer\n");
	WRITE_ONCE(*ramtrail_oops_target, 1);
	return 0;
}

module_init(ramtrail_oops_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Oopses on load; for ramtrail's QEMU tests only");
