// SPDX-License-Identifier: GPL-2.0-only
/*
 * ELF reading (core/elf/elf_file.c): a tiny ELF64 file is put together byte by
 * byte here (ELF header, a PT_LOAD and a PT_NOTE, a build-ID note,
 * .gnu_debuglink, a zlib-compressed .debug_frame, the section name table),
 * then damaged in the ways a truncated or hostile file is, each of which must
 * be a clean error.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "core/elf/elf_file.h"
#include "core/util/log.h"
#include "test.h"

#define FX_MAX 4096

static const uint8_t fx_id[20] = { 0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
				   7,	 8,    9,    10,   11, 12, 13, 14, 15, 16 };
static const char fx_frame[] = "pretend this is .debug_frame, repeated repeated repeated";

struct fx_opts {
	bool no_build_id;
	bool no_debuglink;
	uint16_t machine;
};

struct fx_layout {
	size_t size;
	size_t shoff;
	size_t shstrtab_off, shstrtab_size;
	size_t frame_shdr; /* offset of .debug_frame's section header */
	size_t chdr_off;   /* offset of its Elf64_Chdr */
};

enum { FX_NULL, FX_NOTE, FX_LINK, FX_FRAME, FX_SHSTRTAB, FX_NSEC };

static const char fx_names[] = "\0.note.gnu.build-id\0.gnu_debuglink\0.debug_frame\0.shstrtab";
#define FX_NAME_NOTE 1
#define FX_NAME_LINK 20
#define FX_NAME_FRAME 35
#define FX_NAME_SHSTRTAB 48

static size_t fx_align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static void fx_shdr(uint8_t *buf, size_t shoff, int idx, uint32_t name, uint32_t type,
		    uint64_t flags, size_t off, size_t size)
{
	Elf64_Shdr sh = {
		.sh_name = name,
		.sh_type = type,
		.sh_flags = flags,
		.sh_offset = off,
		.sh_size = size,
		.sh_addralign = type == SHT_NOTE ? 4 : 1,
	};

	memcpy(buf + shoff + idx * sizeof(sh), &sh, sizeof(sh));
}

/* Writes the fixture into buf; returns its layout. */
static struct fx_layout fx_build(uint8_t *buf, const struct fx_opts *o)
{
	struct fx_layout l = {};
	Elf64_Ehdr eh = {};
	Elf64_Phdr ph[2] = {};
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = sizeof(fx_id), .n_type = NT_GNU_BUILD_ID };
	Elf64_Chdr ch = { .ch_type = ELFCOMPRESS_ZLIB,
			  .ch_size = sizeof(fx_frame),
			  .ch_addralign = 8 };
	uLongf zlen = FX_MAX / 2;
	size_t off, note_off, note_size, link_off, link_size = 0;
	uint32_t crc = 0x12345678;

	memset(buf, 0, FX_MAX);
	off = sizeof(eh) + sizeof(ph);

	note_off = off;
	memcpy(buf + off, &nh, sizeof(nh));
	memcpy(buf + off + sizeof(nh), "GNU", 4);
	memcpy(buf + off + sizeof(nh) + 4, fx_id, sizeof(fx_id));
	note_size = sizeof(nh) + 4 + sizeof(fx_id);
	off += note_size;

	link_off = off;
	if (!o->no_debuglink) {
		memcpy(buf + off, "fx.debug", 9); /* 9 bytes, padded to 12 */
		memcpy(buf + off + 12, &crc, 4);
		link_size = 16;
		off += link_size;
	}

	off = fx_align(off, 8);
	l.chdr_off = off;
	memcpy(buf + off, &ch, sizeof(ch));
	compress2(buf + off + sizeof(ch), &zlen, (const Bytef *)fx_frame, sizeof(fx_frame), 9);
	size_t frame_off = off, frame_size = sizeof(ch) + zlen;
	off += frame_size;

	l.shstrtab_off = off;
	l.shstrtab_size = sizeof(fx_names);
	memcpy(buf + off, fx_names, sizeof(fx_names));
	off += sizeof(fx_names);

	l.shoff = fx_align(off, 8);
	fx_shdr(buf, l.shoff, FX_NULL, 0, SHT_NULL, 0, 0, 0);
	fx_shdr(buf, l.shoff, FX_NOTE, FX_NAME_NOTE, o->no_build_id ? SHT_PROGBITS : SHT_NOTE, 0,
		note_off, note_size);
	fx_shdr(buf, l.shoff, FX_LINK, o->no_debuglink ? 0 : FX_NAME_LINK, SHT_PROGBITS, 0,
		link_off, link_size);
	fx_shdr(buf, l.shoff, FX_FRAME, FX_NAME_FRAME, SHT_PROGBITS, SHF_COMPRESSED, frame_off,
		frame_size);
	fx_shdr(buf, l.shoff, FX_SHSTRTAB, FX_NAME_SHSTRTAB, SHT_STRTAB, 0, l.shstrtab_off,
		l.shstrtab_size);
	l.frame_shdr = l.shoff + FX_FRAME * sizeof(Elf64_Shdr);
	l.size = l.shoff + FX_NSEC * sizeof(Elf64_Shdr);

	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD,
			      .p_flags = PF_R | PF_X,
			      .p_offset = 0,
			      .p_vaddr = 0x400000,
			      .p_filesz = l.size,
			      .p_memsz = l.size,
			      .p_align = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = o->no_build_id ? PT_NULL : PT_NOTE,
			      .p_flags = PF_R,
			      .p_offset = note_off,
			      .p_vaddr = 0x400000 + note_off,
			      .p_filesz = note_size,
			      .p_memsz = note_size,
			      .p_align = 4 };
	memcpy(buf + sizeof(eh), ph, sizeof(ph));

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = o->machine ? o->machine : EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = l.shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = FX_NSEC;
	eh.e_shstrndx = FX_SHSTRTAB;
	memcpy(buf, &eh, sizeof(eh));
	return l;
}

