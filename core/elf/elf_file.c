// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading ELF files. The file is mapped once and handed to libelf with
 * elf_memory(); before that, the ELF header, the section header table and
 * the program header table are checked against the file size by hand, so
 * every later pointer into the image is in bounds and every error message
 * says what is wrong instead of libelf's generic "invalid ELF file".
 *
 * The files are the executables and libraries of profiled processes, which
 * their owner can truncate at any moment. Touching a mapped page past the
 * new end of a file raises SIGBUS; a handler installed with the first
 * mapping puts a page of zeros there instead and marks the file, so a
 * truncated file reads as zeros past its new end (which the parsers take
 * like any corrupt input) and unwprof keeps running.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/common.h"
#include "elf_file.h"
#include "../util/log.h"

/* Decompressed section contents stay valid as long as the elf_file. */
struct elf_inflated {
	struct elf_inflated *next;
	size_t index; /* section index */
	uint8_t *data;
	size_t size;
};

struct elf_cache {
	struct elf_inflated *inflated;
};

/*
 * A file mapping the SIGBUS handler may repair. It lives in its elf_file so
 * that registering it allocates nothing.
 */
struct elf_mapping {
	struct elf_mapping *next;
	struct elf_mapping **pprev; /* the pointer that points here */
	uintptr_t start;
	size_t len;
	volatile sig_atomic_t truncated; /* set by the handler */
};

struct elf_file {
	char *path;
	const uint8_t *image;
	size_t size;
	void *map; /* the mmap()ed image when we own it, else NULL */
	Elf *elf;
	Elf64_Ehdr ehdr;
	int machine;
	int type;
	size_t shnum;
	size_t shstrndx;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	char *debuglink;
	uint32_t debuglink_crc;
	unsigned int flags;
	/* Mutable through a const elf_file: lazily filled, freed with the file. */
	struct elf_cache *cache;
	struct elf_mapping mapping; /* registered while map is */
};

/*
 * A compressed section may claim any uncompressed size in its header. Deflate
 * expands at most ~1032:1, and no real .debug_frame approaches 1 GiB, so
 * anything beyond either bound is a corrupt or hostile file.
 */
#define ELF_INFLATE_MAX (1ULL << 30)
#define ELF_INFLATE_RATIO 1032
/* The vDSO is a few pages: a larger claim is a corrupt header, not an image to read. */
#define ELF_VDSO_MAX (1ULL << 20)

#define elf_complain(ef, ...)                     \
	do {                                      \
		if ((ef)->flags & ELF_OPEN_QUIET) \
			pr_debug(__VA_ARGS__);    \
		else                              \
			pr_err(__VA_ARGS__);      \
	} while (0)

static bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static const char *machine_name(int machine)
{
	switch (machine) {
	case EM_386:
		return "i386";
	case EM_ARM:
		return "arm";
	case EM_PPC64:
		return "ppc64";
	case EM_S390:
		return "s390";
	case EM_RISCV:
		return "riscv";
	case EM_MIPS:
		return "mips";
	default:
		return "unknown";
	}
}

static int check_ident(struct elf_file *ef)
{
	const uint8_t *id = ef->image;

	if (ef->size < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0) {
		elf_complain(ef, "%s: not an ELF file", ef->path);
		return -ENOEXEC;
	}
	if (ef->size < EI_NIDENT) {
		elf_complain(ef, "%s: truncated ELF file (identification bytes past the end)",
			     ef->path);
		return -EINVAL;
	}
	if (id[EI_CLASS] == ELFCLASS32) {
		elf_complain(ef, "%s: 32-bit ELF file; only ELF64 files are supported", ef->path);
		return -ENOTSUP;
	}
	if (id[EI_CLASS] != ELFCLASS64) {
		elf_complain(ef, "%s: bad ELF class %u", ef->path, id[EI_CLASS]);
		return -EINVAL;
	}
	if (id[EI_DATA] != ELFDATA2LSB) {
		elf_complain(ef,
			     "%s: big-endian or unknown byte order; only little-endian "
			     "x86_64 and aarch64 files are supported",
			     ef->path);
		return -ENOTSUP;
	}
	if (ef->size < sizeof(Elf64_Ehdr)) {
		elf_complain(ef, "%s: truncated ELF file (header past the end)", ef->path);
		return -EINVAL;
	}
	return 0;
}

/* Section count, honouring the extended numbering kept in section 0. */
static int check_sections(struct elf_file *ef, const Elf64_Ehdr *eh)
{
	Elf64_Shdr sh0;
	uint64_t shnum = eh->e_shnum, shstrndx = eh->e_shstrndx;

	if (eh->e_shoff == 0) {
		ef->shnum = 0;
		ef->shstrndx = 0;
		return 0;
	}
	if (eh->e_shentsize != sizeof(Elf64_Shdr)) {
		elf_complain(ef, "%s: bad section header size %u", ef->path, eh->e_shentsize);
		return -EINVAL;
	}
	if (!range_ok(eh->e_shoff, sizeof(Elf64_Shdr), ef->size)) {
		elf_complain(ef, "%s: truncated ELF file (section headers past the end)", ef->path);
		return -EINVAL;
	}
	/* Copied: a buffer from elf_file__open_mem() need not be aligned. */
	memcpy(&sh0, ef->image + eh->e_shoff, sizeof(sh0));
	if (shnum == 0)
		shnum = sh0.sh_size;
	if (shstrndx == SHN_XINDEX)
		shstrndx = sh0.sh_link;
	if (shnum > (ef->size - eh->e_shoff) / sizeof(Elf64_Shdr)) {
		elf_complain(ef, "%s: truncated ELF file (section headers past the end)", ef->path);
		return -EINVAL;
	}
	ef->shnum = shnum;
	ef->shstrndx = shstrndx;
	return 0;
}

