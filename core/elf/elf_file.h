/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading ELF files with libelf: sections, build ID, debug link. Every size
 * read from the file is checked against the file, so a truncated or hostile
 * file gives an error, never an out-of-bounds read.
 */
#ifndef UNWPROF_ELF_FILE_H
#define UNWPROF_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;

struct elf_section {
	const uint8_t *data; /* the section's bytes, inside the file */
	size_t size;
	uint64_t addr;	 /* sh_addr: its virtual address when loaded */
	uint64_t offset; /* sh_offset */
};

#define ELF_BUILD_ID_MAX 64
/* Larger than any real library or debug file: refused rather than mapped. */
#define ELF_FILE_MAX (2ULL << 30)

/*
 * Opens an ELF64 x86_64 or aarch64 file. Returns NULL and sets errno on
 * failure, after printing a message that names the file and what is wrong.
 */
struct elf_file *elf_file__open(const char *path);
/* Flags of elf_file__open_flags(). */
enum {
	ELF_OPEN_QUIET = 1 << 0, /* errors at debug level: probing candidate files */
};
struct elf_file *elf_file__open_flags(const char *path, unsigned int flags);
/*
 * The same from an open file (fd stays the caller's; it may be closed at
 * once), named name in messages: a file opened through /proc is named by
 * its path, not /proc/self/fd/N. Files over 2 GiB are refused (EFBIG).
 */
struct elf_file *elf_file__open_fd(int fd, const char *name, unsigned int flags);
/* The same from memory (the buffer must outlive the elf_file); name is for messages. */
struct elf_file *elf_file__open_mem(const void *buf, size_t size, const char *name);
/*
 * The vDSO the kernel maps into unwprof itself (found through the auxiliary
 * vector), named "[vdso]": every 64-bit process of this kernel maps the same
 * image. Its size is the end of its section headers, at most 1 MiB. NULL and
 * errno (ENOENT: no vDSO) on failure.
 */
struct elf_file *elf_file__open_vdso(void);
void elf_file__free(struct elf_file *ef);

const char *elf_file__path(const struct elf_file *ef);
/* EM_X86_64 or EM_AARCH64 */
int elf_file__machine(const struct elf_file *ef);
/* ET_EXEC, ET_DYN, ... */
int elf_file__type(const struct elf_file *ef);
/* e_entry: the address the program starts at (an executable's _start), 0 when none */
uint64_t elf_file__entry(const struct elf_file *ef);

/* 0 and *sec filled, -ENOENT when absent (or SHT_NOBITS), -EINVAL when it lies past the file. */
/*
 * An SHF_COMPRESSED (zlib) section is decompressed on first use and kept with
 * the elf_file, so sec->data then points to that copy (not thread-safe).
 */
int elf_file__section(const struct elf_file *ef, const char *name, struct elf_section *sec);

/* Length of the GNU build ID copied to buf (at most ELF_BUILD_ID_MAX bytes), 0 when none. */
size_t elf_file__build_id(const struct elf_file *ef, uint8_t *buf);

/* The file name in .gnu_debuglink and its CRC, or NULL when there is none. */
const char *elf_file__debuglink(const struct elf_file *ef, uint32_t *crc);

/* Program headers of type PT_LOAD, in file order; returns how many were stored. */
struct elf_load_segment {
	uint64_t vaddr;
	uint64_t memsz;
	uint64_t offset;
	uint64_t filesz;
	uint32_t flags; /* PF_X, PF_W, PF_R */
};
size_t elf_file__load_segments(const struct elf_file *ef, struct elf_load_segment *segs,
			       size_t max);

/*
 * The sections of code (SHF_EXECINSTR, in memory and in the file), in file
 * order, as [vaddr, vaddr + size) in ranges[0, max); returns how many were
 * stored (0 without section headers).
 */
struct elf_range {
	uint64_t lo, hi;
};
size_t elf_file__code_sections(const struct elf_file *ef, struct elf_range *ranges, size_t max);