static char tmpdir[] = "/tmp/unwprof-test-elf-XXXXXX";

static const char *write_file(const char *name, const void *data, size_t size)
{
	return test_write_file(tmpdir, name, data, size);
}

/* Opening the file must fail with errno err. */
static void expect_open_error(const char *name, const void *data, size_t size, int err)
{
	const char *path = write_file(name, data, size);
	struct elf_file *ef = elf_file__open(path);

	CHECK(ef == NULL);
	if (ef) {
		fprintf(stderr, "  %s opened\n", name);
		elf_file__free(ef);
		return;
	}
	CHECK_EQ_INT(errno, err);
}

static void test_good_file(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	struct elf_load_segment segs[4];
	uint8_t id[ELF_BUILD_ID_MAX];
	struct elf_section sec;
	struct elf_file *ef;
	const char *link;
	uint32_t crc = 0;

	ef = elf_file__open(write_file("good", buf, l.size));
	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_EQ_INT(elf_file__machine(ef), EM_X86_64);
	CHECK_EQ_INT(elf_file__type(ef), ET_DYN);
	CHECK_EQ_INT(elf_file__build_id(ef, id), sizeof(fx_id));
	CHECK(memcmp(id, fx_id, sizeof(fx_id)) == 0);
	link = elf_file__debuglink(ef, &crc);
	CHECK_EQ_STR(link, "fx.debug");
	CHECK_EQ_INT(crc, 0x12345678);
	CHECK_EQ_INT(elf_file__load_segments(ef, segs, 4), 1);
	CHECK_EQ_INT(segs[0].vaddr, 0x400000);
	CHECK_EQ_INT(segs[0].flags, PF_R | PF_X);
	CHECK_EQ_INT(elf_file__section(ef, ".debug_frame", &sec), 0);
	CHECK_EQ_INT(sec.size, sizeof(fx_frame));
	CHECK(sec.size == sizeof(fx_frame) && memcmp(sec.data, fx_frame, sec.size) == 0);
	/* The second lookup is served from the kept decompressed copy. */
	CHECK_EQ_INT(elf_file__section(ef, ".debug_frame", &sec), 0);
	CHECK(sec.size == sizeof(fx_frame) && memcmp(sec.data, fx_frame, sec.size) == 0);
	CHECK_EQ_INT(elf_file__section(ef, ".eh_frame", &sec), -ENOENT);
	CHECK_EQ_INT(elf_file__crc32(ef), crc32(0, buf, l.size));
	elf_file__free(ef);
}