static int check_segments(struct elf_file *ef, const Elf64_Ehdr *eh)
{
	if (eh->e_phoff == 0 || eh->e_phnum == 0)
		return 0;
	if (eh->e_phentsize != sizeof(Elf64_Phdr)) {
		elf_complain(ef, "%s: bad program header size %u", ef->path, eh->e_phentsize);
		return -EINVAL;
	}
	if (eh->e_phnum == PN_XNUM ||
	    !range_ok(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), ef->size)) {
		elf_complain(ef, "%s: truncated ELF file (program headers past the end)", ef->path);
		return -EINVAL;
	}
	return 0;
}

/* The section name table must lie in the file and end with a NUL. */
static int check_shstrtab(struct elf_file *ef)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	/* A file may have sections without names; then no section can be found by name. */
	if (ef->shnum == 0 || ef->shstrndx == SHN_UNDEF)
		return 0;
	scn = ef->shstrndx < ef->shnum ? elf_getscn(ef->elf, ef->shstrndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB || sh.sh_size == 0) {
		elf_complain(ef, "%s: bad section name string table (index %zu)", ef->path,
			     ef->shstrndx);
		return -EINVAL;
	}
	if (!range_ok(sh.sh_offset, sh.sh_size, ef->size)) {
		elf_complain(ef, "%s: section name string table lies past the end of the file",
			     ef->path);
		return -EINVAL;
	}
	if (ef->image[sh.sh_offset + sh.sh_size - 1] != '\0') {
		elf_complain(ef, "%s: section name string table is not NUL-terminated", ef->path);
		return -EINVAL;
	}
	return 0;
}

static const char *section_name(const struct elf_file *ef, const GElf_Shdr *sh)
{
	return elf_strptr(ef->elf, ef->shstrndx, sh->sh_name);
}

/* Every section with contents must lie inside the file. */
static int check_section_bounds(struct elf_file *ef)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			elf_complain(ef, "%s: cannot read section header %zu: %s", ef->path,
				     elf_ndxscn(scn), elf_errmsg(-1));
			return -EINVAL;
		}
		if (sh.sh_type == SHT_NOBITS || range_ok(sh.sh_offset, sh.sh_size, ef->size))
			continue;
		name = ef->shstrndx ? section_name(ef, &sh) : NULL;
		elf_complain(ef,
			     "%s: truncated ELF file (section %s [%zu] lies past the end: "
			     "offset %#llx, size %#llx, file size %#zx)",
			     ef->path, name ? name : "?", elf_ndxscn(scn),
			     (unsigned long long)sh.sh_offset, (unsigned long long)sh.sh_size,
			     ef->size);
		return -EINVAL;
	}
	return 0;
}

static Elf_Scn *find_section(const struct elf_file *ef, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NULL)
			continue;
		n = section_name(ef, sh);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * Walks the notes in [p, p+len) looking for NT_GNU_BUILD_ID. Every length
 * is checked against what is left, so a corrupt note ends the walk.
 */
static void scan_notes(struct elf_file *ef, const uint8_t *p, size_t len, size_t align)
{
	size_t off = 0;

	while (len - off >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t name_off, desc_off, next;

		memcpy(&nh, p + off, sizeof(nh));
		name_off = off + sizeof(nh);
		if (nh.n_namesz > len - name_off)
			return;
		desc_off = align_up(name_off + nh.n_namesz, align);
		if (desc_off > len || nh.n_descsz > len - desc_off)
			return;
		next = align_up(desc_off + nh.n_descsz, align);
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + name_off, "GNU", 4) == 0 && nh.n_descsz > 0 &&
		    nh.n_descsz <= ELF_BUILD_ID_MAX) {
			memcpy(ef->build_id, p + desc_off, nh.n_descsz);
			ef->build_id_len = nh.n_descsz;
			return;
		}
		if (next <= off || next > len)
			return;
		off = next;
	}
}

static size_t note_align(uint64_t align)
{
	return align == 8 ? 8 : 4;
}

