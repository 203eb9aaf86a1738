package hooksvc

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// maxQuoted is the most bytes of an argument an error quotes back: enough
// to recognise it, never the megabyte that was pasted.
const maxQuoted = 100

// Quote writes a value for an error: quoted, and when longer than
// maxQuoted bytes cut at a character boundary, with its length, so that an
// error's size never follows its input's.
func Quote(v string) string {
	if len(v) <= maxQuoted {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%s… (%d bytes in all)", strconv.Quote(prefix(v)), len(v))
}

// Clip is Quote for a value shown in place, without quotes (a host name).
func Clip(v string) string {
	if len(v) <= maxQuoted {
		return v
	}
	return fmt.Sprintf("%s… (%d bytes in all)", prefix(v), len(v))
}

// prefix is v's first maxQuoted bytes, cut at a character boundary.
func prefix(v string) string {
	cut := min(maxQuoted, len(v))
	for cut > 0 && cut < len(v) && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut]
}
