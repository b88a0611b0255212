// SPDX-License-Identifier: GPL-2.0-only

// A Go program whose functions have the shapes Go names in its own way:
// methods on values and pointers, closures, generic instantiations,
// goroutines, deferred calls and interface calls. The go_symbols.py oracle
// builds it with and without symbols and compares the names unwprof gives
// its addresses with go tool addr2line; it is never run by the tests.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

type shape interface {
	area() float64
}

type rect struct{ w, h float64 }

type circle struct{ r float64 }

func (r rect) area() float64 { return r.w * r.h }

func (c *circle) area() float64 { return 3 * c.r * c.r }

type number interface {
	~int | ~int64 | ~float64
}

//go:noinline
func sum[T number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

//go:noinline
func total(shapes []shape) float64 {
	var t float64
	for _, s := range shapes {
		t += s.area()
	}
	return t
}

//go:noinline
func counter() func() int {
	n := 0
	return func() int {
		n++
		return n
	}
}

//go:noinline
func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

//go:noinline
func work(n int) int {
	var wg sync.WaitGroup
	results := make([]int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = i * i
		}(i)
	}
	wg.Wait()
	sort.Ints(results)
	return sum(results)
}

func main() {
	next := counter()
	shapes := []shape{rect{2, 3}, &circle{1}}
	_, err := safeDiv(len(os.Args), 0)
	words := strings.Fields("a b c")
	fmt.Println(total(shapes), sum([]float64{1.5, 2.5}), work(4), next(), next(), err,
		len(words), cgoAdd(1, 2))
}