static void read_build_id(struct elf_file *ef)
{
	size_t phnum = 0;
	Elf_Scn *scn = NULL;

	if (elf_getphdrnum(ef->elf, &phnum) == 0) {
		for (size_t i = 0; i < phnum && !ef->build_id_len; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(ef->elf, i, &ph) || ph.p_type != PT_NOTE)
				continue;
			if (!range_ok(ph.p_offset, ph.p_filesz, ef->size))
				continue;
			scan_notes(ef, ef->image + ph.p_offset, ph.p_filesz,
				   note_align(ph.p_align));
		}
	}
	/* Separate debug files keep the notes as sections without a PT_NOTE. */
	while (!ef->build_id_len && (scn = elf_nextscn(ef->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (!range_ok(sh.sh_offset, sh.sh_size, ef->size))
			continue;
		scan_notes(ef, ef->image + sh.sh_offset, sh.sh_size, note_align(sh.sh_addralign));
	}
}

/* .gnu_debuglink: a NUL-terminated name, padding to 4 bytes, a CRC32. */
static int read_debuglink(struct elf_file *ef)
{
	struct elf_section sec;
	size_t name_len, crc_off;
	int err;

	err = elf_file__section(ef, ".gnu_debuglink", &sec);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	name_len = strnlen((const char *)sec.data, sec.size);
	crc_off = align_up(name_len + 1, 4);
	if (name_len == 0 || name_len == sec.size || crc_off > sec.size || sec.size - crc_off < 4 ||
	    memchr(sec.data, '/', name_len)) {
		elf_complain(ef, "%s: malformed .gnu_debuglink section, ignored", ef->path);
		return 0;
	}
	ef->debuglink = strndup((const char *)sec.data, name_len);
	if (!ef->debuglink)
		return -ENOMEM;
	memcpy(&ef->debuglink_crc, sec.data + crc_off, 4);
	return 0;
}

static int elf_file__init(struct elf_file *ef)
{
	const Elf64_Ehdr *eh = &ef->ehdr;
	int err;

	err = check_ident(ef);
	if (err)
		return err;
	memcpy(&ef->ehdr, ef->image, sizeof(ef->ehdr));
	if (eh->e_machine != EM_X86_64 && eh->e_machine != EM_AARCH64) {
		elf_complain(ef, "%s: machine %u (%s) is not supported; only x86_64 and aarch64",
			     ef->path, eh->e_machine, machine_name(eh->e_machine));
		return -ENOTSUP;
	}
	ef->machine = eh->e_machine;
	ef->type = eh->e_type;
	err = check_sections(ef, eh);
	if (!err)
		err = check_segments(ef, eh);
	if (err)
		return err;

	elf_version(EV_CURRENT);
	/* libelf writes to the image only for updates (elf_update, elf_compress): never here. */
	ef->elf = elf_memory((char *)ef->image, ef->size);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		elf_complain(ef, "%s: libelf cannot read it: %s", ef->path, elf_errmsg(-1));
		return -EINVAL;
	}
	err = check_shstrtab(ef);
	if (!err)
		err = check_section_bounds(ef);
	if (err)
		return err;
	read_build_id(ef);
	return read_debuglink(ef);
}

static struct elf_file *elf_file__alloc(const char *name, unsigned int flags)
{
	struct elf_file *ef = calloc(1, sizeof(*ef));

	if (!ef)
		return NULL;
	ef->flags = flags;
	ef->path = strdup(name);
	ef->cache = calloc(1, sizeof(*ef->cache));
	if (!ef->path || !ef->cache) {
		elf_file__free(ef);
		errno = ENOMEM;
		return NULL;
	}
	return ef;
}

/* A regular, non-empty file that fits in memory: its size, or -errno after a message. */
static int check_file(struct elf_file *ef, int fd, size_t *size)
{
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0) {
		err = errno;
		elf_complain(ef, "cannot stat %s: %s", ef->path, strerror(err));
		return -err;
	}
	if (S_ISDIR(st.st_mode)) {
		elf_complain(ef, "%s: is a directory, not an ELF file", ef->path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		elf_complain(ef, "%s: not a regular file", ef->path);
		return -EINVAL;
	}
	if (st.st_size == 0) {
		elf_complain(ef, "%s: empty file, not an ELF file", ef->path);
		return -ENOEXEC;
	}
	if ((uint64_t)st.st_size > ELF_FILE_MAX) {
		elf_complain(ef, "%s: %lld bytes, more than the %llu GiB unwprof reads", ef->path,
			     (long long)st.st_size, ELF_FILE_MAX >> 30);
		return -EFBIG;
	}
	*size = st.st_size;
	return 0;
}

/*
 * The file mappings of open elf_files, newest first, searched by the SIGBUS
 * handler without locks: it only follows elf_mappings and ->next, and every
 * change it can observe is one pointer store (publishing a node whose fields
 * are already set, or unlinking one), ordered by release/acquire. SIGBUS from
 * a mapped file is synchronous: it interrupts the thread that touches the
 * image, and the registry code touches no image, so the handler never runs in
 * the middle of a change. A node is unlinked before its pages are unmapped
 * and its elf_file is freed. This relies on elf_files being opened, read and
 * freed by one thread, as they are: a handler running in another thread
 * could otherwise still be reading a node being freed.
 */
static struct elf_mapping *elf_mappings;
static struct sigaction elf_sigbus_prev; /* the disposition we replaced */
static size_t elf_page_size;

static void elf_mapping__register(struct elf_mapping *m, void *start, size_t len)
{
	m->start = (uintptr_t)start;
	m->len = (len + elf_page_size - 1) & ~(elf_page_size - 1);
	m->truncated = 0;
	m->next = elf_mappings;
	m->pprev = &elf_mappings;
	if (m->next)
		m->next->pprev = &m->next;
	__atomic_store_n(&elf_mappings, m, __ATOMIC_RELEASE);
}

static void elf_mapping__unregister(struct elf_mapping *m)
{
	if (!m->pprev)
		return;
	__atomic_store_n(m->pprev, m->next, __ATOMIC_RELEASE);
	if (m->next)
		m->next->pprev = m->pprev;
	m->pprev = NULL;
}

/*
 * A read past the end of a truncated file: put a page of zeros over the
 * faulting page, so the read gives zeros when the access runs again.
 */
