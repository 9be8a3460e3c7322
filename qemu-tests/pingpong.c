// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: the event workload of make bench (qemu-tests/bench.py builds it
 * static, for the guest). On each CPU it may run on, two processes pinned
 * to that CPU pass a byte back and forth through two pipes ROUNDS times.
 * Each waits for the other's every byte, so every byte is a wakeup and a
 * task switch, and the CPU is never idle: the scheduler's events come as
 * densely as a workload can make them. Prints the wall time of the whole
 * run in seconds; exits 1 if a process failed.
 *
 * usage: pingpong ROUNDS
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
}

/* The player who serves sends first; both then answer every byte. */
static void play(int cpu, int in, int out, long rounds, int serve)
{
	char c = 0;
	long i;

	pin(cpu);
	for (i = 0; i < rounds; i++) {
		if (serve && write(out, &c, 1) != 1)
			_exit(1);
		if (read(in, &c, 1) != 1)
			_exit(1);
		if (!serve && write(out, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Start the two players of @cpu; return how many were started. */
static int pair(int cpu, long rounds)
{
	int ping[2], pong[2], n = 0;
	pid_t pid;

	if (pipe(ping) || pipe(pong))
		return 0;
	pid = fork();
	if (pid == 0)
		play(cpu, pong[0], ping[1], rounds, 1);	/* does not return */
	n += pid > 0;
	pid = fork();
	if (pid == 0)
		play(cpu, ping[0], pong[1], rounds, 0);
	n += pid > 0;
	close(ping[0]);
	close(ping[1]);
	close(pong[0]);
	close(pong[1]);
	return n;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 10000;
	int cpu, n = 0, status, failed = 0;
	struct timespec t0, t1;
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (CPU_ISSET(cpu, &cpus)) {
			int started = pair(cpu, rounds);

			failed |= started != 2;
			n += started;
		}
	}
	while (n-- > 0 && wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.4f\n", t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failed;
}
