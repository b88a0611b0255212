// SPDX-License-Identifier: GPL-2.0-only

//go:build !cgo

package main

func cgoAdd(a, b int) int { return a + b }