static bool elf_sigbus_repair(const siginfo_t *si)
{
	uintptr_t addr = (uintptr_t)si->si_addr;
	struct elf_mapping *m;

	if (si->si_code != BUS_ADRERR)
		return false;
	for (m = __atomic_load_n(&elf_mappings, __ATOMIC_ACQUIRE); m;
	     m = __atomic_load_n(&m->next, __ATOMIC_ACQUIRE)) {
		void *page;

		if (addr - m->start >= m->len)
			continue;
		page = (void *)(addr & ~(uintptr_t)(elf_page_size - 1));
		if (mmap(page, elf_page_size, PROT_READ | PROT_WRITE,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return false;
		m->truncated = 1;
		return true;
	}
	return false;
}

/* Raised by the faulting access itself, so returning runs it (and faults) again. */
static bool sigbus_repeats(const siginfo_t *si)
{
	switch (si->si_code) {
	case BUS_ADRALN:
	case BUS_ADRERR:
	case BUS_OBJERR:
	case BUS_MCEERR_AR:
		return true;
	default:
		return false;
	}
}

/*
 * Any other SIGBUS is not ours to hide: it goes to the previous handler
 * (a sanitizer's, a caller's), or the previous disposition is put back so the
 * process dies of it as it would have without us.
 */
static void elf_sigbus_forward(int sig, siginfo_t *si, void *ucontext)
{
	const struct sigaction *prev = &elf_sigbus_prev;

	if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		if (prev->sa_flags & SA_SIGINFO)
			prev->sa_sigaction(sig, si, ucontext);
		else
			prev->sa_handler(sig);
		return;
	}
	sigaction(SIGBUS, prev, NULL);
	/* Sent by kill() or an asynchronous machine check: it will not come back by itself. */
	if (!sigbus_repeats(si))
		raise(sig);
}

/* Only async-signal-safe work: mmap() (a plain system call), sigaction(), raise(). */
static void elf_sigbus(int sig, siginfo_t *si, void *ucontext)
{
	int saved_errno = errno;

	if (!elf_sigbus_repair(si))
		elf_sigbus_forward(sig, si, ucontext);
	errno = saved_errno;
}

/*
 * Once, before the first file is mapped. Read back: a sanitizer told to keep
 * SIGBUS to itself (ASAN_OPTIONS=handle_sigbus=2) ignores it silently.
 */
static void elf_sigbus_install(void)
{
	static bool installed;
	struct sigaction sa = { .sa_sigaction = elf_sigbus, .sa_flags = SA_SIGINFO }, now;

	if (installed)
		return;
	installed = true;
	/* Read here: sysconf() is not async-signal-safe. */
	elf_page_size = sysconf(_SC_PAGESIZE);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &elf_sigbus_prev) < 0 || sigaction(SIGBUS, NULL, &now) < 0 ||
	    now.sa_sigaction != elf_sigbus)
		pr_warn("cannot install a SIGBUS handler: a file truncated while unwprof reads "
			"it will crash unwprof");
}

static int map_fd(struct elf_file *ef, int fd, size_t size)
{
	elf_sigbus_install();
	/* Private and writable: nothing writes, but a stray write cannot reach the file. */
	ef->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (ef->map == MAP_FAILED) {
		int err = errno;

		ef->map = NULL;
		elf_complain(ef, "cannot map %s: %s", ef->path, strerror(err));
		return -err;
	}
	elf_mapping__register(&ef->mapping, ef->map, size);
	ef->image = ef->map;
	ef->size = size;
	return 0;
}

static int load_fd(struct elf_file *ef, int fd)
{
	size_t size = 0;
	int err;

	err = check_file(ef, fd, &size);
	if (!err)
		err = map_fd(ef, fd, size);
	return err;
}

static struct elf_file *elf_file__finish(struct elf_file *ef, int err)
{
	if (!err)
		err = elf_file__init(ef);
	if (err) {
		elf_file__free(ef);
		errno = -err;
		return NULL;
	}
	return ef;
}

struct elf_file *elf_file__open_flags(const char *path, unsigned int flags)
{
	struct elf_file *ef;
	int fd, err;

	ef = elf_file__alloc(path, flags);
	if (!ef)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		elf_complain(ef, "cannot open %s: %s", path, strerror(errno));
		return elf_file__finish(ef, err);
	}
	err = load_fd(ef, fd);
	close(fd);
	return elf_file__finish(ef, err);
}

struct elf_file *elf_file__open_fd(int fd, const char *name, unsigned int flags)
{
	struct elf_file *ef = elf_file__alloc(name, flags);

	if (!ef)
		return NULL;
	return elf_file__finish(ef, load_fd(ef, fd));
}

struct elf_file *elf_file__open(const char *path)
{
	return elf_file__open_flags(path, 0);
}

struct elf_file *elf_file__open_mem(const void *buf, size_t size, const char *name)
{
	struct elf_file *ef;

	ef = elf_file__alloc(name, 0);
	if (!ef)
		return NULL;
	ef->image = buf;
	ef->size = size;
	return elf_file__finish(ef, 0);
}

struct elf_file *elf_file__open_vdso(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	uint64_t size;

	if (!eh) {
		pr_debug("[vdso]: the kernel maps none into unwprof");
		errno = ENOENT;
		return NULL;
	}
	/*
	 * The mapping holds the whole image, which ends with its section
	 * headers: they say how far it may be read.
	 */
	size = (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff > ELF_VDSO_MAX ||
	    size > ELF_VDSO_MAX - eh->e_shoff) {
		pr_warn("[vdso]: not an ELF image of at most %llu KiB", ELF_VDSO_MAX >> 10);
		errno = EINVAL;
		return NULL;
	}
	return elf_file__open_mem(eh, eh->e_shoff + size, "[vdso]");
}

