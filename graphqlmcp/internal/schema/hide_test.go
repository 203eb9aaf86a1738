package schema

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeptDeprecatedLinear: finding the deprecated members the default view
// keeps costs a walk of each default value a few times, however the members
// that keep each other are laid out. A chain of deprecated input fields, each
// kept by the default of the one after it and declared before it, took one
// pass over every default per link: 2,000 links walked 4 million defaults
// (5,000 took 12 s, and a 64 MiB file hours).
func TestKeptDeprecatedLinear(t *testing.T) {
	const links = 2000
	chain := func(broken int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "type Query { f(a: T%d = {n: null}): Int }\ninput T0 { k: Int }\n", links)
		for i := 1; i <= links; i++ {
			if i == broken {
				fmt.Fprintf(&b, "input T%d { k: Int n: T%d @deprecated }\n", i, i-1)
				continue
			}
			fmt.Fprintf(&b, "input T%d { k: Int n: T%d = {n: null} @deprecated }\n", i, i-1)
		}
		return b.String()
	}
	s := fromSDL(t, chain(0))
	if hidden := s.View(false).Hidden; hidden != 0 {
		t.Errorf("%d members hidden, want every link kept", hidden)
	}
	allocs := testing.AllocsPerRun(1, func() { keptDeprecated(s.result, newIndex(s.result)) })
	if allocs > 50*links {
		t.Errorf("%.0f allocations for %d links", allocs, links)
	}
	// Broken at T1000 (no default): T1000.n is kept, T999.n and below are not.
	broken := fromSDL(t, chain(links/2))
	if hidden := broken.View(false).Hidden; hidden != links/2-1 {
		t.Errorf("%d members hidden, want %d", hidden, links/2-1)
	}
	sdl := broken.View(false).SDL
	for _, want := range []string{"input T1000 {\n  k: Int\n  n: T999 @deprecated\n}", "input T999 {\n  k: Int\n}"} {
		if !strings.Contains(sdl, want) {
			t.Errorf("want %q", want)
		}
	}
}

// TestKeptDeprecatedThroughInterfaces: a field an interface shows keeps the
// implementation's deprecated field, through interfaces implementing
// interfaces, and a default of a kept argument keeps what it names.
func TestKeptDeprecatedThroughInterfaces(t *testing.T) {
	s := fromSDL(t, `type Query { a: A }
interface I { f(x: E = OLD): Int }
interface J implements I { f(x: E = OLD @deprecated): Int @deprecated g: Int }
type A implements J & I { f(x: E = OLD @deprecated, y: Int @deprecated): Int @deprecated g: Int h: Int @deprecated }
enum E { NEW OLD @deprecated }
`)
	sdl := s.View(false).SDL
	for _, want := range []string{
		"interface J implements I {\n  f(x: E = OLD @deprecated): Int @deprecated\n",
		"type A implements J & I {\n  f(x: E = OLD @deprecated): Int @deprecated\n  g: Int\n}",
		"enum E {\n  NEW\n  OLD @deprecated\n}",
	} {
		if !strings.Contains(sdl, want) {
			t.Errorf("want %q in\n%s", want, sdl)
		}
	}
	if hidden := s.View(false).Hidden; hidden != 2 {
		t.Errorf("%d hidden, want 2 (A.f's y, A.h)", hidden)
	}
}

// TestKeptDeprecatedDeepInADefault: a default nested deeper than coercion
// follows (kept as written) still keeps the deprecated members it names,
// however deep (down to gqlparser's bound on nesting): the default view
// printed OLD, 70 levels down, with OLD hidden, which no GraphQL
// implementation reads.
func TestKeptDeprecatedDeepInADefault(t *testing.T) {
	const levels = 70
	value := strings.Repeat("{i: ", levels) + "{e: OLD}" + strings.Repeat("}", levels)
	s := fromSDL(t, "type Query { f(a: I = "+value+"): Int }\ninput I { i: I e: E }\nenum E { NEW OLD @deprecated }\n")
	sdl := s.View(false).SDL
	if !strings.Contains(sdl, "f(a: I = "+value+")") || !strings.Contains(sdl, "  OLD @deprecated\n") {
		t.Errorf("the default or OLD is missing:\n%s", sdl)
	}
}
