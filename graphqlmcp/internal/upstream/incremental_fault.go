package upstream

import (
	"errors"
	"fmt"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// fault is what is wrong with an incremental answer: said, in the server's
// words, and, when the words point at something the endpoint wrote (a
// member's value, a path, an id, the start of a part), that quote. The
// endpoint chose those bytes, and may have written them to read as
// instructions: they are never put inside the server's sentence, which
// says "quoted below", but after it, framed as a third party's words
// (mcptool.Untrusted). A fault quotes one thing at most, so that its
// error reads as one sentence and one block.
type fault struct {
	said string
	// what names the quote in the server's words ("the part's data"),
	// and is "" when nothing is quoted.
	what, quote string
}

func (f *fault) Error() string {
	if f.what == "" {
		return f.said
	}
	return f.said + "\n" + mcptool.Untrusted(f.what, f.quote)
}

// faultf is a fault that quotes nothing the endpoint wrote.
func faultf(format string, args ...any) *fault {
	return &fault{said: fmt.Sprintf(format, args...)}
}

// quoting is a fault whose sentence points at quote, bytes of the
// endpoint's bounded by the caller, which what names.
func quoting(what, quote, format string, args ...any) *fault {
	return &fault{said: fmt.Sprintf(format, args...), what: what, quote: quote}
}

// within puts the server's words before err's sentence ("part 2 ",
// "incremental[0]: "), keeping what it quotes after it.
func within(err error, format string, args ...any) *fault {
	var f *fault
	if !errors.As(err, &f) {
		f = &fault{said: err.Error()}
	}
	return &fault{said: fmt.Sprintf(format, args...) + f.said, what: f.what, quote: f.quote}
}

// maxQuotedID and maxQuotedPath bound an id and a path an error quotes:
// the endpoint chose them, and one may be as long as its part.
const (
	maxQuotedID   = 100
	maxQuotedPath = 200
)

// pathFault is a fault whose sentence names path where format's first %s
// is: the root as "the data", which holds nothing the endpoint wrote, any
// other path as "the path quoted below", its steps (names the endpoint
// chose) quoted after the sentence.
func pathFault(path []pathElement, format string, args ...any) *fault {
	if len(path) == 0 {
		return faultf(format, append([]any{"the data"}, args...)...)
	}
	return quoting("the path the part gives", httpx.Snippet([]byte(pathText(path)), maxQuotedPath),
		format, append([]any{"the path quoted below"}, args...)...)
}
