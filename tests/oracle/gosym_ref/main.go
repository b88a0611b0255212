// SPDX-License-Identifier: GPL-2.0-only

// gosym_ref names addresses of a Go ELF binary that has its symbols with
// Go's own pclntab reader, debug/gosym: the reference of go_symbols.py
// where go tool addr2line cannot read the table (before Go 1.20 it looks
// for a .gopclntab section only, which a PIE does not have). The table is
// found through the runtime's symbols, runtime.pcheader (or runtime.pclntab)
// to runtime.epclntab, and the text start through runtime.text.
//
// usage: gosym_ref FILE < ADDRESSES   (hex, one a line; prints a name or ? for each)
package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func symbols(f *elf.File) (map[string]uint64, error) {
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	addrs := make(map[string]uint64)
	for _, s := range syms {
		addrs[s.Name] = s.Value
	}
	return addrs, nil
}

// The bytes of the file at virtual addresses [start, end).
func bytesAt(f *elf.File, start, end uint64) ([]byte, error) {
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || start < s.Addr || end > s.Addr+s.Size {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return nil, err
		}
		return data[start-s.Addr : end-s.Addr], nil
	}
	return nil, fmt.Errorf("no section holds 0x%x-0x%x", start, end)
}

func table(path string) (*gosym.Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	addrs, err := symbols(f)
	if err != nil {
		return nil, err
	}
	start, ok := addrs["runtime.pcheader"]
	if !ok {
		start = addrs["runtime.pclntab"]
	}
	end, text := addrs["runtime.epclntab"], addrs["runtime.text"]
	if start == 0 || end <= start || text == 0 {
		return nil, fmt.Errorf("%s: no runtime.pcheader, runtime.epclntab or runtime.text", path)
	}
	data, err := bytesAt(f, start, end)
	if err != nil {
		return nil, err
	}
	return gosym.NewTable(nil, gosym.NewLineTable(data, text))
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gosym_ref FILE < ADDRESSES")
		os.Exit(64)
	}
	tab, err := table(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosym_ref:", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		pc, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(in.Text()), "0x"), 16, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosym_ref: not a hex address:", in.Text())
			os.Exit(1)
		}
		if fn := tab.PCToFunc(pc); fn != nil {
			fmt.Fprintln(out, fn.Name)
		} else {
			fmt.Fprintln(out, "?")
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gosym_ref:", err)
		os.Exit(1)
	}
}
