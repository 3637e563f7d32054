/* How big the fence buffers are, and why: the L3 comes from sysfs (the
 * per-CPU shared cache; getconf reports the whole socket's), capped so
 * that a small guest is not pushed into swap. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "memory.h"
#include "../common/aligned_map.h"
#include "../common/cli.h"

uint64_t fence_parse_cache_size(const char *text)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text)
		return 0;
	switch (*end) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	}
	while (*end == '\n' || *end == ' ')
		end++;
	return *end ? 0 : v;
}

uint64_t fence_pow2_floor(uint64_t x)
{
	return x ? 1ull << (63 - __builtin_clzll(x)) : 0;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok ? 0 : -1;
}

uint64_t fence_sysfs_l3(char *source, unsigned source_len)
{
	char path[128], buf[64], shared[64];
	for (int idx = 0; idx < 8; idx++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
		if (read_line(path, buf, sizeof(buf)) != 0)
			break;
		if (strcmp(buf, "3") != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
		if (read_line(path, buf, sizeof(buf)) != 0)
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", idx);
		if (read_line(path, shared, sizeof(shared)) != 0)
			snprintf(shared, sizeof(shared), "?");
		uint64_t bytes = fence_parse_cache_size(buf);
		snprintf(source, source_len, "sysfs cpu0 cache index%d, shared by cpus %s", idx, shared);
		return bytes;
	}
	snprintf(source, source_len, "no level-3 cache in /sys/devices/system/cpu/cpu0/cache");
	return 0;
}

static uint64_t meminfo_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

/* A number from a cgroup file; 0 for "max", an absent file or a v1 limit
 * of "no limit" (a page-rounded LLONG_MAX). */
static uint64_t cgroup_number(const char *dir, const char *file)
{
	char path[512], buf[64];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_line(path, buf, sizeof(buf)) != 0)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || v >= (1ull << 60))
		return 0;
	return v;
}

/* This process's cgroup path in one hierarchy of /proc/self/cgroup: the v2
 * line ("0::/path") when controller is NULL, else the v1 line naming it. */
static int own_cgroup(const char *controller, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[512];
	int found = -1;
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *ctrls = strchr(line, ':'), *p = ctrls ? strchr(ctrls + 1, ':') : NULL;
		if (!p)
			continue;
		*p++ = 0;
		ctrls++;
		int match = controller ? strstr(ctrls, controller) != NULL : *ctrls == 0;
		if (match) {
			snprintf(path, len, "%s", p);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* The room left under the tightest memory limit of this process's cgroups
 * (v2 memory.max - memory.current, v1 limit_in_bytes - usage_in_bytes),
 * looked up at the hierarchy's mount root (a container's own cgroup, in its
 * cgroup namespace) and at this process's path under it; 0 when no limit.
 * A container's /proc/meminfo is the host's: sizing from it alone asked
 * for 1 GiB inside a 1 GiB container, and the OOM killer ended the run. */
uint64_t fence_cgroup_room(void)
{
	static const struct { const char *root, *controller, *limit, *usage; } kinds[] = {
		{ "/sys/fs/cgroup", NULL, "memory.max", "memory.current" },
		{ "/sys/fs/cgroup/memory", "memory", "memory.limit_in_bytes", "memory.usage_in_bytes" },
	};
	uint64_t room = 0;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		char own[384], dirs[2][512];
		snprintf(dirs[0], sizeof(dirs[0]), "%s", kinds[k].root);
		int n = 1;
		if (own_cgroup(kinds[k].controller, own, sizeof(own)) == 0 && strcmp(own, "/") != 0)
			snprintf(dirs[n++], sizeof(dirs[1]), "%s%s", kinds[k].root, own);
		for (int d = 0; d < n; d++) {
			uint64_t limit = cgroup_number(dirs[d], kinds[k].limit);
			if (!limit)
				continue;
			uint64_t used = cgroup_number(dirs[d], kinds[k].usage);
			uint64_t left = limit > used ? limit - used : 1;
			if (!room || left < room)
				room = left;
		}
	}
	return room;
}

