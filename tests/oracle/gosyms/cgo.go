// SPDX-License-Identifier: GPL-2.0-only

//go:build cgo

// With cgo, C code is linked before Go's by the external linker: the start
// of .text is then not runtime.text, the base of Go's function offsets.
package main

// static int c_add(int a, int b) { return a + b; }
import "C"

func cgoAdd(a, b int) int { return int(C.c_add(C.int(a), C.int(b))) }
