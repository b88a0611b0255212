// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding separate debug files (core/elf/debuginfo.c) in a fake root: a
 * .build-id tree, debug links next to the file, in .debug/ and under the
 * debug directory; candidates with another build ID or a wrong CRC are passed
 * over.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/elf/debuginfo.h"
#include "core/elf/elf_file.h"
#include "test.h"

#define FX_MAX 1024

struct fx_opts {
	uint8_t id_byte;  /* build ID is 20 bytes of this value; 0: no build ID */
	const char *link; /* .gnu_debuglink name, NULL: none */
	uint32_t crc;
};

static const char fx_names[] = "\0.note.gnu.build-id\0.gnu_debuglink\0.shstrtab";
#define FX_NAME_NOTE 1
#define FX_NAME_LINK 20
#define FX_NAME_SHSTRTAB 35

static size_t fx_align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static void fx_shdr(uint8_t *buf, size_t shoff, int idx, uint32_t name, uint32_t type, size_t off,
		    size_t size)
{
	Elf64_Shdr sh = { .sh_name = name,
			  .sh_type = type,
			  .sh_offset = off,
			  .sh_size = size,
			  .sh_addralign = 4 };

	memcpy(buf + shoff + idx * sizeof(sh), &sh, sizeof(sh));
}

/* A minimal ELF64 x86_64 file with an optional build ID and debug link; returns its size. */
static size_t fx_build(uint8_t *buf, const struct fx_opts *o)
{
	Elf64_Ehdr eh = {};
	Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = 20, .n_type = NT_GNU_BUILD_ID };
	size_t off = sizeof(eh), note_off, note_size = 0, link_off, link_size = 0, str_off;
	size_t shoff;

	memset(buf, 0, FX_MAX);
	note_off = off;
	if (o->id_byte) {
		memcpy(buf + off, &nh, sizeof(nh));
		memcpy(buf + off + sizeof(nh), "GNU", 4);
		memset(buf + off + sizeof(nh) + 4, o->id_byte, 20);
		note_size = sizeof(nh) + 4 + 20;
		off += note_size;
	}
	link_off = off;
	if (o->link) {
		size_t n = strlen(o->link) + 1;

		memcpy(buf + off, o->link, n);
		link_size = fx_align(n, 4) + 4;
		memcpy(buf + off + link_size - 4, &o->crc, 4);
		off += link_size;
	}
	str_off = off;
	memcpy(buf + off, fx_names, sizeof(fx_names));
	off += sizeof(fx_names);
	shoff = fx_align(off, 8);
	fx_shdr(buf, shoff, 1, o->id_byte ? FX_NAME_NOTE : 0, SHT_NOTE, note_off, note_size);
	fx_shdr(buf, shoff, 2, o->link ? FX_NAME_LINK : 0, SHT_PROGBITS, link_off, link_size);
	fx_shdr(buf, shoff, 3, FX_NAME_SHSTRTAB, SHT_STRTAB, str_off, sizeof(fx_names));

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 4;
	eh.e_shstrndx = 3;
	memcpy(buf, &eh, sizeof(eh));
	return shoff + 4 * sizeof(Elf64_Shdr);
}

static char root[64];

static void mkdirs(const char *path)
{
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

/* Writes an ELF file at root/rel (creating directories); returns the CRC32 of its bytes. */
static uint32_t put(const char *rel, const struct fx_opts *o)
{
	static uint8_t buf[FX_MAX];
	char path[512], *slash;
	size_t size = fx_build(buf, o);
	int fd;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size)
		fprintf(stderr, "cannot write %s\n", path);
	if (fd >= 0)
		close(fd);
	return crc32(0, buf, size);
}

static void new_root(void)
{
	char cmd[128];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
	}
	snprintf(root, sizeof(root), "/tmp/unwprof-test-debuginfo-XXXXXX");
	if (!mkdtemp(root))
		perror("mkdtemp");
}

/* Looks up the debug file of root/rel; checks it is root/want_rel (NULL: none found). */
static void expect_debug(const char *rel, const char *debug_dir, const char *want_rel)
{
	struct debuginfo_opts opts = { .root = root, .debug_dir = debug_dir };
	struct elf_file *elf, *debug;
	char path[512], want[512];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	elf = elf_file__open(path);
	CHECK(elf != NULL);
	if (!elf)
		return;
	debug = debuginfo__find(elf, &opts);
	if (!want_rel) {
		CHECK(debug == NULL);
		CHECK_EQ_INT(errno, ENOENT);
	} else {
		snprintf(want, sizeof(want), "%s%s", root, want_rel);
		CHECK(debug != NULL);
		CHECK_EQ_STR(debug ? elf_file__path(debug) : NULL, want);
	}
	elf_file__free(debug);
	elf_file__free(elf);
}

static void test_build_id_path(void)
{
	new_root();
	put("/usr/lib/libx.so", &(struct fx_opts){ .id_byte = 0xab, .link = "libx.debug" });
	put("/usr/lib/debug/.build-id/ab/ababababababababababababababababababab.debug",
	    &(struct fx_opts){ .id_byte = 0xab });
	expect_debug("/usr/lib/libx.so", NULL,
		     "/usr/lib/debug/.build-id/ab/ababababababababababababababababababab.debug");
}

