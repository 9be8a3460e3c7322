// SPDX-License-Identifier: GPL-2.0
/*
 * The command's one way to say what went wrong, which every other file of
 * it uses: on its own, so that none of them depends on main.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include "ramtrail.h"

/** rt_err() - say what went wrong, prefixed with the command's name */
void rt_err(const char *fmt, ...)
{
	va_list ap;

	fputs("ramtrail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