uint64_t fence_mem_available(const char **source)
{
	uint64_t avail = meminfo_available(), room = fence_cgroup_room();
	*source = "MemAvailable";
	if (room && (!avail || room < avail)) {
		*source = "the cgroup's room (limit - usage)";
		return room;
	}
	return avail;
}

void fence_size(struct fence_sizing *s, uint64_t l3_bytes, uint64_t mem_available, const char *mem_source)
{
	s->l3_bytes = l3_bytes;
	uint64_t base = l3_bytes ? l3_bytes : FENCE_L3_FALLBACK;
	uint64_t want = base * FENCE_LLC_MULTIPLE, cap = FENCE_CAP_BYTES;
	if (mem_available && mem_available / FENCE_CAP_MEM_DIVISOR < cap)
		cap = mem_available / FENCE_CAP_MEM_DIVISOR;
	uint64_t got = want < cap ? want : cap;
	s->llc_bytes = fence_pow2_floor(got);
	if (s->llc_bytes < (1u << 20))
		s->llc_bytes = 1u << 20;
	s->tlb_pages = FENCE_TLB_PAGES;
	while (s->tlb_pages > 64 && s->tlb_pages * 4096 > cap)
		s->tlb_pages /= 2;
	snprintf(s->cap_note, sizeof(s->cap_note), "%dx %s L3 = %llu, cap min(1 GiB, %s/%d) = %llu%s",
		 FENCE_LLC_MULTIPLE, l3_bytes ? "the" : "an assumed 32 MiB", (unsigned long long)want,
		 mem_source, FENCE_CAP_MEM_DIVISOR, (unsigned long long)cap,
		 got < want ? ", capped" : "");
}

static void *map_region(uint64_t bytes, int advice, const char *what)
{
	char why[160];
	/* Aligned, so its address bits are the same in every process
	 * (common/aligned_map.h): ASLR no longer draws its cache conflicts. */
	void *p = vmp_map_aligned(bytes, why, sizeof(why));
	if (!p)
		vmp_die("cannot map %llu bytes for the %s buffer: %s", (unsigned long long)bytes, what, why);
	/* Huge pages for the LLC buffer so its misses are cache misses, not TLB
	 * misses; 4 KiB pages for the TLB buffer so every page needs its own entry. */
	madvise(p, bytes, advice);
	return p;
}

/* Writing a line of every page gives every page its own frame (an untouched
 * page would be the shared zero page, always cached). */
static uint64_t *touched_tlb(uint64_t pages, uint64_t *x)
{
	uint64_t *tlb = map_region(pages * 4096, MADV_NOHUGEPAGE, "TLB");
	for (uint64_t pg = 0; pg < pages; pg++) {
		*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
		tlb[pg * 512 + (pg & 63) * 8] = *x;
	}
	return tlb;
}

void fence_alloc(struct fence_mem *m, const struct fence_sizing *s)
{
	uint64_t *llc = map_region(s->llc_bytes, MADV_HUGEPAGE, "LLC");
	uint64_t x = 0x243f6a8885a308d3ull;
	for (uint64_t line = 0; line < s->llc_bytes / 64; line++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		llc[line * 8] = x;
	}
	m->llc = llc;
	m->llc_lines = s->llc_bytes / 64;
	m->tlb = touched_tlb(s->tlb_pages, &x);
	m->tlb_pages = s->tlb_pages;
}

void fence_place_tlb_again(struct fence_mem *copy, const struct fence_mem *m)
{
	uint64_t x = 0x13198a2e03707344ull;
	*copy = *m;
	copy->tlb = touched_tlb(m->tlb_pages, &x);
}

void fence_free_tlb(struct fence_mem *m)
{
	munmap((void *)m->tlb, m->tlb_pages * 4096);
}

void fence_free(struct fence_mem *m)
{
	munmap((void *)m->llc, m->llc_lines * 64);
	fence_free_tlb(m);
}
