// SPDX-License-Identifier: GPL-2.0
/*
 * insection: the helper of test_module.py's preempt scenario (built static
 * for the guest). ramtrail's test build (RAMTRAIL_TEST_STRETCH) makes its
 * freeze's and thaw's sections last test_stretch_us longer and says when
 * one runs in debugfs ramtrail/test_in_section.
 *
 *   insection hog CPU MS   on CPU, SCHED_FIFO 99: every 200 us, if a
 *                          section runs, spin MS ms; it takes the CPU from
 *                          whatever it can preempt there
 *   insection crash CPU    on CPU: once a section runs, crash the kernel
 *                          (sysrq c)
 *
 * Both run until killed, or until the crash.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IN_SECTION "/sys/kernel/debug/ramtrail/test_in_section"

/* Opened anew each time: a debugfs attribute file takes no pread(). */
static int in_section(void)
{
	int fd = open(IN_SECTION, O_RDONLY);
	char c = '0';

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int spin_in_sections(double ms)
{
	struct sched_param sp = { .sched_priority = 99 };
	struct timespec nap = { 0, 200000 };
	double t0;

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("insection: SCHED_FIFO");
		return 1;
	}
	printf("insection: hog ready\n");
	fflush(stdout);
	for (;;) {
		nanosleep(&nap, NULL);
		if (!in_section())
			continue;
		for (t0 = now_ms(); now_ms() - t0 < ms;)
			;
	}
}

static int crash_in_section(void)
{
	int sysrq = open("/proc/sysrq-trigger", O_WRONLY);

	if (sysrq < 0) {
		perror("insection: /proc/sysrq-trigger");
		return 1;
	}
	printf("insection: crasher ready\n");
	fflush(stdout);
	while (!in_section())
		;
	return write(sysrq, "c", 1) == 1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	cpu_set_t cpus;

	if (argc < 3 || access(IN_SECTION, R_OK) ||
	    (!strcmp(argv[1], "hog") && argc < 4)) {
		fprintf(stderr, "usage: insection hog CPU MS | crash CPU (needs %s)\n",
			IN_SECTION);
		return 1;
	}
	CPU_ZERO(&cpus);
	CPU_SET(atoi(argv[2]), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("insection: CPU");
		return 1;
	}
	if (!strcmp(argv[1], "hog"))
		return spin_in_sections(atof(argv[3]));
	return crash_in_section();
}
