// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/python/pyruntime.c on ELF files made here: one PT_LOAD
 * segment holding _PyRuntime, Py_Version, Py_GetVersion's code and the
 * strings it loads, and the eval loop; a .symtab naming them. Good files
 * give the version and offsets they hold; broken ones (a _Py_DebugOffsets
 * cut short, a wrong cookie, offsets outside their struct, versions that
 * disagree, symbols past the file) give an error, never a guess.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "../../core/elf/elf_file.h"
#include "../../core/util/log.h"
#include "../../core/runtimes/python/pyruntime.h"

#define BASE 0x400000ULL
#define DATA_OFF 0x100	     /* where the contents start in the file */
#define VERSION_OFF 0x100    /* Py_Version */
#define GETVERSION_OFF 0x120 /* Py_GetVersion's code */
#define FORMAT_OFF 0x140     /* the strings it loads */
#define VERSTR_OFF 0x160
#define EVAL_OFF 0x180	  /* _PyEval_EvalFrameDefault, 64 bytes, then .cold, 16 */
#define RUNTIME_OFF 0x200 /* _PyRuntime: 1 KiB */
#define RUNTIME_SIZE 1024
#define DATA_END 0x800

struct sym_spec {
	const char *name;
	uint64_t off, size; /* off from the start of the file; the address is BASE + off */
	unsigned char type;
};

struct image {
	uint8_t buf[8192];
	size_t size;
};

/* Writes the ELF headers, the contents (already in img->buf) and a .symtab of syms. */
static void finish(struct image *img, const struct sym_spec *syms, size_t nsyms, size_t file_end)
{
	static const char shstr[] = "\0.data\0.symtab\0.strtab\0.shstrtab";
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Shdr sh[5] = { 0 };
	char strtab[512] = "";
	size_t strlen_ = 1, at = DATA_END, symtab_off, strtab_off, shstr_off;

	symtab_off = at;
	memset(img->buf + at, 0, sizeof(Elf64_Sym));
	at += sizeof(Elf64_Sym);
	for (size_t i = 0; i < nsyms; i++) {
		Elf64_Sym s = { 0 };

		s.st_name = strlen_;
		strcpy(strtab + strlen_, syms[i].name);
		strlen_ += strlen(syms[i].name) + 1;
		s.st_info = ELF64_ST_INFO(STB_GLOBAL, syms[i].type);
		s.st_shndx = 1;
		s.st_value = BASE + syms[i].off;
		s.st_size = syms[i].size;
		memcpy(img->buf + at, &s, sizeof(s));
		at += sizeof(s);
	}
	strtab_off = at;
	memcpy(img->buf + at, strtab, strlen_);
	at += strlen_;
	shstr_off = at;
	memcpy(img->buf + at, shstr, sizeof(shstr));
	at += sizeof(shstr);
	at = (at + 7) & ~7UL;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shoff = at;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 5;
	eh.e_shstrndx = 4;
	memcpy(img->buf, &eh, sizeof(eh));

	/* The segment ends at file_end: what lies past it is not in the file's image. */
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_vaddr = BASE;
	ph.p_filesz = file_end;
	ph.p_memsz = file_end;
	memcpy(img->buf + sizeof(eh), &ph, sizeof(ph));

	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC,
			      .sh_addr = BASE + DATA_OFF,
			      .sh_offset = DATA_OFF,
			      .sh_size = DATA_END - DATA_OFF,
			      .sh_addralign = 8 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7,
			      .sh_type = SHT_SYMTAB,
			      .sh_offset = symtab_off,
			      .sh_size = strtab_off - symtab_off,
			      .sh_link = 3,
			      .sh_info = 1,
			      .sh_entsize = sizeof(Elf64_Sym),
			      .sh_addralign = 8 };
	sh[3] = (Elf64_Shdr){ .sh_name = 15,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = strtab_off,
			      .sh_size = strlen_,
			      .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23,
			      .sh_type = SHT_STRTAB,
			      .sh_offset = shstr_off,
			      .sh_size = sizeof(shstr),
			      .sh_addralign = 1 };
	memcpy(img->buf + at, sh, sizeof(sh));
	img->size = at + sizeof(sh);
}

