// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for qemu-tests: loading it oopses (a NULL pointer write in
 * module init), which the kernel survives when panic_on_oops is off. With
 * spin=N it instead spins N seconds in module init with preemption off, for
 * the soft-lockup watchdog (softlockup_panic=1) to panic on, and then fails
 * the load. Never load it anywhere else.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/preempt.h>

static unsigned int spin;
module_param(spin, uint, 0444);
MODULE_PARM_DESC(spin, "seconds to spin with preemption off instead of oopsing");

static int *ramtrail_oops_target;

static int __init ramtrail_oops_init(void)
{
	unsigned long end;

	if (spin) {
		pr_info("ramtrail_oops: spinning %u s with preemption off on CPU %d\n",
			spin, raw_smp_processor_id());
		end = jiffies + spin * HZ;
		preempt_disable();
		while (time_before(jiffies, end))
			cpu_relax();
		preempt_enable();
		pr_info("ramtrail_oops: spun without a soft-lockup panic\n");
		return -EAGAIN;
	}
	pr_info("ramtrail_oops: writing through a NULL pointer\n");
	WRITE_ONCE(*ramtrail_oops_target, 1);
	return 0;
}

module_init(ramtrail_oops_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Oopses (or spins) on load; for ramtrail's QEMU tests only");