void elf_file__free(struct elf_file *ef)
{
	struct elf_inflated *inf, *next;

	if (!ef)
		return;
	if (ef->cache) {
		for (inf = ef->cache->inflated; inf; inf = next) {
			next = inf->next;
			free(inf->data);
			free(inf);
		}
		free(ef->cache);
	}
	if (ef->elf)
		elf_end(ef->elf);
	/*
	 * Reported here, where every file passes exactly once, and not in the
	 * handler, where printing is not safe.
	 */
	if (ef->mapping.truncated)
		pr_warn("%s: changed while being read; it read as zeros past its new end, "
			"so what unwprof took from it (unwind table, symbols) may be wrong",
			ef->path);
	elf_mapping__unregister(&ef->mapping);
	if (ef->map)
		munmap(ef->map, ef->size);
	free(ef->debuglink);
	free(ef->path);
	free(ef);
}

const char *elf_file__path(const struct elf_file *ef)
{
	return ef->path;
}

int elf_file__machine(const struct elf_file *ef)
{
	return ef->machine;
}

int elf_file__type(const struct elf_file *ef)
{
	return ef->type;
}

uint64_t elf_file__entry(const struct elf_file *ef)
{
	return ef->ehdr.e_entry;
}

bool elf_file__truncated(const struct elf_file *ef)
{
	return ef->mapping.truncated;
}

/* Whether [data, data + size) is non-empty and inside the file's mapping (not a copy). */
static bool in_mapping(const struct elf_file *ef, const void *data, size_t size)
{
	uintptr_t map, lo = (uintptr_t)data, hi = lo + size;

	if (!ef || !ef->map || !size)
		return false;
	map = (uintptr_t)ef->map;
	return lo >= map && hi <= map + ef->size && hi > lo;
}

void elf_file__prefault(const struct elf_file *ef, const void *data, size_t size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)data & ~(page - 1);

	if (!in_mapping(ef, data, size))
		return;
	/* Before Linux 5.14, EINVAL: the pages come one fault at a time, as without it. */
	madvise((void *)lo, (uintptr_t)data + size - lo, MADV_POPULATE_READ);
}

void elf_file__release(const struct elf_file *ef, const void *data, size_t size)
{
	uintptr_t lo, hi, page = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!in_mapping(ef, data, size))
		return;
	/* whole pages only: the ones at the ends may hold other sections */
	lo = ((uintptr_t)data + page - 1) & ~(page - 1);
	hi = ((uintptr_t)data + size) & ~(page - 1);
	if (lo < hi)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

const void *elf_file__image(const struct elf_file *ef, size_t *size)
{
	*size = ef->size;
	return ef->image;
}

/* A zlib header (RFC 1950): deflate with a window of at most 32 KiB, no preset dictionary. */
static bool zlib_header_ok(const uint8_t *src, size_t src_len)
{
	return src_len >= 2 && (src[0] & 0x0f) == 8 && (src[0] >> 4) <= 7 && !(src[1] & 0x20) &&
	       ((unsigned int)src[0] << 8 | src[1]) % 31 == 0;
}

/*
 * The zlib stream at src, inflated to exactly dst_len bytes. Its deflate data
 * is inflated raw, past the header and without the Adler-32 of the end:
 * computing it was an eighth of the time to inflate libc6-dbg's DWARF, and
 * what is inflated is checked as untrusted input anyway.
 */
static int inflate_into(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	z_stream zs = {};
	int ret, err = 0;

	if (!zlib_header_ok(src, src_len))
		return -EINVAL;
	if (inflateInit2(&zs, -15) != Z_OK)
		return -ENOMEM;
	src += 2;
	src_len -= 2;
	zs.next_in = (Bytef *)src;
	zs.next_out = dst;
	/* Fed in slices: z_stream counts are 32-bit. */
	do {
		size_t in_left = src_len - (size_t)(zs.next_in - src);
		size_t out_left = dst_len - (size_t)(zs.next_out - dst);

		zs.avail_in = in_left > UINT32_MAX ? UINT32_MAX : in_left;
		zs.avail_out = out_left > UINT32_MAX ? UINT32_MAX : out_left;
		ret = inflate(&zs, Z_FINISH);
	} while (ret == Z_BUF_ERROR && zs.avail_out == 0 && (size_t)(zs.next_out - dst) < dst_len);
	if (ret != Z_STREAM_END || (size_t)(zs.next_out - dst) != dst_len)
		err = -EINVAL;
	inflateEnd(&zs);
	return err;
}

/*
 * Decompresses an SHF_COMPRESSED section (ELFCOMPRESS_ZLIB) once and keeps the
 * result with the file.
 */
static int section_inflate(const struct elf_file *ef, size_t index, const char *name,
			   struct elf_section *sec)
{
	struct elf_inflated *inf;
	Elf64_Chdr ch;
	uint8_t *out = NULL;
	int err;