static void put64(struct image *img, size_t off, uint64_t v)
{
	memcpy(img->buf + off, &v, sizeof(v));
}

/* _Py_DebugOffsets of 3.13 as the pyenv build of 3.13.0 has it. */
static void put_debug_offsets(struct image *img, uint64_t version)
{
	static const uint64_t words[][2] = {
		{ 24, 1024 }, { 40, 632 },		  /* runtime: size, interpreters_head */
		{ 48, 8192 }, { 64, 7264 }, { 72, 7344 }, /* interp: size, next, threads */
		{ 152, 512 }, { 168, 8 },   { 184, 72 },  { 192, 152 }, { 200, 160 }, { 224, 80 },
		{ 232, 8 },   { 240, 0 },   { 248, 56 },  { 264, 70 },	{ 272, 208 }, { 280, 112 },
		{ 288, 120 }, { 296, 128 }, { 304, 136 }, { 312, 68 },	{ 344, 200 }, /* code */
		{ 536, 40 },  { 544, 32 },  { 552, 16 },  { 560, 40 },		      /* str */
	};

	memcpy(img->buf + RUNTIME_OFF, "xdebugpy", 8);
	put64(img, RUNTIME_OFF + 8, version);
	put64(img, RUNTIME_OFF + 16, 0);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		put64(img, RUNTIME_OFF + words[i][0], words[i][1]);
}

static void put_py_version(struct image *img, uint32_t hex)
{
	memcpy(img->buf + VERSION_OFF, &hex, sizeof(hex));
}

/* Py_GetVersion: lea FORMAT(%rip),%rdx; lea VERSION(%rip),%rcx; then its strings. */
static void put_getversion(struct image *img, const char *format, const char *version)
{
	uint8_t *c = img->buf + GETVERSION_OFF;
	int32_t d;

	c[0] = 0x48, c[1] = 0x8d, c[2] = 0x15;
	d = FORMAT_OFF - (GETVERSION_OFF + 7);
	memcpy(c + 3, &d, 4);
	c[7] = 0x48, c[8] = 0x8d, c[9] = 0x0d;
	d = VERSTR_OFF - (GETVERSION_OFF + 14);
	memcpy(c + 10, &d, 4);
	c[14] = 0xc3;
	strcpy((char *)img->buf + FORMAT_OFF, format);
	strcpy((char *)img->buf + VERSTR_OFF, version);
}

static const struct sym_spec syms_313[] = {
	{ "_PyRuntime", RUNTIME_OFF, RUNTIME_SIZE, STT_OBJECT },
	{ "Py_Version", VERSION_OFF, 8, STT_OBJECT },
	{ "_PyEval_EvalFrameDefault", EVAL_OFF, 64, STT_FUNC },
	{ "_PyEval_EvalFrameDefault.cold", EVAL_OFF + 64, 16, STT_FUNC },
};

static const struct sym_spec syms_310[] = {
	{ "_PyRuntime", RUNTIME_OFF, RUNTIME_SIZE, STT_OBJECT },
	{ "Py_GetVersion", GETVERSION_OFF, 16, STT_FUNC },
	{ "_PyEval_EvalFrameDefault", EVAL_OFF, 64, STT_FUNC },
};

/* pyruntime__read of the image, opened under name. */
static int read_image(const struct image *img, const char *name, struct pyruntime *pr)
{
	struct elf_file *ef = elf_file__open_mem(img->buf, img->size, name);
	int err;

	if (!ef)
		return -1000;
	err = pyruntime__read(ef, pr);
	elf_file__free(ef);
	return err;
}