static void test_build_id_from_section_only(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	uint8_t id[ELF_BUILD_ID_MAX];
	Elf64_Ehdr eh;
	struct elf_file *ef;

	/* Like a separate debug file: notes as sections, no program headers. */
	memcpy(&eh, buf, sizeof(eh));
	eh.e_phoff = 0;
	eh.e_phnum = 0;
	memcpy(buf, &eh, sizeof(eh));
	ef = elf_file__open_mem(buf, l.size, "mem");
	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_EQ_INT(elf_file__build_id(ef, id), sizeof(fx_id));
	CHECK_EQ_INT(elf_file__load_segments(ef, NULL, 0), 0);
	elf_file__free(ef);
}

static void test_no_build_id_no_link(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l =
		fx_build(buf, &(struct fx_opts){ .no_build_id = true, .no_debuglink = true });
	uint8_t id[ELF_BUILD_ID_MAX];
	struct elf_file *ef;

	ef = elf_file__open_mem(buf, l.size, "mem");
	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_EQ_INT(elf_file__build_id(ef, id), 0);
	CHECK(elf_file__debuglink(ef, NULL) == NULL);
	elf_file__free(ef);
}

/* A buffer at an odd address: nothing may assume the image is aligned (UBSan checks). */
static void test_unaligned_buffer(void)
{
	static uint8_t buf[FX_MAX], shifted[FX_MAX + 1];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	uint8_t id[ELF_BUILD_ID_MAX];
	struct elf_section sec;
	struct elf_file *ef;

	memcpy(shifted + 1, buf, l.size);
	ef = elf_file__open_mem(shifted + 1, l.size, "unaligned");
	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_EQ_INT(elf_file__build_id(ef, id), sizeof(fx_id));
	CHECK_EQ_STR(elf_file__debuglink(ef, NULL), "fx.debug");
	CHECK_EQ_INT(elf_file__section(ef, ".debug_frame", &sec), 0);
	elf_file__free(ef);
}

static void test_aarch64(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){ .machine = EM_AARCH64 });
	struct elf_file *ef = elf_file__open_mem(buf, l.size, "mem");

	CHECK(ef != NULL);
	if (ef)
		CHECK_EQ_INT(elf_file__machine(ef), EM_AARCH64);
	elf_file__free(ef);
}

static void test_missing_and_directory(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/does-not-exist", tmpdir);
	CHECK(elf_file__open(path) == NULL);
	CHECK_EQ_INT(errno, ENOENT);
	CHECK(elf_file__open(tmpdir) == NULL);
	CHECK_EQ_INT(errno, EISDIR);
}

/* An open fd: read through it (the path may be gone), and messages use the name given. */
static void test_open_fd(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	const char *path = write_file("by-fd", buf, l.size);
	uint8_t id[ELF_BUILD_ID_MAX];
	struct elf_file *ef;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK_EQ_INT(unlink(path), 0);
	ef = elf_file__open_fd(fd, "/usr/lib/libfx.so", 0);
	close(fd);
	CHECK(ef != NULL);
	if (ef) {
		CHECK_EQ_STR(elf_file__path(ef), "/usr/lib/libfx.so");
		CHECK_EQ_INT(elf_file__build_id(ef, id), sizeof(fx_id));
		elf_file__free(ef);
	}
	fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(elf_file__open_fd(fd, "a directory", ELF_OPEN_QUIET) == NULL);
	CHECK_EQ_INT(errno, EISDIR);
	close(fd);
	CHECK(elf_file__open_fd(-1, "no fd", ELF_OPEN_QUIET) == NULL);
	CHECK_EQ_INT(errno, EBADF);
}

static void test_not_elf(void)
{
	static const char text[] = "#!/bin/sh\necho this is not ELF\n";

	expect_open_error("text", text, sizeof(text) - 1, ENOEXEC);
	expect_open_error("empty", "", 0, ENOEXEC);
	expect_open_error("short", "\177EL", 3, ENOEXEC);
}