/*
 * The bytes at ELF virtual address vaddr, when a PT_LOAD segment holds all
 * len of them in the file; NULL otherwise.
 */
const uint8_t *elf_file__vaddr_bytes(const struct elf_file *ef, uint64_t vaddr, size_t len);
/* Whether [vaddr, vaddr + len) is in the memory of a PT_LOAD segment (file or zero-filled). */
bool elf_file__vaddr_mapped(const struct elf_file *ef, uint64_t vaddr, uint64_t len);

/*
 * The GOT slots the dynamic loader fills for the thread-local variable
 * name of .dynsym, from the relocations in .rela.dyn and .rela.plt
 * (x86-64's or aarch64's), each 0 when there is none: tpoff the one given its offset
 * from the thread pointer (R_X86_64_TPOFF64, R_AARCH64_TLS_TPREL, addend
 * 0: the executable's own variable, or initial-exec code's), dtpmod the one
 * given its module's id (R_X86_64_DTPMOD64, R_AARCH64_TLS_DTPMOD: a
 * library's, general-dynamic code's), tlsdesc a TLS descriptor's
 * (R_AARCH64_TLSDESC, addend 0: aarch64's general-dynamic code), two
 * words, the second of which a library loaded at startup (static TLS)
 * gets its offset from the thread pointer in.
 */
struct elf_tls_slots {
	uint64_t tpoff, dtpmod, tlsdesc;
};
void elf_file__tls_slots(const struct elf_file *ef, const char *name, struct elf_tls_slots *out);
/* A NUL-terminated string of at most max bytes at vaddr, or NULL. */
const char *elf_file__vaddr_string(const struct elf_file *ef, uint64_t vaddr, size_t max);

/* A symbol looked for by name and type (STT_*), and what was found of it. */
struct elf_symbol_query {
	const char *name;
	unsigned char type;
	bool found;
	uint64_t value, size;
};
/*
 * Looks for each of qs[0..n) in .symtab, then in .dynsym, the first of a
 * name winning: local symbols are only in the first. 0, -EINVAL when a
 * table is broken, or -ENOMEM.
 */
int elf_file__find_symbols(const struct elf_file *ef, struct elf_symbol_query *qs, size_t n);

/*
 * A file can be truncated while it is mapped (its owner rewrites it): the
 * pages past its new end then read as zeros instead of crashing unwprof with
 * SIGBUS. True once any read hit such a page: what was read from the file
 * (sections, the image, its CRC) is then unreliable and should not be kept.
 * elf_file__free() warns once about such a file. Only files opened by path
 * or fd are mapped; a buffer from elf_file__open_mem() is never reported.
 */
bool elf_file__truncated(const struct elf_file *ef);

/*
 * The pages of data (of ef's image) mapped in one call where reading them
 * would fault them in 16 at a time: a section read through from end to end
 * (a large .eh_frame: 5 MB, 80 faults, each costly on a virtual machine).
 */
void elf_file__prefault(const struct elf_file *ef, const void *data, size_t size);

/*
 * Gives back the memory of the pages of [data, data + size) that lie in the
 * file's mapping (madvise MADV_DONTNEED): sections read once and seldom
 * again (DWARF) then stop counting in unwprof's resident memory, and are
 * read again from the page cache if touched. Data outside the mapping (a
 * decompressed section, a buffer of elf_file__open_mem()) is left alone.
 */
void elf_file__release(const struct elf_file *ef, const void *data, size_t size);

/* The whole file as mapped, e.g. for hashing a file without a build ID. */
const void *elf_file__image(const struct elf_file *ef, size_t *size);
/* CRC32 (zlib's, as .gnu_debuglink uses) of the whole file. */
uint32_t elf_file__crc32(const struct elf_file *ef);
/*
 * Whether debug is the separate debug file of ef: same build ID when ef has
 * one, otherwise the CRC in ef's .gnu_debuglink matches debug's contents.
 */
bool elf_file__debug_matches(const struct elf_file *ef, const struct elf_file *debug);

#endif