static void image_313(struct image *img, uint64_t debug_version)
{
	memset(img, 0, sizeof(*img));
	put_debug_offsets(img, debug_version);
	put_py_version(img, 0x030d00f0);
	finish(img, syms_313, 4, DATA_END);
}

static void test_debug_offsets(void)
{
	static struct image img;
	struct pyruntime pr;
	char ver[32];

	image_313(&img, 0x030d00f0);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so.1.0", &pr), 0);
	CHECK_EQ_STR(pyruntime__version_str(&pr, ver, sizeof(ver)), "3.13.0");
	CHECK_EQ_INT(pr.offsets_source, PY_OFFSETS_DEBUG_OFFSETS);
	CHECK_EQ_INT(pr.frame_layout, PY_FRAME_INTERPRETER);
	CHECK_EQ_INT(pr.runtime, BASE + RUNTIME_OFF);
	CHECK_EQ_INT(pr.tls_key, 0);
	CHECK_EQ_INT(pr.eval_lo, BASE + EVAL_OFF);
	CHECK_EQ_INT(pr.eval_hi, BASE + EVAL_OFF + 64);
	CHECK_EQ_INT(pr.cold_lo, BASE + EVAL_OFF + 64);
	CHECK_EQ_INT(pr.cold_hi, BASE + EVAL_OFF + 80);
	CHECK_EQ_INT(pr.off.runtime_interpreters_head, 632);
	CHECK_EQ_INT(pr.off.interp_threads_head, 7344);
	CHECK_EQ_INT(pr.off.tstate_frame, 72);
	CHECK_EQ_INT(pr.off.frame_owner, 70);
	CHECK_EQ_INT(pr.off.code_adaptive, 200);
	CHECK_EQ_INT(pr.off.str_data, 40);
	CHECK_EQ_INT(pr.off.cframe_current_frame, PY_OFF_NONE);
	CHECK_EQ_INT(pr.off.runtime_tss_key, PY_OFF_NONE);
}

static void test_bad_debug_offsets(void)
{
	static const struct sym_spec small[] = {
		{ "_PyRuntime", RUNTIME_OFF, 300, STT_OBJECT },
		{ "Py_Version", VERSION_OFF, 8, STT_OBJECT },
		{ "_PyEval_EvalFrameDefault", EVAL_OFF, 64, STT_FUNC },
	};
	static struct image img;
	struct pyruntime pr;

	/* the cookie */
	image_313(&img, 0x030d00f0);
	memcpy(img.buf + RUNTIME_OFF, "xdebugpz", 8);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -EINVAL);
	CHECK_EQ_INT(pr.runtime, 0);

	/* _PyRuntime too small to hold the table */
	image_313(&img, 0x030d00f0);
	finish(&img, small, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -EINVAL);

	/* the file ends inside the table */
	image_313(&img, 0x030d00f0);
	finish(&img, syms_313, 4, RUNTIME_OFF + 400);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -EINVAL);

	/* a table of another version than Py_Version's */
	image_313(&img, 0x030d01f0);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -EINVAL);

	/* free-threaded */
	image_313(&img, 0x030d00f0);
	put64(&img, RUNTIME_OFF + 16, 1);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -ENOTSUP);

	/* an offset past the end of its struct, a struct of absurd size */
	image_313(&img, 0x030d00f0);
	put64(&img, RUNTIME_OFF + 72, 8190);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -EINVAL);
	image_313(&img, 0x030d00f0);
	put64(&img, RUNTIME_OFF + 152, 1ULL << 40);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.13.so", &pr), -EINVAL);
}

/*
 * _Py_DebugOffsets of 3.14 and 3.15, made up here: the groups where
 * CPython's headers place them (3.15 with fields of the thread that 3.14
 * has not), each field a value no other has, so that a field read from
 * the wrong word shows.
 */
struct made_up {
	unsigned int minor;
	size_t tstate, frame, code, bytes, str, thread_id;
};