	for (inf = ef->cache->inflated; inf; inf = inf->next) {
		if (inf->index == index) {
			sec->data = inf->data;
			sec->size = inf->size;
			return 0;
		}
	}
	if (sec->size < sizeof(ch)) {
		elf_complain(ef, "%s: compressed section %s is shorter than its header", ef->path,
			     name);
		return -EINVAL;
	}
	memcpy(&ch, sec->data, sizeof(ch));
	if (ch.ch_type != ELFCOMPRESS_ZLIB) {
		elf_complain(ef, "%s: section %s uses compression type %u; only zlib is supported",
			     ef->path, name, ch.ch_type);
		return -ENOTSUP;
	}
	if (ch.ch_size == 0 || ch.ch_size > ELF_INFLATE_MAX ||
	    ch.ch_size / ELF_INFLATE_RATIO > sec->size) {
		elf_complain(ef, "%s: compressed section %s claims an implausible size %llu",
			     ef->path, name, (unsigned long long)ch.ch_size);
		return -EINVAL;
	}
	inf = calloc(1, sizeof(*inf));
	out = malloc(ch.ch_size);
	if (!inf || !out) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = inflate_into(sec->data + sizeof(ch), sec->size - sizeof(ch), out, ch.ch_size);
	if (err) {
		elf_complain(ef,
			     "%s: cannot decompress section %s: corrupt zlib data or a "
			     "wrong size in its header",
			     ef->path, name);
		goto cleanup;
	}
	inf->index = index;
	inf->data = out;
	inf->size = ch.ch_size;
	inf->next = ef->cache->inflated;
	ef->cache->inflated = inf;
	/* the compressed bytes are not read again: their pages stop counting as ours */
	elf_file__release(ef, sec->data, sec->size);
	sec->data = out;
	sec->size = ch.ch_size;
	return 0;
cleanup:
	free(out);
	free(inf);
	return err;
}

int elf_file__section(const struct elf_file *ef, const char *name, struct elf_section *sec)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	scn = find_section(ef, name, &sh);
	if (!scn || sh.sh_type == SHT_NOBITS)
		return -ENOENT;
	if (!range_ok(sh.sh_offset, sh.sh_size, ef->size)) {
		elf_complain(ef,
			     "%s: section %s lies past the end of the file (offset %#llx, "
			     "size %#llx, file size %#zx)",
			     ef->path, name, (unsigned long long)sh.sh_offset,
			     (unsigned long long)sh.sh_size, ef->size);
		return -EINVAL;
	}
	sec->data = ef->image + sh.sh_offset;
	sec->size = sh.sh_size;
	sec->addr = sh.sh_addr;
	sec->offset = sh.sh_offset;
	if (sh.sh_flags & SHF_COMPRESSED)
		return section_inflate(ef, elf_ndxscn(scn), name, sec);
	return 0;
}

size_t elf_file__build_id(const struct elf_file *ef, uint8_t *buf)
{
	memcpy(buf, ef->build_id, ef->build_id_len);
	return ef->build_id_len;
}

const char *elf_file__debuglink(const struct elf_file *ef, uint32_t *crc)
{
	if (!ef->debuglink)
		return NULL;
	if (crc)
		*crc = ef->debuglink_crc;
	return ef->debuglink;
}

size_t elf_file__load_segments(const struct elf_file *ef, struct elf_load_segment *segs, size_t max)
{
	size_t phnum = 0, n = 0;

	if (elf_getphdrnum(ef->elf, &phnum) != 0)
		return 0;
	for (size_t i = 0; i < phnum && n < max; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(ef->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		segs[n].vaddr = ph.p_vaddr;
		segs[n].memsz = ph.p_memsz;
		segs[n].offset = ph.p_offset;
		segs[n].filesz = ph.p_filesz;
		segs[n].flags = ph.p_flags;
		n++;
	}
	return n;
}

size_t elf_file__code_sections(const struct elf_file *ef, struct elf_range *ranges, size_t max)
{
	const uint64_t want = SHF_ALLOC | SHF_EXECINSTR;
	Elf_Scn *scn = NULL;
	size_t n = 0;
	GElf_Shdr sh;

	while (n < max && (scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & want) != want || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		ranges[n++] = (struct elf_range){ sh.sh_addr, sh.sh_addr + sh.sh_size };
	}
	return n;
}

/* Index in .dynsym of the symbol named name, or 0. */
static size_t dynsym_index(const struct elf_section *dynsym, const struct elf_section *dynstr,
			   const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 1; i < dynsym->size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;

		memcpy(&s, dynsym->data + i * sizeof(s), sizeof(s));
		if (s.st_name < dynstr->size && dynstr->size - s.st_name > len &&
		    !memcmp(dynstr->data + s.st_name, name, len + 1))
			return i;
	}
	return 0;
}

/* The TLS slots of symbol sym among the relocations of rela (elf_file__tls_slots). */
static void tls_slots_in(const struct elf_file *ef, const struct elf_section *rela, size_t sym,
			 struct elf_tls_slots *out)
{
	bool a64 = elf_file__machine(ef) == EM_AARCH64;
	uint32_t tpoff = a64 ? R_AARCH64_TLS_TPREL : R_X86_64_TPOFF64;
	uint32_t dtpmod = a64 ? R_AARCH64_TLS_DTPMOD : R_X86_64_DTPMOD64;

	for (size_t i = 0; i < rela->size / sizeof(Elf64_Rela); i++) {
		uint32_t type;
		Elf64_Rela r;

		memcpy(&r, rela->data + i * sizeof(r), sizeof(r));
		if (ELF64_R_SYM(r.r_info) != sym || !elf_file__vaddr_mapped(ef, r.r_offset, 8))
			continue;
		type = (uint32_t)ELF64_R_TYPE(r.r_info);
		if (type == tpoff && r.r_addend == 0 && !out->tpoff)
			out->tpoff = r.r_offset;
		if (type == dtpmod && !out->dtpmod)
			out->dtpmod = r.r_offset;
		if (a64 && type == R_AARCH64_TLSDESC && r.r_addend == 0 && !out->tlsdesc &&
		    elf_file__vaddr_mapped(ef, r.r_offset, 16))
			out->tlsdesc = r.r_offset;
	}
}