static void test_elf32_and_machine(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});

	buf[EI_CLASS] = ELFCLASS32;
	expect_open_error("elf32", buf, l.size, ENOTSUP);
	/* A 32-bit header alone, shorter than an ELF64 header. */
	expect_open_error("elf32-short", buf, 52, ENOTSUP);

	l = fx_build(buf, &(struct fx_opts){ .machine = EM_386 });
	expect_open_error("i386", buf, l.size, ENOTSUP);
	l = fx_build(buf, &(struct fx_opts){});
	buf[EI_DATA] = ELFDATA2MSB;
	expect_open_error("big-endian", buf, l.size, ENOTSUP);
}

static void test_truncated(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	Elf64_Ehdr eh;

	/* Inside the ELF header. */
	expect_open_error("trunc-header", buf, 40, EINVAL);
	/* The section header table cut in the middle. */
	expect_open_error("trunc-shdrs", buf, l.shoff + sizeof(Elf64_Shdr) + 10, EINVAL);
	/* Section headers start past the end. */
	expect_open_error("trunc-all-shdrs", buf, l.shoff - 8, EINVAL);
	/* Program headers past the end. */
	memcpy(&eh, buf, sizeof(eh));
	eh.e_phoff = l.size - sizeof(Elf64_Phdr);
	memcpy(buf, &eh, sizeof(eh));
	expect_open_error("trunc-phdrs", buf, l.size, EINVAL);
}

static void test_section_past_end(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	Elf64_Shdr sh;

	memcpy(&sh, buf + l.frame_shdr, sizeof(sh));
	sh.sh_offset = 0x7fffffffffffff00ULL;
	memcpy(buf + l.frame_shdr, &sh, sizeof(sh));
	expect_open_error("section-past-end", buf, l.size, EINVAL);

	l = fx_build(buf, &(struct fx_opts){});
	memcpy(&sh, buf + l.frame_shdr, sizeof(sh));
	sh.sh_size = ~0ULL; /* offset + size wraps around */
	memcpy(buf + l.frame_shdr, &sh, sizeof(sh));
	expect_open_error("section-size-wraps", buf, l.size, EINVAL);
}

static void test_bad_string_table(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	Elf64_Ehdr eh;

	/* Not NUL-terminated. */
	buf[l.shstrtab_off + l.shstrtab_size - 1] = 'x';
	expect_open_error("strtab-unterminated", buf, l.size, EINVAL);

	/* Index out of range. */
	l = fx_build(buf, &(struct fx_opts){});
	memcpy(&eh, buf, sizeof(eh));
	eh.e_shstrndx = 40;
	memcpy(buf, &eh, sizeof(eh));
	expect_open_error("strtab-index", buf, l.size, EINVAL);

	/* Pointing at a section that is not a string table. */
	l = fx_build(buf, &(struct fx_opts){});
	memcpy(&eh, buf, sizeof(eh));
	eh.e_shstrndx = FX_FRAME;
	memcpy(buf, &eh, sizeof(eh));
	expect_open_error("strtab-type", buf, l.size, EINVAL);
}

/*
 * Sets the type and size in the compressed section's header (0: keep). Not
 * inlined: gcc 12 with ASan misjudges the offset otherwise (-Warray-bounds).
 */
static __attribute__((noinline)) void fx_patch_chdr(uint8_t *buf, const struct fx_layout *l,
						    uint32_t type, uint64_t size)
{
	Elf64_Chdr ch;

	memcpy(&ch, buf + l->chdr_off, sizeof(ch));
	if (type)
		ch.ch_type = type;
	if (size)
		ch.ch_size = size;
	memcpy(buf + l->chdr_off, &ch, sizeof(ch));
}

/* Opening works, reading the compressed .debug_frame fails with err. */
static void expect_section_error(const uint8_t *buf, size_t size, const char *name, int err)
{
	struct elf_section sec;
	struct elf_file *ef;

	ef = elf_file__open_mem(buf, size, name);
	CHECK(ef != NULL);
	if (ef)
		CHECK_EQ_INT(elf_file__section(ef, ".debug_frame", &sec), err);
	elf_file__free(ef);
}

