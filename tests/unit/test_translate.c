// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address translation (bpf/unwind_step.h, which BPF and core/model/files.c both
 * run): from a mapping's start and file offset to the bias that turns its
 * pcs into ELF addresses. First on the segment layouts linkers produce, then
 * against the kernel itself: a file mapped the way ld.so maps segments,
 * split by mprotect() and mapped twice, each byte found where the
 * translation says.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test.h"
#include "bpf/unwind_step.h"
#include "core/targets/proc_maps.h"
#include "core/targets/procfs.h"

#define PAGE 0x1000ULL

static struct unw_file file_of(const struct unw_seg *segs, __u32 nr, __u64 base)
{
	struct unw_file f = { .exec_id = 1, .nr_segs = nr, .base = base };

	for (__u32 i = 0; i < nr && i < UNW_FILE_SEGS; i++)
		f.segs[i] = segs[i];
	return f;
}

/* The ELF address of pc in a mapping at start from offset off, or -1 when none. */
static __u64 vaddr_of(const struct unw_file *f, __u64 start, __u64 off, __u64 pc, __u64 page)
{
	__u64 bias;

	if (unw_file__bias(f, start, off, page, &bias))
		return (__u64)-1;
	return pc - bias + f->base;
}

/* GNU ld: page-aligned code, the mapping from the segment's own offset. */
static void test_aligned_segment(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x1000, .offset = 0x1000, .filesz = 0x2345 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x555555555000;

	CHECK_EQ_INT(vaddr_of(&f, start, 0x1000, start + 0x10, PAGE), 0x1010);
	CHECK_EQ_INT(vaddr_of(&f, start, 0x1000, start + 0x2344, PAGE), 0x3344);
}

/*
 * lld, mold, rust-lld: the code segment starts mid-page (0x970), the kernel
 * maps it from offset 0 at the page of its address (0x1000).
 */
static void test_misaligned_segment(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x1970, .offset = 0x970, .filesz = 0xd40 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x7f0000001000;

	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, PAGE), 0x1970);
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x1000, PAGE), 0x2000);
	/* A table based elsewhere shifts its pcs, not the addresses they stand for. */
	f.base = 0x1000;
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, PAGE), 0x1970);
	/* Offsets past the segment's bytes map no segment. */
	CHECK_EQ_INT(vaddr_of(&f, start, 0x2000, start, PAGE), (__u64)-1);
}

/*
 * Two code segments sharing a file page (BOLT's second text segment after
 * the original one): the later one's mapping starts inside the earlier
 * one's bytes and still belongs to the later one.
 */
static void test_segments_sharing_a_page(void)
{
	const struct unw_seg segs[] = {
		{ .vaddr = 0x10000, .offset = 0x10000, .filesz = 0x5800 },
		{ .vaddr = 0x215800, .offset = 0x15800, .filesz = 0x3000 },
	};
	struct unw_file f = file_of(segs, 2, 0);
	__u64 a = 0x7f0000010000, b = 0x7f0000215000;

	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0x10000, PAGE), 0);
	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0x15000, PAGE), 1);
	CHECK_EQ_INT(vaddr_of(&f, a, 0x10000, a + 0x57f0, PAGE), 0x157f0);
	CHECK_EQ_INT(vaddr_of(&f, b, 0x15000, b + 0x800, PAGE), 0x215800);
	CHECK_EQ_INT(vaddr_of(&f, b, 0x15000, b + 0x2000, PAGE), 0x217000);
}

/* -z max-page-size=0x200000: addresses 2 MiB apart from offsets, mapped in 4 KiB pages. */
static void test_huge_page_alignment(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x201970, .offset = 0x970, .filesz = 0x8000 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x7f0000201000;

	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, PAGE), 0x201970);
	/* 64 KiB pages (aarch64): offsets congruent mod 64 KiB, mapped from the 64 KiB page. */
	f.segs[0].vaddr = 0x210970;
	start = 0x7f0000210000;
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x970, 0x10000), 0x210970);
	CHECK_EQ_INT(vaddr_of(&f, start, 0, start + 0x8000, 0x10000), 0x218000);
}

/* A mapping that mprotect() split starts inside its segment: same bias as the rest. */
static void test_split_mapping(void)
{
	const struct unw_seg segs[] = { { .vaddr = 0x1970, .offset = 0x970, .filesz = 0x40000 } };
	struct unw_file f = file_of(segs, 1, 0);
	__u64 start = 0x7f0000001000, bias_a = 0, bias_b = 0;

	CHECK(unw_file__bias(&f, start, 0, PAGE, &bias_a) == 0);
	CHECK(unw_file__bias(&f, start + 0x8000, 0x8000, PAGE, &bias_b) == 0);
	CHECK_EQ_INT(bias_a, bias_b);
}