void elf_file__tls_slots(const struct elf_file *ef, const char *name, struct elf_tls_slots *out)
{
	/* aarch64's linkers put TLS descriptors with the PLT's relocations */
	static const char *const relas[] = { ".rela.dyn", ".rela.plt" };
	struct elf_section rela, dynsym, dynstr;
	size_t sym;

	*out = (struct elf_tls_slots){ 0 };
	if (elf_file__section(ef, ".dynsym", &dynsym) || elf_file__section(ef, ".dynstr", &dynstr))
		return;
	sym = dynsym_index(&dynsym, &dynstr, name);
	for (size_t i = 0; sym && i < ARRAY_SIZE(relas); i++)
		if (!elf_file__section(ef, relas[i], &rela) && rela.size % sizeof(Elf64_Rela) == 0)
			tls_slots_in(ef, &rela, sym, out);
}

uint32_t elf_file__crc32(const struct elf_file *ef)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	size_t off = 0;

	/* crc32() takes a 32-bit length. */
	while (off < ef->size) {
		size_t n = ef->size - off > (1U << 30) ? (1U << 30) : ef->size - off;

		crc = crc32(crc, ef->image + off, n);
		off += n;
	}
	return crc;
}

bool elf_file__debug_matches(const struct elf_file *ef, const struct elf_file *debug)
{
	if (ef->build_id_len)
		return debug->build_id_len == ef->build_id_len &&
		       memcmp(debug->build_id, ef->build_id, ef->build_id_len) == 0;
	if (ef->debuglink)
		return elf_file__crc32(debug) == ef->debuglink_crc;
	return false;
}

/* The bytes at ELF virtual address vaddr, when the file holds all len of them. */
const uint8_t *elf_file__vaddr_bytes(const struct elf_file *ef, uint64_t vaddr, size_t len)
{
	struct elf_load_segment segs[16];
	size_t n = elf_file__load_segments(ef, segs, ARRAY_SIZE(segs)), size;
	const uint8_t *image = elf_file__image(ef, &size);

	if (!image)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct elf_load_segment *s = &segs[i];
		uint64_t off;

		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz ||
		    len > s->filesz - (vaddr - s->vaddr))
			continue;
		off = s->offset + (vaddr - s->vaddr);
		if (off > size || len > size - off)
			return NULL;
		return image + off;
	}
	return NULL;
}

/* Whether [vaddr, vaddr + len) is in the memory of a PT_LOAD segment (file or zero-filled). */
bool elf_file__vaddr_mapped(const struct elf_file *ef, uint64_t vaddr, uint64_t len)
{
	struct elf_load_segment segs[16];
	size_t n = elf_file__load_segments(ef, segs, ARRAY_SIZE(segs));

	for (size_t i = 0; i < n; i++) {
		if (vaddr >= segs[i].vaddr && vaddr - segs[i].vaddr < segs[i].memsz &&
		    len <= segs[i].memsz - (vaddr - segs[i].vaddr))
			return true;
	}
	return false;
}

/* A NUL-terminated string of at most max bytes at vaddr, or NULL. */
const char *elf_file__vaddr_string(const struct elf_file *ef, uint64_t vaddr, size_t max)
{
	for (size_t len = 1; len <= max; len++) {
		const uint8_t *p = elf_file__vaddr_bytes(ef, vaddr, len);

		if (!p)
			return NULL;
		if (p[len - 1] == '\0')
			return (const char *)p;
	}
	return NULL;
}

/* A name's first two bytes, as one number (its first alone when that ends it); -1: not ended in left. */
static int name_prefix(const char *name, size_t left)
{
	if (!name[0])
		return 0;
	if (left < 2)
		return -1;
	return (unsigned char)name[0] | (unsigned char)name[1] << 8;
}

/* A set of two-byte prefixes: a bit each. */
struct prefix_set {
	uint64_t bits[(1 << 16) / 64];
};

static bool prefix_set__has(const struct prefix_set *set, int prefix)
{
	return prefix >= 0 && (set->bits[prefix / 64] >> (prefix % 64) & 1);
}

/*
 * Fills the entries of qs found in one symbol table; the first of a name
 * wins. A symbol is compared only when its first two bytes are those of a
 * query's: a C++ library has tens of thousands of names, all _Z..., and a
 * runtime asks for a dozen.
 */
static int find_symbols_in(const struct elf_file *ef, const char *symtab, const char *strtab,
			   struct elf_symbol_query *qs, size_t n, const struct prefix_set *wanted)
{
	struct elf_section st, str;

	if (elf_file__section(ef, symtab, &st) || elf_file__section(ef, strtab, &str))
		return 0;
	if (st.size % sizeof(Elf64_Sym))
		return -EINVAL;
	/* Every symbol is read, and the first bytes of every name: all of both, in order. */
	elf_file__prefault(ef, st.data, st.size);
	elf_file__prefault(ef, str.data, str.size);
	for (size_t i = 0; i < st.size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym s;
		const char *name;
		size_t left;

		memcpy(&s, st.data + i * sizeof(s), sizeof(s));
		if (s.st_shndx == SHN_UNDEF || s.st_name >= str.size)
			continue;
		name = (const char *)str.data + s.st_name;
		left = str.size - s.st_name;
		if (!prefix_set__has(wanted, name_prefix(name, left)))
			continue;
		for (size_t k = 0; k < n; k++) {
			size_t len = strlen(qs[k].name);

			if (qs[k].found || ELF64_ST_TYPE(s.st_info) != qs[k].type || left <= len ||
			    memcmp(name, qs[k].name, len + 1))
				continue;
			qs[k].value = s.st_value;
			qs[k].size = s.st_size;
			qs[k].found = true;
		}
	}
	return 0;
}

