package replay

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// bodyDelimiter ends a here-doc body; a body holding it as a line gets
// another.
const bodyDelimiter = "HOOKMCP_BODY"

// Curl renders r sent to u as a POSIX shell command running curl, that
// sends the same method, path, query, headers and body bytes. Every word
// is single-quoted. The body goes to curl's standard input
// (--data-binary @-): from a quoted here-doc when it is text ending in a
// line break, from printf when it is other text (a here-doc would add a
// line break), and through base64 -d when it is not UTF-8 text or holds
// a NUL (which no shell word can carry).
func Curl(u *url.URL, r Request) string {
	var b strings.Builder
	body := len(r.Body) > 0
	text := utf8.Valid(r.Body) && !strings.ContainsRune(string(r.Body), 0)
	heredoc := ""
	if body {
		switch {
		case !text:
			b.WriteString("printf '%s' " + Quote(base64.StdEncoding.EncodeToString(r.Body)) + " | base64 -d | ")
		case strings.HasSuffix(string(r.Body), "\n"):
			heredoc = bodyDelimiter
			for strings.Contains("\n"+string(r.Body), "\n"+heredoc+"\n") {
				heredoc += "_"
			}
		default:
			b.WriteString("printf '%s' " + Quote(string(r.Body)) + " | ")
		}
	}
	// -g: no globbing of [] {} in the URL; --path-as-is: dot segments
	// sent as they are.
	b.WriteString("curl -sS -g --path-as-is")
	if r.Method == http.MethodHead {
		b.WriteString(" --head")
	} else {
		b.WriteString(" -X " + Quote(r.Method))
	}
	b.WriteString(" " + Quote(WireURL(u)))
	names := make([]string, 0, len(r.Header))
	for name := range r.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range r.Header[name] {
			if v == "" {
				// "Name;" is curl's spelling of a header sent empty.
				b.WriteString(" \\\n  -H " + Quote(name+";"))
				continue
			}
			b.WriteString(" \\\n  -H " + Quote(name+": "+v))
		}
	}
	// curl adds these when the request has none; "Name:" removes them,
	// so that only the captured headers go.
	for _, name := range []string{"User-Agent", "Accept"} {
		if r.Header.Get(name) == "" && len(r.Header.Values(name)) == 0 {
			b.WriteString(" \\\n  -H " + Quote(name+":"))
		}
	}
	if body {
		if len(r.Header.Values("Content-Type")) == 0 {
			b.WriteString(" \\\n  -H " + Quote("Content-Type:"))
		}
		b.WriteString(" \\\n  -H " + Quote("Expect:") + " \\\n  --data-binary @-")
	}
	if heredoc != "" {
		b.WriteString(" <<'" + heredoc + "'\n" + string(r.Body) + heredoc)
	}
	return b.String()
}

// Quote single-quotes s for a POSIX shell: a ' inside becomes '\”.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