static void test_bad_compression(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});

	/* An absurd uncompressed size must be refused before allocating it. */
	fx_patch_chdr(buf, &l, 0, 1ULL << 40);
	expect_section_error(buf, l.size, "mem-huge", -EINVAL);

	/* A size that does not match the stream. */
	fx_patch_chdr(buf, &l, 0, sizeof(fx_frame) + 1);
	expect_section_error(buf, l.size, "mem-size", -EINVAL);

	/* Corrupt deflate data. */
	l = fx_build(buf, &(struct fx_opts){});
	memset(buf + l.chdr_off + sizeof(Elf64_Chdr), 0xff, 8);
	expect_section_error(buf, l.size, "mem-corrupt", -EINVAL);

	/* An unknown compression type. */
	l = fx_build(buf, &(struct fx_opts){});
	fx_patch_chdr(buf, &l, 77, 0);
	expect_section_error(buf, l.size, "mem-type", -ENOTSUP);
}

/* Every prefix of a valid file opens or fails cleanly (run under ASan in CI). */
static void test_every_prefix(void)
{
	static uint8_t buf[FX_MAX];
	struct fx_layout l = fx_build(buf, &(struct fx_opts){});
	int opened = 0;

	log_level = -1;
	for (size_t n = 0; n <= l.size; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		struct elf_file *ef;

		memcpy(copy, buf, n);
		ef = elf_file__open_mem(copy, n, "prefix");
		if (ef) {
			struct elf_section sec;

			elf_file__section(ef, ".debug_frame", &sec);
			opened++;
		}
		elf_file__free(ef);
		free(copy);
	}
	log_level = 0;
	/* Only the whole file is complete. */
	CHECK_EQ_INT(opened, 1);
}

static void test_debug_matches(void)
{
	static uint8_t a[FX_MAX], b[FX_MAX];
	struct fx_layout la = fx_build(a, &(struct fx_opts){});
	struct fx_layout lb = fx_build(b, &(struct fx_opts){ .no_debuglink = true });
	struct elf_file *ea, *eb;

	ea = elf_file__open_mem(a, la.size, "a");
	eb = elf_file__open_mem(b, lb.size, "b");
	CHECK(ea && eb);
	if (ea && eb)
		CHECK(elf_file__debug_matches(ea, eb));
	elf_file__free(eb);

	/* Another build ID. */
	b[sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr) + sizeof(Elf64_Nhdr) + 4] ^= 0xff;
	eb = elf_file__open_mem(b, lb.size, "b");
	CHECK(eb != NULL);
	if (ea && eb)
		CHECK(!elf_file__debug_matches(ea, eb));
	elf_file__free(eb);
	elf_file__free(ea);
}

/* The whole file at path in a malloc()ed buffer, or NULL. */
static uint8_t *read_whole(const char *path, size_t *size)
{
	uint8_t *buf = NULL, *grown;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n > 0)
			len += n;
	} while (n > 0);
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*size = len;
	return buf;
}

/* Section names of a trusted ELF64 image (this test's own binary). */
static size_t image_section_names(const uint8_t *img, const char **names, size_t max)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strtab;
	size_t n = 0;

	memcpy(&eh, img, sizeof(eh));
	if (!eh.e_shoff || eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= eh.e_shnum)
		return 0;
	memcpy(&strtab, img + eh.e_shoff + eh.e_shstrndx * sizeof(sh), sizeof(sh));
	for (size_t i = 1; i < eh.e_shnum && n < max; i++) {
		memcpy(&sh, img + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		names[n++] = (const char *)img + strtab.sh_offset + sh.sh_name;
	}
	return n;
}

/* Where sums nobody checks go, so that the reads happen. */
static volatile uint64_t sum_sink;

static uint64_t sum_bytes(const uint8_t *p, size_t n)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i];
	return sum;
}

#define TRUNC_SECTIONS_MAX 256
#define TRUNC_SIZE 4096