/* A root given with a trailing slash means the same root. */
static void test_root_with_slash(void)
{
	struct debuginfo_opts opts = {};
	struct elf_file *elf, *debug;
	char path[512], slashed[128];

	new_root();
	put("/lib/liba.so", &(struct fx_opts){ .id_byte = 0x55, .link = "liba.debug" });
	put("/lib/.debug/liba.debug", &(struct fx_opts){ .id_byte = 0x55 });
	snprintf(path, sizeof(path), "%s/lib/liba.so", root);
	snprintf(slashed, sizeof(slashed), "%s/", root);
	opts.root = slashed;
	elf = elf_file__open(path);
	CHECK(elf != NULL);
	if (!elf)
		return;
	debug = debuginfo__find(elf, &opts);
	snprintf(path, sizeof(path), "%s/lib/.debug/liba.debug", root);
	CHECK_EQ_STR(debug ? elf_file__path(debug) : NULL, path);
	elf_file__free(debug);
	elf_file__free(elf);
}

static void test_wrong_build_id_rejected(void)
{
	new_root();
	put("/usr/lib/libx.so", &(struct fx_opts){ .id_byte = 0xab, .link = "libx.debug" });
	/* At the right build-id path and the debug link name, but another build ID. */
	put("/usr/lib/debug/.build-id/ab/ababababababababababababababababababab.debug",
	    &(struct fx_opts){ .id_byte = 0xcd });
	put("/usr/lib/libx.debug", &(struct fx_opts){ .id_byte = 0xcd });
	put("/usr/lib/.debug/libx.debug", &(struct fx_opts){});
	expect_debug("/usr/lib/libx.so", NULL, NULL);

	/* A matching one further down the search order is found. */
	put("/usr/lib/debug/usr/lib/libx.debug", &(struct fx_opts){ .id_byte = 0xab });
	expect_debug("/usr/lib/libx.so", NULL, "/usr/lib/debug/usr/lib/libx.debug");
}

static void test_debuglink_order(void)
{
	new_root();
	put("/opt/app/bin/app", &(struct fx_opts){ .id_byte = 0x11, .link = "app.debug" });
	put("/usr/lib/debug/opt/app/bin/app.debug", &(struct fx_opts){ .id_byte = 0x11 });
	expect_debug("/opt/app/bin/app", NULL, "/usr/lib/debug/opt/app/bin/app.debug");
	put("/opt/app/bin/.debug/app.debug", &(struct fx_opts){ .id_byte = 0x11 });
	expect_debug("/opt/app/bin/app", NULL, "/opt/app/bin/.debug/app.debug");
	put("/opt/app/bin/app.debug", &(struct fx_opts){ .id_byte = 0x11 });
	expect_debug("/opt/app/bin/app", NULL, "/opt/app/bin/app.debug");
}

static void test_crc_without_build_id(void)
{
	uint32_t crc;

	new_root();
	crc = put("/usr/lib/debug/usr/bin/tool.debug", &(struct fx_opts){});
	put("/usr/bin/tool", &(struct fx_opts){ .link = "tool.debug", .crc = crc });
	expect_debug("/usr/bin/tool", NULL, "/usr/lib/debug/usr/bin/tool.debug");

	put("/usr/bin/tool", &(struct fx_opts){ .link = "tool.debug", .crc = crc ^ 1 });
	expect_debug("/usr/bin/tool", NULL, NULL);
}

static void test_never_itself(void)
{
	new_root();
	/* A debug link naming the file itself: it has the same build ID, but is not its debug file. */
	put("/usr/lib/libself.so", &(struct fx_opts){ .id_byte = 0x22, .link = "libself.so" });
	expect_debug("/usr/lib/libself.so", NULL, NULL);
}

static void test_custom_debug_dir(void)
{
	new_root();
	put("/usr/lib/liby.so", &(struct fx_opts){ .id_byte = 0x33, .link = "liby.debug" });
	put("/srv/dbg/.build-id/33/33333333333333333333333333333333333333.debug",
	    &(struct fx_opts){ .id_byte = 0x33 });
	expect_debug("/usr/lib/liby.so", NULL, NULL);
	expect_debug("/usr/lib/liby.so", "/srv/dbg",
		     "/srv/dbg/.build-id/33/33333333333333333333333333333333333333.debug");
}

static void test_not_elf_candidate(void)
{
	char path[512];
	int fd;

	new_root();
	put("/usr/lib/libz.so", &(struct fx_opts){ .id_byte = 0x44, .link = "libz.debug" });
	snprintf(path, sizeof(path), "%s/usr/lib/libz.debug", root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, "garbage", 7) != 7)
			fprintf(stderr, "short write\n");
		close(fd);
	}
	expect_debug("/usr/lib/libz.so", NULL, NULL);
}

int main(void)
{
	RUN(test_build_id_path);
	RUN(test_root_with_slash);
	RUN(test_wrong_build_id_rejected);
	RUN(test_debuglink_order);
	RUN(test_crc_without_build_id);
	RUN(test_never_itself);
	RUN(test_custom_debug_dir);
	RUN(test_not_elf_candidate);
	new_root();
	rmdir(root);
	return test_summary();
}