static const struct made_up made_up_314 = { 14, 176, 248, 312, 592, 616, 216 };
static const struct made_up made_up_315 = { 15, 176, 312, 376, 688, 712, 240 };

static void put_made_up(struct image *img, const struct made_up *m, uint64_t version)
{
	const size_t r = RUNTIME_OFF;

	memcpy(img->buf + r, "xdebugpy", 8);
	put64(img, r + 8, version);
	put64(img, r + 24, RUNTIME_SIZE); /* _PyRuntimeState: the symbol's size */
	put64(img, r + 40, 808);
	put64(img, r + 48, 9000); /* interp: size, next, threads head */
	put64(img, r + 64, 7272);
	put64(img, r + 72, 7344);
	put64(img, r + m->tstate, 900);
	put64(img, r + m->tstate + 16, 8);
	put64(img, r + m->tstate + 32, 72);
	put64(img, r + m->thread_id, 152 + m->minor);
	put64(img, r + m->thread_id + 8, 160 + m->minor);
	put64(img, r + m->frame, 88);
	put64(img, r + m->frame + 8, 8);
	put64(img, r + m->frame + 16, 0);
	put64(img, r + m->frame + 24, 56);
	put64(img, r + m->frame + 40, 74);
	put64(img, r + m->code, 216);
	put64(img, r + m->code + 8, 112);
	put64(img, r + m->code + 16, 120);
	put64(img, r + m->code + 24, 128);
	put64(img, r + m->code + 32, 136);
	put64(img, r + m->code + 40, 68);
	put64(img, r + m->code + 72, 208);
	put64(img, r + m->bytes, 40);
	put64(img, r + m->bytes + 16, 33);
	put64(img, r + m->str, 64);
	put64(img, r + m->str + 8, 32);
	put64(img, r + m->str + 16, 16);
	put64(img, r + m->str + 24, 40);
}

static void image_made_up(struct image *img, const struct made_up *m, uint32_t version)
{
	memset(img, 0, sizeof(*img));
	put_made_up(img, m, version);
	put_py_version(img, version);
	finish(img, syms_313, 4, DATA_END);
}

static void test_debug_offsets_314_315(void)
{
	const struct made_up *layouts[] = { &made_up_314, &made_up_315 };
	static struct image img;
	struct pyruntime pr;
	char ver[32];

	for (size_t i = 0; i < 2; i++) {
		const struct made_up *m = layouts[i];
		uint32_t version = 0x03000af0 | m->minor << 16;

		image_made_up(&img, m, version);
		CHECK_EQ_INT(read_image(&img, "python3", &pr), 0);
		CHECK_EQ_INT(pr.minor, m->minor);
		CHECK_EQ_INT(pr.micro, 10);
		CHECK_EQ_INT(pr.offsets_source, PY_OFFSETS_DEBUG_OFFSETS);
		CHECK_EQ_INT(pr.off.runtime_interpreters_head, 808);
		CHECK_EQ_INT(pr.off.interp_next, 7272);
		CHECK_EQ_INT(pr.off.interp_threads_head, 7344);
		CHECK_EQ_INT(pr.off.tstate_next, 8);
		CHECK_EQ_INT(pr.off.tstate_frame, 72);
		CHECK_EQ_INT(pr.off.tstate_thread_id, 152 + m->minor);
		CHECK_EQ_INT(pr.off.tstate_native_thread_id, 160 + m->minor);
		CHECK_EQ_INT(pr.off.frame_previous, 8);
		CHECK_EQ_INT(pr.off.frame_code, 0);
		CHECK_EQ_INT(pr.off.frame_instr, 56);
		CHECK_EQ_INT(pr.off.frame_owner, 74);
		CHECK_EQ_INT(pr.off.code_filename, 112);
		CHECK_EQ_INT(pr.off.code_name, 120);
		CHECK_EQ_INT(pr.off.code_qualname, 128);
		CHECK_EQ_INT(pr.off.code_linetable, 136);
		CHECK_EQ_INT(pr.off.code_firstlineno, 68);
		CHECK_EQ_INT(pr.off.code_adaptive, 208);
		CHECK_EQ_INT(pr.off.bytes_sval, 33);
		CHECK_EQ_INT(pr.off.str_state, 32);
		CHECK_EQ_INT(pr.off.str_length, 16);
		CHECK_EQ_INT(pr.off.str_data, 40);
		CHECK_EQ_STR(pyruntime__offset_source(&pr, PY_O_TSTATE_THREAD_ID),
			     "_Py_DebugOffsets");
		CHECK_EQ_STR(pyruntime__offset_source(&pr, PY_O_STR_ASCII_BIT), "constant");
	}
	/* 3.15's table read with 3.14's layout is refused, not misread: the sizes disagree */
	image_made_up(&img, &made_up_315, 0x030e0af0);
	CHECK(read_image(&img, "python3", &pr) < 0);

	/* a minor version whose layout is not known: refused, its version and loop kept */
	image_made_up(&img, &made_up_315, 0x031000f0);
	CHECK_EQ_INT(read_image(&img, "python3.16", &pr), -ENOTSUP);
	CHECK_EQ_STR(pyruntime__version_str(&pr, ver, sizeof(ver)), "3.16.0");
	CHECK_EQ_INT(pr.eval_lo, BASE + EVAL_OFF);
	CHECK_EQ_INT(pr.cold_lo, BASE + EVAL_OFF + 64);
	CHECK_EQ_INT(pr.runtime, 0);
	CHECK_EQ_INT(pr.off.tstate_next, 0);
	CHECK(strstr(pr.why, "3.16") != NULL);
}

