// SPDX-License-Identifier: GPL-2.0
/*
 * The marker device, /dev/ramtrail_marker: user space writes into the
 * trace, as into ftrace's trace_marker. Each write() becomes one
 * RAMTRAIL_EV_MARKER record of up to RAMTRAIL_MARKER_MAX bytes in the
 * writing CPU's zone, with its task and context like every record; a
 * longer write records its first RAMTRAIL_MARKER_MAX bytes and returns
 * that count, so a caller that writes the rest writes the next marker.
 *
 * The bytes are copied from user space before the record path, which
 * then runs with preemption off, takes no lock and allocates nothing.
 * An open file holds a reference on the module, so no write runs past
 * the unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/uaccess.h>
#include "internal.h"

static ssize_t ramtrail_marker_write(struct file *file,
				     const char __user *buf, size_t count,
				     loff_t *ppos)
{
	struct ramtrail_context *cxt = ramtrail_cxt_published();
	size_t len = min_t(size_t, count, RAMTRAIL_MARKER_MAX);
	u8 bytes[RAMTRAIL_MARKER_MAX];
	bool ok;

	if (!len)
		return 0;
	if (!cxt)
		return -EBADF;
	if (copy_from_user(bytes, buf, len))
		return -EFAULT;
	preempt_disable_notrace();
	ok = ramtrail_ring_event_bytes(this_cpu_ptr(cxt->rings),
				       RAMTRAIL_EV_MARKER, bytes, len);
	preempt_enable_notrace();
	/* As trace_marker while ftrace's buffer is off. */
	return ok ? len : -EBADF;
}

static const struct file_operations ramtrail_marker_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.write		= ramtrail_marker_write,
};

static struct miscdevice ramtrail_marker_dev = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "ramtrail_marker",
	.fops		= &ramtrail_marker_fops,
	.mode		= 0600,
};

/**
 * ramtrail_marker_init() - create /dev/ramtrail_marker
 *
 * Once the context is published: a write before that records nothing.
 *
 * Return: 0, or -errno of misc_register().
 */
int ramtrail_marker_init(void)
{
	int err = misc_register(&ramtrail_marker_dev);

	if (err)
		pr_err("marker: cannot register /dev/ramtrail_marker: %d\n",
		       err);
	return err;
}

/**
 * ramtrail_marker_exit() - remove /dev/ramtrail_marker
 *
 * No file of it is open: each holds a reference on the module.
 */
void ramtrail_marker_exit(void)
{
	misc_deregister(&ramtrail_marker_dev);
}