/*
 * A file truncated under an open elf_file (its owner rewrote it): every read
 * past the new end gives zeros, the process lives, and the file is flagged.
 * The pointers to sections are taken before the truncation, as the
 * symbolizer takes .symtab at open and reads it much later.
 */
static void check_truncated_copy(const uint8_t *orig, size_t size, const char *path)
{
	const char *names[TRUNC_SECTIONS_MAX];
	struct elf_section secs[TRUNC_SECTIONS_MAX];
	int found[TRUNC_SECTIONS_MAX];
	size_t nr = image_section_names(orig, names, TRUNC_SECTIONS_MAX), img_size;
	uint8_t *zeroed = calloc(1, size);
	const uint8_t *img;
	struct elf_file *ef;
	char msg[1024];
	int fd;

	ef = elf_file__open(path);
	CHECK(ef != NULL && zeroed != NULL && nr > 0);
	if (!ef || !zeroed)
		goto out;
	img = elf_file__image(ef, &img_size);
	for (size_t i = 0; i < nr; i++)
		found[i] = elf_file__section(ef, names[i], &secs[i]);
	CHECK(!elf_file__truncated(ef));

	fd = open(path, O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0 && ftruncate(fd, TRUNC_SIZE) == 0);
	if (fd >= 0)
		close(fd);
	/* What the elf_file must read now: the first page as it was, zeros after it. */
	memcpy(zeroed, orig, TRUNC_SIZE);

	for (size_t i = 0; i < nr; i++) {
		const uint8_t *p = secs[i].data;
		uint64_t sum;

		if (found[i])
			continue;
		sum = sum_bytes(p, secs[i].size);
		/* Not for a decompressed copy, which lives outside the image. */
		if (p >= img && p < img + img_size)
			CHECK_EQ_INT(sum, sum_bytes(zeroed + (p - img), secs[i].size));
	}
	/* Looked up again: libelf may read the section headers from the image too. */
	for (size_t i = 0; i < nr; i++) {
		struct elf_section sec;

		if (elf_file__section(ef, names[i], &sec) == 0)
			sum_sink += sum_bytes(sec.data, sec.size);
	}
	CHECK_EQ_INT(elf_file__crc32(ef), crc32(0, zeroed, size));
	CHECK(elf_file__truncated(ef));

	/* Reported once, when the file is let go. */
	fflush(stderr);
	fd = open(tmpdir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	msg[0] = '\0';
	if (fd >= 0) {
		int saved = dup(STDERR_FILENO);
		ssize_t n;

		dup2(fd, STDERR_FILENO);
		elf_file__free(ef);
		ef = NULL;
		fflush(stderr);
		dup2(saved, STDERR_FILENO);
		close(saved);
		n = pread(fd, msg, sizeof(msg) - 1, 0);
		msg[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	CHECK(strstr(msg, "changed while being read") != NULL);
	CHECK(strstr(msg, path) != NULL);
out:
	elf_file__free(ef);
	free(zeroed);
}

/* The same copy left alone reads exactly as the file and is not flagged. */
static void check_untouched_copy(const uint8_t *orig, size_t size, const char *path)
{
	const char *names[TRUNC_SECTIONS_MAX];
	size_t nr = image_section_names(orig, names, TRUNC_SECTIONS_MAX);
	struct elf_file *ef = elf_file__open(path);

	CHECK(ef != NULL);
	if (!ef)
		return;
	for (size_t i = 0; i < nr; i++) {
		struct elf_section sec;

		if (elf_file__section(ef, names[i], &sec) == 0)
			sum_sink += sum_bytes(sec.data, sec.size);
	}
	CHECK_EQ_INT(elf_file__crc32(ef), crc32(0, orig, size));
	CHECK(!elf_file__truncated(ef));
	elf_file__free(ef);
}

static void test_truncated_while_mapped(void)
{
	size_t size = 0;
	uint8_t *orig = read_whole("/proc/self/exe", &size);
	char truncated[300], untouched[300];
	struct elf_section sec;
	struct elf_file *self;

	CHECK(orig != NULL && size > 4 * TRUNC_SIZE);
	if (!orig || size <= 4 * TRUNC_SIZE) {
		free(orig);
		return;
	}
	/* What the reads go through: symbols and call-frame information. */
	self = elf_file__open_mem(orig, size, "self");
	CHECK(self != NULL);
	if (self) {
		CHECK_EQ_INT(elf_file__section(self, ".symtab", &sec), 0);
		CHECK_EQ_INT(elf_file__section(self, ".eh_frame", &sec), 0);
		elf_file__free(self);
	}
	snprintf(truncated, sizeof(truncated), "%s", write_file("self-truncated", orig, size));
	snprintf(untouched, sizeof(untouched), "%s", write_file("self-untouched", orig, size));
	check_truncated_copy(orig, size, truncated);
	check_untouched_copy(orig, size, untouched);
	free(orig);
}

enum { CHILD_SURVIVED = 0, CHILD_SETUP_FAILED = 3 };

/* In a child: a SIGBUS that no elf_file caused, from a touch past the end of a file or from kill(). */
static void child_foreign_sigbus(bool by_kill)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[300];
	volatile const char *p;
	void *map;
	int fd;

	/* No core file from the expected crash, no sanitizer report in the test log. */
	prctl(PR_SET_DUMPABLE, 0);
	fd = open("/dev/null", O_WRONLY);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	if (by_kill) {
		kill(getpid(), SIGBUS);
		_exit(CHILD_SURVIVED);
	}
	snprintf(path, sizeof(path), "%s/foreign-%d", tmpdir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 2 * page) < 0)
		_exit(CHILD_SETUP_FAILED);
	map = mmap(NULL, 2 * page, PROT_READ, MAP_SHARED, fd, 0);
	unlink(path);
	if (map == MAP_FAILED || ftruncate(fd, 0) < 0)
		_exit(CHILD_SETUP_FAILED);
	p = map;
	(void)p[page];
	_exit(CHILD_SURVIVED);
}

/* How a child doing child_foreign_sigbus() ended, as waitpid() says. */
static int foreign_sigbus_status(bool by_kill)
{
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		child_foreign_sigbus(by_kill);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Before any file is mapped, so before unwprof's handler is installed. */
static struct sigaction baseline_action;
static int baseline_fault_status, baseline_kill_status;

/*
 * With the handler installed and a file registered, a SIGBUS it did not
 * cause ends the process exactly as without it: killed by SIGBUS, or under
 * ASan by ASan's own SIGBUS report (the handler chains to it).
 */
static void test_foreign_sigbus_kills(void)
{
	struct elf_file *ef = elf_file__open("/proc/self/exe");
	struct sigaction now;
	int status;

	CHECK(ef != NULL);
	sigaction(SIGBUS, NULL, &now);
	CHECK(now.sa_handler != baseline_action.sa_handler);
	status = foreign_sigbus_status(false);
	CHECK_EQ_INT(status, baseline_fault_status);
	CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
	      (WIFEXITED(status) && WEXITSTATUS(status) != CHILD_SURVIVED &&
	       WEXITSTATUS(status) != CHILD_SETUP_FAILED));
	status = foreign_sigbus_status(true);
	CHECK_EQ_INT(status, baseline_kill_status);
	CHECK(!WIFEXITED(status) || WEXITSTATUS(status) != CHILD_SURVIVED);
	if (ef)
		CHECK(!elf_file__truncated(ef));
	elf_file__free(ef);
}

/*
 * The dynamic symbols of libc, looked up through .gnu.hash, against
 * readelf's listing of .dynsym: for every defined function and object, the
 * value of the first symbol of its name and type in the table. Then the
 * same with the hash table broken, which is scanned instead.
 */
#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#define SYMS_MAX 4096

struct expected_sym {
	char name[128];
	unsigned char type;
	uint64_t value;
};

/* The first defined FUNC or OBJECT of each name in readelf --dyn-syms' listing of path. */
static size_t readelf_dynsyms(const char *path, struct expected_sym *out, size_t max)
{
	char cmd[512], line[512];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --dyn-syms -W '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p) && n < max) {
		char type[16], bind[16], vis[16], ndx[16], name[256], *at;
		unsigned long long value;
		unsigned num, size;
		bool seen = false;

		if (sscanf(line, " %u: %llx %u %15s %15s %15s %15s %255s", &num, &value, &size,
			   type, bind, vis, ndx, name) != 8 ||
		    !strcmp(ndx, "UND") || (strcmp(type, "FUNC") && strcmp(type, "OBJECT")))
			continue;
		at = strchr(name, '@');
		if (at)
			*at = '\0';
		if (strlen(name) >= sizeof(out[0].name))
			continue;
		for (size_t i = 0; i < n && !seen; i++)
			seen = out[i].type == (strcmp(type, "FUNC") ? STT_OBJECT : STT_FUNC) &&
			       !strcmp(out[i].name, name);
		if (seen)
			continue;
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		out[n].type = strcmp(type, "FUNC") ? STT_OBJECT : STT_FUNC;
		out[n].value = value;
		n++;
	}
	pclose(p);
	return n;
}