/* Corrupted tables of 3.14: each refused with a reason, never read. */
static void test_bad_debug_offsets_314(void)
{
	static struct image img;
	struct pyruntime pr;

	/* free-threaded: refused as a build not supported, the loop kept */
	image_made_up(&img, &made_up_314, 0x030e0af0);
	put64(&img, RUNTIME_OFF + 16, 1);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.14t", &pr), -ENOTSUP);
	CHECK(pr.free_threaded);
	CHECK_EQ_INT(pr.minor, 14);
	CHECK_EQ_INT(pr.eval_lo, BASE + EVAL_OFF);
	CHECK(strstr(pr.why, "free-threaded") != NULL);

	/* the size of _PyRuntimeState it declares is not the symbol's */
	image_made_up(&img, &made_up_314, 0x030e0af0);
	put64(&img, RUNTIME_OFF + 24, RUNTIME_SIZE + 8);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.14", &pr), -EINVAL);
	CHECK_EQ_INT(pr.eval_lo, 0);
	CHECK(strstr(pr.why, "bytes") != NULL);

	/* another version than Py_Version's */
	image_made_up(&img, &made_up_314, 0x030e0af0);
	put64(&img, RUNTIME_OFF + 8, 0x030e09f0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.14", &pr), -EINVAL);
	CHECK(strstr(pr.why, "version") != NULL);

	/* the thread's id past the end of the thread state; the code's name at its very end */
	image_made_up(&img, &made_up_314, 0x030e0af0);
	put64(&img, RUNTIME_OFF + made_up_314.thread_id, 900);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.14", &pr), -EINVAL);
	CHECK(strstr(pr.why, "tstate.thread_id") != NULL);
	image_made_up(&img, &made_up_314, 0x030e0af0);
	put64(&img, RUNTIME_OFF + made_up_314.code + 16, 212);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.14", &pr), -EINVAL);
	/* a struct of absurd size */
	image_made_up(&img, &made_up_314, 0x030e0af0);
	put64(&img, RUNTIME_OFF + made_up_314.frame, 1ULL << 40);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.14", &pr), -EINVAL);
	/* _PyRuntime smaller than the table (760 bytes in 3.14) */
	image_made_up(&img, &made_up_314, 0x030e0af0);
	finish(&img, syms_313, 4, RUNTIME_OFF + 700);
	CHECK_EQ_INT(read_image(&img, "python3.14", &pr), -EINVAL);
}

static void test_versions(void)
{
	static struct image img;
	struct pyruntime pr;
	char ver[32];

	/* 3.11: the table */
	memset(&img, 0, sizeof(img));
	put_py_version(&img, 0x030b07f0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python3.11", &pr), 0);
	CHECK_EQ_STR(pyruntime__version_str(&pr, ver, sizeof(ver)), "3.11.7");
	CHECK_EQ_INT(pr.offsets_source, PY_OFFSETS_TABLE);
	CHECK_EQ_INT(pr.off.runtime_tss_key, 592);
	CHECK_EQ_INT(pr.tls_key, BASE + RUNTIME_OFF + 592 + 4);
	CHECK_EQ_INT(pr.off.frame_is_entry, 68);

	/* 3.12's autoTSSkey (at 1544) lies past the end of this _PyRuntime */
	put_py_version(&img, 0x030c01f0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.12.so.1.0", &pr), -EINVAL);
	CHECK_EQ_INT(pr.runtime, 0);

	/* versions not known here; one the file name contradicts */
	put_py_version(&img, 0x020712f0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python", &pr), -ENOTSUP);
	put_py_version(&img, 0x030500f0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "python", &pr), -ENOTSUP);
	put_py_version(&img, 0x030c01f0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.11.so.1.0", &pr), -EINVAL);
	/* Py_Version says 3.10, which has none */
	put_py_version(&img, 0x030a0df0);
	finish(&img, syms_313, 4, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.10.so", &pr), -EINVAL);
}

static void test_getversion(void)
{
	static const char format[] = "%.80s (%.80s) %.80s";
	static struct image img;
	struct pyruntime pr;
	char ver[32];

	memset(&img, 0, sizeof(img));
	put_getversion(&img, format, "3.10.13");
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.10.so.1.0", &pr), 0);
	CHECK_EQ_STR(pyruntime__version_str(&pr, ver, sizeof(ver)), "3.10.13");
	CHECK_EQ_INT(pr.version_hex, 0x030a0df0);
	CHECK_EQ_INT(pr.version_source, PY_VERSION_FROM_GETVERSION);
	CHECK_EQ_INT(pr.frame_layout, PY_FRAME_OBJECT);
	CHECK_EQ_INT(pr.off.frame_instr, 96);
	CHECK_EQ_INT(pr.cold_lo, 0);

	put_getversion(&img, format, "3.9.0rc2");
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.9.so", &pr), 0);
	CHECK_EQ_STR(pyruntime__version_str(&pr, ver, sizeof(ver)), "3.9.0rc2");
	CHECK_EQ_INT(pr.version_hex, 0x030900c2);

	/* the name says another version; the format is not Py_GetVersion's; not a version */
	put_getversion(&img, format, "3.9.18");
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.8.so.1.0", &pr), -EINVAL);
	put_getversion(&img, "%s %s %s", "3.9.18");
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.9.so", &pr), -ENOTSUP);
	put_getversion(&img, format, "3.9.x");
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.9.so", &pr), -ENOTSUP);
	put_getversion(&img, format, "3.999999999999.1");
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.so", &pr), -ENOTSUP);
	/* a version string without an end */
	put_getversion(&img, format, "3.9.18");
	memset(img.buf + VERSTR_OFF, '3', DATA_END - VERSTR_OFF);
	finish(&img, syms_310, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.9.so", &pr), -ENOTSUP);
}

static void test_not_python(void)
{
	static const struct sym_spec no_eval[] = {
		{ "_PyRuntime", RUNTIME_OFF, RUNTIME_SIZE, STT_OBJECT },
		{ "Py_Version", VERSION_OFF, 8, STT_OBJECT },
	};
	static const struct sym_spec eval_past_end[] = {
		{ "_PyRuntime", RUNTIME_OFF, RUNTIME_SIZE, STT_OBJECT },
		{ "Py_Version", VERSION_OFF, 8, STT_OBJECT },
		{ "_PyEval_EvalFrameDefault", EVAL_OFF, 1 << 20, STT_FUNC },
	};
	static const struct sym_spec version_past_end[] = {
		{ "_PyRuntime", RUNTIME_OFF, RUNTIME_SIZE, STT_OBJECT },
		{ "Py_Version", 1 << 20, 8, STT_OBJECT },
		{ "_PyEval_EvalFrameDefault", EVAL_OFF, 64, STT_FUNC },
	};
	/* at address 0, which is the ELF header (found by fuzz_pyruntime) */
	static const struct sym_spec runtime_at_0[] = {
		{ "_PyRuntime", -BASE, RUNTIME_SIZE, STT_OBJECT },
		{ "Py_Version", VERSION_OFF, 8, STT_OBJECT },
		{ "_PyEval_EvalFrameDefault", EVAL_OFF, 64, STT_FUNC },
	};
	static struct image img;
	struct pyruntime pr;

	memset(&img, 0, sizeof(img));
	put_py_version(&img, 0x030b07f0);
	finish(&img, runtime_at_0, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.11.so", &pr), -EINVAL);
	finish(&img, no_eval, 2, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.11.so", &pr), -ENOENT);
	finish(&img, syms_313, 0, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.11.so", &pr), -ENOENT);
	finish(&img, eval_past_end, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.11.so", &pr), -EINVAL);
	finish(&img, version_past_end, 3, DATA_END);
	CHECK_EQ_INT(read_image(&img, "libpython3.11.so", &pr), -EINVAL);
}

/* Jumps into a range: the measure that finds a stripped eval loop's .cold part. */
static void test_jumps_into(void)
{
	/* at 0x1000: jmp 0x2000; jne 0x2010; call 0x2000 (not a jump); jmp 0x3000 (outside); ret */
	uint8_t code[32] = { 0 };
	size_t at = 0;
	int32_t rel;

	code[at] = 0xe9;
	rel = 0x2000 - (0x1000 + 5);
	memcpy(code + at + 1, &rel, 4);
	at += 5;
	code[at] = 0x0f;
	code[at + 1] = 0x85;
	rel = 0x2010 - (0x1000 + at + 6);
	memcpy(code + at + 2, &rel, 4);
	at += 6;
	code[at] = 0xe8;
	rel = 0x2000 - (0x1000 + at + 5);
	memcpy(code + at + 1, &rel, 4);
	at += 5;
	code[at] = 0xe9;
	rel = 0x3000 - (0x1000 + at + 5);
	memcpy(code + at + 1, &rel, 4);
	at += 5;
	code[at++] = 0xc3;
	CHECK_EQ_INT(pyruntime__jumps_into(code, at, 0x1000, 0x2000, 0x2100), 2);
	CHECK_EQ_INT(pyruntime__jumps_into(code, at, 0x1000, 0x2010, 0x2011), 1);
	CHECK_EQ_INT(pyruntime__jumps_into(code, at, 0x1000, 0x4000, 0x5000), 0);
	/* a jump cut short by the end of the code is none */
	CHECK_EQ_INT(pyruntime__jumps_into(code, 4, 0x1000, 0x2000, 0x2100), 0);
}

int main(void)
{
	/* UNWPROF_TEST_VERBOSE=1: the reason of each refusal */
	if (getenv("UNWPROF_TEST_VERBOSE"))
		log_level = 3;
	RUN(test_debug_offsets);
	RUN(test_bad_debug_offsets);
	RUN(test_debug_offsets_314_315);
	RUN(test_bad_debug_offsets_314);
	RUN(test_versions);
	RUN(test_getversion);
	RUN(test_not_python);
	RUN(test_jumps_into);
	return test_summary();
}
