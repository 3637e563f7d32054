/* Counting instructions without a PMU: callgrind's client requests dump
 * the instruction count of exactly one call of one copy, twice with
 * different iteration counts, so the call overhead cancels out. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "count.h"
#include "../common/cli.h"
#include "../common/timing.h"

static volatile uint64_t count_sink;

/* One code path for every dump, so both counts carry the same overhead. */
__attribute__((noinline)) static void count_one(const struct align_copy *c, uint64_t iters)
{
	static char desc[64];
	snprintf(desc, sizeof(desc), "pad=%u iters=%llu", c->pad, (unsigned long long)iters);
	CALLGRIND_ZERO_STATS;
	count_sink += c->fn(iters, 7);
	CALLGRIND_DUMP_STATS_AT(desc);
}

int align_count_child(void)
{
	if (!RUNNING_ON_VALGRIND)
		vmp_die("--count-instructions only makes sense under valgrind --tool=callgrind");
	for (unsigned i = 0; i < align_ncopies; i++) {
		count_one(&align_copies[i], ALIGN_COUNT_ITERS);
		count_one(&align_copies[i], 2 * ALIGN_COUNT_ITERS);
	}
	return 0;
}

int align_parse_dump(const char *text, unsigned *pad, unsigned long long *iters, unsigned long long *ir)
{
	const char *d = strstr(text, "\ndesc: Trigger: Client Request: pad=");
	const char *t = strstr(text, "\ntotals: ");
	if (!d || !t)
		return -1;
	if (sscanf(d, "\ndesc: Trigger: Client Request: pad=%u iters=%llu", pad, iters) != 2)
		return -1;
	if (sscanf(t, "\ntotals: %llu", ir) != 1)
		return -1;
	return 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

static int find_valgrind(char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (char *dir = strtok(dirs, ":"); dir; dir = strtok(NULL, ":")) {
		snprintf(out, len, "%s/valgrind", dir);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4200];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Waits for our callgrind child; kills it (by its pid, it is ours) when it
 * runs past the limit, e.g. valgrind crawling under TCG. */
static int wait_or_kill(pid_t pid, int *status, int limit_s)
{
	uint64_t deadline = vmp_now_ns() + (uint64_t)limit_s * 1000000000ull;
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		if (vmp_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return -1;
		}
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
}

int align_count_with_callgrind(double *insns, char *why, unsigned why_len)
{
	char valgrind[4096], dir[4096], out[4200], log[4200], self[4096];
	if (RUNNING_ON_VALGRIND) {
		snprintf(why, why_len, "already running under valgrind");
		return -1;
	}
	if (find_valgrind(valgrind, sizeof(valgrind)) != 0) {
		snprintf(why, why_len, "valgrind not installed (not on PATH)");
		return -1;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		snprintf(why, why_len, "cannot resolve /proc/self/exe: %s", strerror(errno));
		return -1;
	}
	self[n] = 0;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/align-callgrind-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(why, why_len, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg.out", dir);
	snprintf(log, sizeof(log), "%s/valgrind.log", dir);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execl(valgrind, valgrind, "--tool=callgrind", out, self, "--count-instructions", (char *)NULL);
		_exit(127);
	}
	int status = 0, timed_out = 0;
	if (pid > 0 && wait_or_kill(pid, &status, ALIGN_CALLGRIND_TIMEOUT_S) != 0)
		timed_out = 1;
	if (timed_out) {
		snprintf(why, why_len, "valgrind --tool=callgrind took more than %d s, stopped", ALIGN_CALLGRIND_TIMEOUT_S);
		remove_dir(dir);
		return -1;
	}
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *text = slurp(log);
		char *last = text ? strrchr(text, '\n') : NULL;
		while (last && last > text && last[1] == 0) { /* last non-empty line */
			*last = 0;
			last = strrchr(text, '\n');
		}
		snprintf(why, why_len, "valgrind --tool=callgrind failed (status %d): %s", status,
			 last ? last + 1 : "no output");
		free(text);
		remove_dir(dir);
		return -1;
	}
	unsigned long long ir[64][2] = {{0}};
	int found = 0;
	for (unsigned part = 1; part <= 2 * align_ncopies; part++) {
		char path[4300];
		unsigned pad;
		unsigned long long iters, count;
		snprintf(path, sizeof(path), "%s/cg.out.%u", dir, part);
		char *text = slurp(path);
		if (text && align_parse_dump(text, &pad, &iters, &count) == 0) {
			for (unsigned i = 0; i < align_ncopies; i++) {
				if (align_copies[i].pad != pad)
					continue;
				int slot = iters == ALIGN_COUNT_ITERS ? 0 : 1;
				ir[i][slot] = count;
				found++;
			}
		}
		free(text);
	}
	remove_dir(dir);
	if (found != (int)(2 * align_ncopies)) {
		snprintf(why, why_len, "callgrind produced %d of %u expected dumps", found, 2 * align_ncopies);
		return -1;
	}
	for (unsigned i = 0; i < align_ncopies; i++)
		insns[i] = (double)(ir[i][1] - ir[i][0]) / ALIGN_COUNT_ITERS;
	return 0;
}