/* How many of exp's symbols ef finds with another value, or not at all. */
static size_t dynsym_mismatches(const struct elf_file *ef, const struct expected_sym *exp, size_t n)
{
	struct elf_symbol_query q[2];
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		q[0] = (struct elf_symbol_query){ .name = exp[i].name, .type = exp[i].type };
		q[1] = (struct elf_symbol_query){ .name = "no_such_symbol_in_libc",
						  .type = STT_FUNC };
		CHECK_EQ_INT(elf_file__find_symbols(ef, q, 2), 0);
		bad += !q[0].found || q[0].value != exp[i].value || q[1].found;
	}
	return bad;
}

static void test_dynamic_symbols_hashed(void)
{
	struct expected_sym *exp = calloc(SYMS_MAX, sizeof(*exp));
	struct elf_file *ef = elf_file__open(LIBC_PATH), *broken = NULL;
	struct elf_section hs;
	uint8_t *copy = NULL;
	size_t n, size = 0;
	FILE *f;

	if (access(LIBC_PATH, R_OK)) {
		SKIP("no " LIBC_PATH " here");
		goto cleanup;
	}
	CHECK(exp && ef);
	if (!exp || !ef)
		goto cleanup;
	n = readelf_dynsyms(LIBC_PATH, exp, SYMS_MAX);
	CHECK(n > 1000);
	CHECK(elf_file__section(ef, ".gnu.hash", &hs) == 0);
	CHECK_EQ_INT(dynsym_mismatches(ef, exp, n), 0);

	/* No buckets: not a table to trust, the names are scanned. */
	f = fopen(LIBC_PATH, "rb");
	CHECK(f && fseek(f, 0, SEEK_END) == 0);
	if (!f)
		goto cleanup;
	size = (size_t)ftell(f);
	copy = malloc(size);
	rewind(f);
	CHECK(copy && fread(copy, 1, size, f) == size);
	fclose(f);
	if (!copy)
		goto cleanup;
	memset(copy + hs.offset, 0, 4);
	broken = elf_file__open_mem(copy, size, "broken-hash");
	CHECK(broken != NULL);
	if (broken)
		CHECK_EQ_INT(dynsym_mismatches(broken, exp, n < 300 ? n : 300), 0);
cleanup:
	elf_file__free(broken);
	elf_file__free(ef);
	free(copy);
	free(exp);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	sigaction(SIGBUS, NULL, &baseline_action);
	baseline_fault_status = foreign_sigbus_status(false);
	baseline_kill_status = foreign_sigbus_status(true);
	RUN(test_good_file);
	RUN(test_build_id_from_section_only);
	RUN(test_no_build_id_no_link);
	RUN(test_unaligned_buffer);
	RUN(test_aarch64);
	RUN(test_missing_and_directory);
	RUN(test_open_fd);
	RUN(test_not_elf);
	RUN(test_elf32_and_machine);
	RUN(test_truncated);
	RUN(test_section_past_end);
	RUN(test_bad_string_table);
	RUN(test_bad_compression);
	RUN(test_every_prefix);
	RUN(test_debug_matches);
	RUN(test_truncated_while_mapped);
	RUN(test_foreign_sigbus_kills);
	RUN(test_dynamic_symbols_hashed);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	return test_summary();
}
