// SPDX-License-Identifier: GPL-2.0-only

// gofuncs ELF: prints "START END NAME" (hex addresses) for each function of
// a Go executable, read from its pclntab with Go's own debug/gosym, so that
// a stripped Go binary (no .symtab, which `go tool nm` needs) can be named
// independently of unwprof. Exit status 1 when ELF has no pclntab.
package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gofuncs ELF")
		os.Exit(64)
	}
	f, err := elf.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofuncs:", err)
		os.Exit(1)
	}
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		fmt.Fprintf(os.Stderr, "gofuncs: %s has no .gopclntab or no .text\n", os.Args[1])
		os.Exit(1)
	}
	data, err := pcln.Data()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofuncs:", err)
		os.Exit(1)
	}
	table, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofuncs:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	for _, fn := range table.Funcs {
		fmt.Fprintf(out, "%x %x %s\n", fn.Entry, fn.End, fn.Name)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gofuncs:", err)
		os.Exit(1)
	}
}