/* Only UNW_FILE_SEGS segments are held; more is the caller's to cut. */
static void test_segment_count_bound(void)
{
	struct unw_seg segs[UNW_FILE_SEGS];
	struct unw_file f;

	for (int i = 0; i < UNW_FILE_SEGS; i++)
		segs[i] = (struct unw_seg){ .vaddr = 0x100000 * (i + 1),
					    .offset = 0x10000 * i,
					    .filesz = 0x1000 };
	f = file_of(segs, UNW_FILE_SEGS, 0);
	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0x10000 * (UNW_FILE_SEGS - 1), PAGE),
		     UNW_FILE_SEGS - 1);
	f.nr_segs = 0;
	CHECK_EQ_INT(unw_segs__find(f.segs, f.nr_segs, 0, PAGE), -1);
}

/* ---- against the kernel ---- */

#define FILE_PAGES 16

/* The mapping of this process holding addr, from /proc/self/maps. */
static int own_mapping(__u64 addr, __u64 *start, __u64 *off)
{
	struct procmaps *pm = procfs__read_maps(getpid());
	int found = -1;

	for (size_t i = 0; pm && i < pm->nr; i++) {
		if (pm->maps[i].start <= addr && addr < pm->maps[i].end) {
			*start = pm->maps[i].start;
			*off = pm->maps[i].offset;
			found = 0;
		}
	}
	procmaps__free(pm);
	return found;
}

/* Every 64th byte of the segment is where vaddr_of() says: the file's byte at its offset. */
static void check_bytes(const struct unw_file *f, const __u8 *map, size_t len, __u64 page)
{
	const struct unw_seg *s = &f->segs[0];
	__u64 start = 0, off = 0, bias = 0;

	CHECK(own_mapping((__u64)(uintptr_t)map + len / 2, &start, &off) == 0);
	CHECK(unw_file__bias(f, start, off, page, &bias) == 0);
	for (__u64 v = s->vaddr; v < s->vaddr + s->filesz; v += 64) {
		__u64 pc = v - f->base + bias;
		__u64 file_off = s->offset + (v - s->vaddr);

		if (pc < (__u64)(uintptr_t)map || pc >= (__u64)(uintptr_t)map + len)
			continue; /* in another piece of a split mapping */
		if (*(const __u8 *)(uintptr_t)pc != (__u8)(file_off * 7 + 3)) {
			CHECK(!"byte of the segment not where the translation puts it");
			return;
		}
	}
}

/*
 * A segment at offset 0x970, vaddr 0x1970 (lld's layout), mapped as ld.so
 * does: from the page holding its first byte. Then split by mprotect, and
 * mapped a second time elsewhere.
 */
static void test_kernel_mappings(void)
{
	__u64 page = (__u64)sysconf(_SC_PAGESIZE);
	const struct unw_seg seg = { .vaddr = page + 0x970,
				     .offset = 0x970,
				     .filesz = (FILE_PAGES - 2) * page };
	struct unw_file f = file_of(&seg, 1, 0);
	char path[] = "/tmp/unwprof-translate-XXXXXX";
	size_t len = FILE_PAGES * page;
	__u8 *buf = malloc(len), *a = MAP_FAILED, *b = MAP_FAILED;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && buf);
	if (fd < 0 || !buf)
		goto cleanup;
	for (size_t i = 0; i < len; i++)
		buf[i] = (__u8)(i * 7 + 3);
	CHECK(write(fd, buf, len) == (ssize_t)len);
	a = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	b = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	if (a == MAP_FAILED || b == MAP_FAILED)
		goto cleanup;
	check_bytes(&f, a, len, page);
	check_bytes(&f, b, len, page);
	/* Split: the part after a read-write page starts mid-segment. */
	CHECK(mprotect(a + 4 * page, page, PROT_READ | PROT_WRITE) == 0);
	check_bytes(&f, a + 5 * page, len - 5 * page, page);
	check_bytes(&f, a, 4 * page, page);
cleanup:
	if (a != MAP_FAILED)
		munmap(a, len);
	if (b != MAP_FAILED)
		munmap(b, len);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(buf);
}

int main(void)
{
	RUN(test_aligned_segment);
	RUN(test_misaligned_segment);
	RUN(test_segments_sharing_a_page);
	RUN(test_huge_page_alignment);
	RUN(test_split_mapping);
	RUN(test_segment_count_bound);
	RUN(test_kernel_mappings);
	return test_summary();
}
