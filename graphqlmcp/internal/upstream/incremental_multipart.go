package upstream

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
)

// MaxParts bounds the parts of one multipart answer. Each part is a payload
// of at least a few bytes, so the response size limit alone would let a
// stream of empty parts run to hundreds of thousands; a stream of 10,000
// list items, one a part, still fits.
const MaxParts = 10000

// maxPartHeaderBytes bounds the header block of one part: a part's headers
// are one or two short lines (Content-Type, Content-Length).
const maxPartHeaderBytes = 16 << 10

// maxBoundaryLength is RFC 2046's bound on a boundary.
const maxBoundaryLength = 70

// part is one part of a multipart body: its headers and its body, both as
// they came.
type part struct {
	contentType string
	body        []byte
	// cut reports a part that no delimiter ended: the body ended inside
	// it, so it may be only the start of what the endpoint sent.
	cut bool
}

// multipartError is a multipart body that cannot be read into parts; what
// says why, in words that name the rule. noParts marks a body in which no
// part starts: one cut that early brought nothing, which is no fault of
// its format.
type multipartError struct {
	what    string
	noParts bool
	// quoted is the boundary the sentence quotes below, when it does.
	quoted *fault
}

func (e *multipartError) Error() string {
	if e.quoted != nil {
		return e.quoted.Error()
	}
	return e.what
}

// Unwrap gives the fault that quotes the endpoint's words, if any, for
// the error to show them framed.
func (e *multipartError) Unwrap() error {
	if e.quoted == nil {
		return nil
	}
	return e.quoted
}

// multipartBoundary reads the boundary parameter of a multipart/mixed
// Content-Type.
func multipartBoundary(contentType string) (string, error) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", &multipartError{what: fmt.Sprintf("its Content-Type (multipart/mixed) cannot be read: %v", err)}
	}
	boundary, ok := params["boundary"]
	switch {
	case !ok || boundary == "":
		return "", &multipartError{what: "it answered multipart/mixed without a boundary parameter in its Content-Type, so its parts cannot be told apart"}
	case len(boundary) > maxBoundaryLength:
		return "", &multipartError{what: fmt.Sprintf("its multipart/mixed boundary is %d characters long, over the %d that RFC 2046 allows", len(boundary), maxBoundaryLength)}
	}
	return boundary, nil
}

// splitParts splits a multipart body into its parts, as RFC 2046 frames
// them and as servers write them: a delimiter is "--" and the boundary at
// the start of a line, with nothing after it but spaces; the close
// delimiter adds "--"; a part's headers end at its first blank line. Lines
// may end in CRLF or LF alone. Whatever comes before the first delimiter is
// a preamble and is skipped. closed reports that the close delimiter came;
// without it, the last part is marked cut. At most MaxParts parts are read.
//
// The GraphQL over HTTP proposal's own example writes parts with no blank
// line before a JSON body that follows a delimiter directly; a part whose
// first byte (after spaces) is { is read as a body without headers.
func splitParts(body []byte, boundary string) (parts []part, closed bool, err error) {
	dash := []byte("--" + boundary)
	at, ok := nextDelimiter(body, dash, 0)
	if !ok {
		// The boundary is the endpoint's words (up to 70 of RFC 2046's
		// characters, spaces among them).
		return nil, false, &multipartError{noParts: true, quoted: quoting("the boundary", "--"+boundary,
			"its multipart/mixed body holds no line starting with the boundary its Content-Type names (quoted below), so no part can be read")}
	}
	for {
		rest := body[at+len(dash):]
		if bytes.HasPrefix(rest, []byte("--")) {
			return parts, true, nil
		}
		lineEnd := bytes.IndexByte(rest, '\n')
		if lineEnd < 0 {
			// The body ended on a delimiter: no part follows it.
			return parts, false, nil
		}
		start := at + len(dash) + lineEnd + 1
		end, found := nextDelimiter(body, dash, start)
		content := trimPartialDelimiter(body[start:], dash)
		if found {
			content = trimLineBreak(body[start:end])
		}
		if len(parts) == MaxParts {
			return nil, false, &multipartError{what: fmt.Sprintf("it sent more than %d parts, the most one answer may have", MaxParts)}
		}
		p, err := splitPart(content, len(parts)+1, !found)
		if err != nil {
			return nil, false, err
		}
		parts = append(parts, p)
		if !found {
			return parts, false, nil
		}
		at = end
	}
}

// nextDelimiter finds the first delimiter line at or after from: dash at
// the start of a line (or of the body), followed by "--", or by nothing but
// spaces up to the end of its line or of the body, or by "-" that ends the
// body.
func nextDelimiter(body, dash []byte, from int) (int, bool) {
	for from <= len(body) {
		i := bytes.Index(body[from:], dash)
		if i < 0 {
			return 0, false
		}
		at := from + i
		if at == 0 || body[at-1] == '\n' {
			rest := body[at+len(dash):]
			// "-" ending the body is a close delimiter cut short.
			if bytes.HasPrefix(rest, []byte("--")) || string(rest) == "-" {
				return at, true
			}
			line := rest
			if nl := bytes.IndexByte(rest, '\n'); nl >= 0 {
				line = rest[:nl]
			}
			if len(bytes.TrimSpace(line)) == 0 {
				return at, true
			}
		}
		from = at + 1
	}
	return 0, false
}

// trimPartialDelimiter drops from the end of the last part, which no
// delimiter ended, what may be the start of the delimiter the body was cut
// inside: some of "--" and the boundary at the start of a line, and the
// line break before it. That much cut off leaves the part whole.
func trimPartialDelimiter(content, dash []byte) []byte {
	for k := min(len(dash)-1, len(content)); k > 0; k-- {
		at := len(content) - k
		if at > 0 && content[at-1] == '\n' && bytes.Equal(content[at:], dash[:k]) {
			return trimLineBreak(content[:at])
		}
	}
	return trimLineBreak(content)
}

// trimLineBreak drops the line break that ends a part: it belongs to the
// delimiter after it.
func trimLineBreak(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// splitPart splits a part into its headers and its body. cut is a part no
// delimiter ended: its headers may be unfinished, which is then no error.
func splitPart(content []byte, n int, cut bool) (part, error) {
	if first := bytes.TrimLeft(content, " \t\r\n"); len(first) == 0 || first[0] == '{' || first[0] == '[' {
		// No headers: a blank line first, or the JSON itself.
		return part{body: content, cut: cut}, nil
	}
	headerEnd, bodyStart := blankLine(content)
	if headerEnd < 0 {
		if cut {
			return part{cut: true}, nil
		}
		return part{}, &multipartError{what: fmt.Sprintf("part %d has no blank line after its headers, so where its body starts is unknown", n)}
	}
	if headerEnd > maxPartHeaderBytes {
		return part{}, &multipartError{what: fmt.Sprintf("the headers of part %d are longer than %d KiB", n, maxPartHeaderBytes>>10)}
	}
	p := part{body: content[bodyStart:], cut: cut}
	for line := range strings.Lines(string(content[:headerEnd])) {
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Type") {
			p.contentType = strings.TrimSpace(value)
		}
	}
	return p, nil
}

// blankLine finds the first empty line of content, written CRLF CRLF or LF
// LF (or a mix): where the headers end and where the body starts, or -1.
func blankLine(content []byte) (headerEnd, bodyStart int) {
	for i := 0; i < len(content); i++ {
		if content[i] != '\n' {
			continue
		}
		next := i + 1
		if next < len(content) && content[next] == '\r' {
			next++
		}
		if next < len(content) && content[next] == '\n' {
			return i, next + 1
		}
	}
	return -1, -1
}