/*
 * The dynamic symbols' GNU hash table (.gnu.hash), which ld.so looks names
 * up in: a Bloom filter, buckets of symbol indexes, and for each hashed
 * symbol its name's hash, the last of a bucket's chain marked in bit 0.
 */
struct gnu_hash {
	uint32_t nbuckets, symoffset, bloom_words, bloom_shift;
	const uint8_t *bloom, *buckets, *chain;
	size_t nsyms; /* of .dynsym */
};

static uint32_t read_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t gnu_hash_of(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = h * 33 + *c;
	return h;
}

/* Whether sec holds a GNU hash table of a symbol table of nsyms symbols: 0, or -EINVAL. */
static int gnu_hash__open(struct gnu_hash *h, const struct elf_section *sec, size_t nsyms)
{
	uint64_t need;

	if (sec->size < 16)
		return -EINVAL;
	h->nbuckets = read_u32(sec->data);
	h->symoffset = read_u32(sec->data + 4);
	h->bloom_words = read_u32(sec->data + 8);
	h->bloom_shift = read_u32(sec->data + 12);
	need = 16 + (uint64_t)h->bloom_words * 8 + (uint64_t)h->nbuckets * 4;
	if (!h->nbuckets || !h->bloom_words || h->bloom_shift >= 32 || h->symoffset > nsyms ||
	    need > sec->size || (sec->size - need) / 4 < nsyms - h->symoffset)
		return -EINVAL;
	h->bloom = sec->data + 16;
	h->buckets = h->bloom + (size_t)h->bloom_words * 8;
	h->chain = h->buckets + (size_t)h->nbuckets * 4;
	h->nsyms = nsyms;
	return 0;
}

/* Whether the Bloom filter lets name, of hash hash, be in the table. */
static bool gnu_hash__may_have(const struct gnu_hash *h, uint32_t hash)
{
	uint64_t word, mask;

	memcpy(&word, h->bloom + (size_t)(hash / 64 % h->bloom_words) * 8, sizeof(word));
	mask = 1ULL << (hash % 64) | 1ULL << ((hash >> h->bloom_shift) % 64);
	return (word & mask) == mask;
}

/*
 * Looks q up in .dynsym (st, str) through h: the symbols of q's bucket in
 * the order of the table, so the first of its name and type wins, as in a
 * scan of the whole table.
 */
static void gnu_hash__find(const struct gnu_hash *h, const struct elf_section *st,
			   const struct elf_section *str, struct elf_symbol_query *q)
{
	uint32_t hash = gnu_hash_of(q->name), i;
	size_t len = strlen(q->name);

	if (!gnu_hash__may_have(h, hash))
		return;
	i = read_u32(h->buckets + (size_t)(hash % h->nbuckets) * 4);
	for (; i >= h->symoffset && i < h->nsyms; i++) {
		uint32_t chained = read_u32(h->chain + (size_t)(i - h->symoffset) * 4);
		Elf64_Sym s;

		memcpy(&s, st->data + (size_t)i * sizeof(s), sizeof(s));
		if ((chained | 1) == (hash | 1) && s.st_shndx != SHN_UNDEF &&
		    ELF64_ST_TYPE(s.st_info) == q->type && s.st_name < str->size &&
		    str->size - s.st_name > len &&
		    !memcmp(str->data + s.st_name, q->name, len + 1)) {
			q->value = s.st_value;
			q->size = s.st_size;
			q->found = true;
			return;
		}
		if (chained & 1)
			return;
	}
}

/*
 * Looks the entries of qs not found yet up in .dynsym through .gnu.hash: a
 * few lookups instead of a scan of a C++ library's tens of thousands of
 * names. -ENOENT when there is no such table, or a broken one: the caller
 * scans then.
 */
static int find_symbols_hashed(const struct elf_file *ef, struct elf_symbol_query *qs, size_t n)
{
	struct elf_section hs, st, str;
	struct gnu_hash h;

	if (elf_file__section(ef, ".gnu.hash", &hs) || elf_file__section(ef, ".dynsym", &st) ||
	    elf_file__section(ef, ".dynstr", &str) || st.size % sizeof(Elf64_Sym) ||
	    gnu_hash__open(&h, &hs, st.size / sizeof(Elf64_Sym)))
		return -ENOENT;
	for (size_t k = 0; k < n; k++)
		if (!qs[k].found)
			gnu_hash__find(&h, &st, &str, &qs[k]);
	return 0;
}

int elf_file__find_symbols(const struct elf_file *ef, struct elf_symbol_query *qs, size_t n)
{
	struct prefix_set *wanted = calloc(1, sizeof(*wanted));
	int err;

	if (!wanted)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		int prefix = name_prefix(qs[k].name, 2);

		wanted->bits[prefix / 64] |= 1ULL << (prefix % 64);
	}
	err = find_symbols_in(ef, ".symtab", ".strtab", qs, n, wanted);
	if (!err && find_symbols_hashed(ef, qs, n) == -ENOENT)
		err = find_symbols_in(ef, ".dynsym", ".dynstr", qs, n, wanted);
	free(wanted);
	return err;
}
