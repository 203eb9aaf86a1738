package operation

import (
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// gqlparser's lexer and graphql-js's (the reference) read some texts
// differently: gqlparser counts a block string's first line when it takes
// the common indent away, lets a run of more than three quotes extend a
// block string, decodes a lone surrogate escape as U+FFFD, and says
// "Unexpected <Invalid>" (or points past the fault) where graphql-js names
// it. So the query is first read by lex, a port of graphql-js 16's lexer,
// which refuses what graphql-js refuses with its message and position and
// keeps each block string's value as graphql-js computes it; gqlparser then
// parses the text and its block string values are replaced by these.

// lexError is a syntax error as graphql-js reports it.
type lexError struct {
	line, column int
	message      string
	// token is where the token graphql-js's lexer refuses begins: its
	// parser has read only the tokens before it (TestRefusedAsGraphQLJS "a
	// bad number where a name is due").
	token struct{ line, column int }
}

func (e *lexError) Error() string {
	return fmt.Sprintf("query has a GraphQL syntax error at line %d, column %d: %s; fix the query text", e.line, e.column, e.message)
}

// lexed is what lex keeps of the query.
type lexed struct {
	// blocks holds each block string's value (the spec's BlockStringValue)
	// by the offset, in runes, of its opening """: gqlparser's positions
	// count runes.
	blocks map[int]string
	// escaped holds the private-use runes of planes 15 and 16 that escapes
	// stand for (\u{F0007}), which standIns must not take as stand-ins.
	escaped []rune
	// lines is where the query's lines begin.
	lines lines
}

type lexer struct {
	src        []rune
	tokenStart int
	blocks     map[int]string
	escaped    []rune
	lines      lines
	// quoteAfterBlock is the offset of the first block string's closing
	// """ followed at once by a quote, or -1.
	quoteAfterBlock int
}

// lex reads query as graphql-js does and returns the first error it
// reports there.
func lex(query string) (lexed, *lexError) {
	l := &lexer{src: []rune(query), quoteAfterBlock: -1}
	l.lines = lineStarts(l.src)
	for pos := 0; pos < len(l.src); {
		l.tokenStart = pos
		next, err := l.token(pos)
		if err != nil {
			if l.quoteAfterBlock >= 0 && l.tokenStart > l.quoteAfterBlock {
				// The string that quote begins was read: from there
				// gqlparser reads other tokens than graphql-js, so a parse
				// error graphql-js would report before this one cannot be
				// known, and the quote comes first.
				break
			}
			return lexed{lines: l.lines}, err
		}
		pos = next
	}
	if l.quoteAfterBlock >= 0 {
		l.tokenStart = l.quoteAfterBlock
		return lexed{lines: l.lines}, l.fail(l.quoteAfterBlock, `a block string ends at its first closing """ and the " right after it begins another string, which gqlparser and graphql-js read differently. For a value that ends with a quote write a quoted string ("...\""), or put a space after the block string`)
	}
	return lexed{blocks: l.blocks, escaped: l.escaped, lines: l.lines}, nil
}

// at is the rune at i, or -1 past the end (JavaScript's NaN there).
func (l *lexer) at(i int) rune {
	if i < 0 || i >= len(l.src) {
		return -1
	}
	return l.src[i]
}

// fail is graphql-js's syntaxError at pos, in the token that begins at
// l.tokenStart.
func (l *lexer) fail(pos int, format string, args ...any) *lexError {
	err := &lexError{message: "Syntax Error: " + fmt.Sprintf(format, args...)}
	err.line, err.column = l.location(pos)
	err.token.line, err.token.column = l.location(l.tokenStart)
	return err
}

// location is the line and column of pos, counted from the start, as
// graphql-js's getLocation does (in runes, as gqlparser's own positions
// are).
func (l *lexer) location(pos int) (int, int) {
	return l.lines.location(pos)
}

// printAt is graphql-js's printCodePointAt.
func (l *lexer) printAt(pos int) string {
	c := l.at(pos)
	switch {
	case c < 0:
		return "<EOF>"
	case c == '"':
		return `'"'`
	case c >= 0x20 && c <= 0x7e:
		return `"` + string(c) + `"`
	}
	return fmt.Sprintf("U+%04X", c)
}

func isDigit(c rune) bool     { return c >= '0' && c <= '9' }
func isNameStart(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

// token reads the token (or ignored text) at pos and returns where the
// next one begins.
func (l *lexer) token(pos int) (int, *lexError) {
	c := l.src[pos]
	switch c {
	case 0xFEFF, '\t', ' ', ',':
		return pos + 1, nil
	case '\n', '\r':
		// Lines are counted again by fail; nothing else needs them.
		return pos + 1, nil
	case '#':
		for pos++; pos < len(l.src) && l.src[pos] != '\n' && l.src[pos] != '\r'; pos++ {
		}
		return pos, nil
	case '!', '$', '&', '(', ')', ':', '=', '@', '[', ']', '{', '|', '}':
		return pos + 1, nil
	case '.':
		if l.at(pos+1) == '.' && l.at(pos+2) == '.' {
			return pos + 3, nil
		}
	case '"':
		if l.at(pos+1) == '"' && l.at(pos+2) == '"' {
			return l.blockString(pos)
		}
		return l.quoted(pos)
	}
	switch {
	case isDigit(c) || c == '-':
		return l.number(pos)
	case isNameStart(c):
		for pos++; isNameStart(l.at(pos)) || isDigit(l.at(pos)); pos++ {
		}
		return pos, nil
	case c == '\'':
		return 0, l.fail(pos, `Unexpected single quote character ('), did you mean to use a double quote (")?`)
	}
	return 0, l.fail(pos, "Unexpected character: %s.", l.printAt(pos))
}

// number is graphql-js's readNumber.
func (l *lexer) number(pos int) (int, *lexError) {
	c := l.src[pos]
	if c == '-' {
		pos++
		c = l.at(pos)
	}
	if c == '0' {
		pos++
		if isDigit(l.at(pos)) {
			return 0, l.fail(pos, "Invalid number, unexpected digit after 0: %s.", l.printAt(pos))
		}
	} else {
		var err *lexError
		if pos, err = l.digits(pos); err != nil {
			return 0, err
		}
	}
	if l.at(pos) == '.' {
		var err *lexError
		if pos, err = l.digits(pos + 1); err != nil {
			return 0, err
		}
	}
	if c := l.at(pos); c == 'e' || c == 'E' {
		pos++
		if c := l.at(pos); c == '+' || c == '-' {
			pos++
		}
		var err *lexError
		if pos, err = l.digits(pos); err != nil {
			return 0, err
		}
	}
	if c := l.at(pos); c == '.' || isNameStart(c) {
		return 0, l.fail(pos, "Invalid number, expected digit but got: %s.", l.printAt(pos))
	}
	return pos, nil
}

func (l *lexer) digits(pos int) (int, *lexError) {
	if !isDigit(l.at(pos)) {
		return 0, l.fail(pos, "Invalid number, expected digit but got: %s.", l.printAt(pos))
	}
	for pos++; isDigit(l.at(pos)); pos++ {
	}
	return pos, nil
}

// quoted is graphql-js's readString; only its errors are kept (gqlparser's
// value of a quoted string that graphql-js reads is the same).
func (l *lexer) quoted(start int) (int, *lexError) {
	pos := start + 1
	for pos < len(l.src) {
		switch c := l.src[pos]; {
		case c == '"':
			return pos + 1, nil
		case c == '\\':
			size, err := l.escape(pos)
			if err != nil {
				return 0, err
			}
			pos += size
		case c == '\n' || c == '\r':
			return 0, l.fail(pos, "Unterminated string.")
		default:
			pos++
		}
	}
	return 0, l.fail(pos, "Unterminated string.")
}

// escape reads the escape sequence at pos and returns its length.
func (l *lexer) escape(pos int) (int, *lexError) {
	if l.at(pos+1) != 'u' {
		switch l.at(pos + 1) {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			return 2, nil
		}
		return 0, l.fail(pos, `Invalid character escape sequence: "%s".`, l.slice(pos, pos+2))
	}
	if l.at(pos+2) == '{' {
		point, size := 0, 3
		for size < 12 {
			c := l.at(pos + size)
			size++
			if c == '}' {
				if size < 5 || !isScalar(point) {
					break
				}
				l.keepEscaped(rune(point))
				return size, nil
			}
			d := hexDigit(c)
			// graphql-js's 32-bit arithmetic turns negative here.
			if d < 0 || point >= 0x08000000 {
				break
			}
			point = point<<4 | d
		}
		return 0, l.fail(pos, `Invalid Unicode escape sequence: "%s".`, l.slice(pos, pos+size))
	}
	code := l.hex16(pos + 2)
	if isScalar(code) {
		return 6, nil
	}
	// A leading surrogate followed by a trailing one is a pair, as JSON
	// writes it; any other surrogate stands for no character.
	if code >= 0xD800 && code <= 0xDBFF && l.at(pos+6) == '\\' && l.at(pos+7) == 'u' {
		if trail := l.hex16(pos + 8); trail >= 0xDC00 && trail <= 0xDFFF {
			l.keepEscaped(rune(0x10000 + (code-0xD800)<<10 + (trail - 0xDC00)))
			return 12, nil
		}
	}
	return 0, l.fail(pos, `Invalid Unicode escape sequence: "%s".`, l.slice(pos, pos+6))
}

// keepEscaped keeps r, which an escape stands for, when it is in the planes
// stand-ins are taken from.
func (l *lexer) keepEscaped(r rune) {
	if r >= standInFirst {
		l.escaped = append(l.escaped, r)
	}
}

func isScalar(c int) bool { return c >= 0 && c <= 0xD7FF || c >= 0xE000 && c <= 0x10FFFF }

func (l *lexer) slice(from, to int) string {
	return string(l.src[from:min(to, len(l.src))])
}

// hex16 is the value of four hex digits at pos, or negative.
func (l *lexer) hex16(pos int) int {
	v := 0
	for i := range 4 {
		d := hexDigit(l.at(pos + i))
		if d < 0 {
			return -1
		}
		v = v<<4 | d
	}
	return v
}

func hexDigit(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// blockString is graphql-js's readBlockString: the block ends at the first
// """ that is not escaped (\"""), and its value is the spec's
// BlockStringValue.
func (l *lexer) blockString(start int) (int, *lexError) {
	pos := start + 3
	var lines []string
	var line strings.Builder
	for pos < len(l.src) {
		c := l.src[pos]
		switch {
		case c == '"' && l.at(pos+1) == '"' && l.at(pos+2) == '"':
			lines = append(lines, line.String())
			if l.blocks == nil {
				l.blocks = map[int]string{}
			}
			l.blocks[start] = blockStringValue(lines)
			if l.at(pos+3) == '"' && l.quoteAfterBlock < 0 {
				l.quoteAfterBlock = pos + 3
			}
			return pos + 3, nil
		case c == '\\' && l.at(pos+1) == '"' && l.at(pos+2) == '"' && l.at(pos+3) == '"':
			line.WriteString(`"""`)
			pos += 4
		case c == '\n' || c == '\r':
			lines = append(lines, line.String())
			line.Reset()
			if c == '\r' && l.at(pos+1) == '\n' {
				pos++
			}
			pos++
		default:
			line.WriteRune(c)
			pos++
		}
	}
	return 0, l.fail(pos, "Unterminated string.")
}

// blockStringValue is graphql-js's dedentBlockStringLines joined by
// newlines: the common indent is that of the lines after the first that
// are not blank, and blank lines at the start and the end go.
func blockStringValue(lines []string) string {
	common := -1
	first, last := -1, -1
	for i, line := range lines {
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if indent == len(line) {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		if i != 0 && (common < 0 || indent < common) {
			common = indent
		}
	}
	if first < 0 {
		return ""
	}
	out := make([]string, 0, last-first+1)
	for i := first; i <= last; i++ {
		line := lines[i]
		if i != 0 && common > 0 {
			line = line[min(common, len(line)):]
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// apply gives doc's block strings the values graphql-js reads, and refuses
// a variable in a variable definition's directive, as graphql-js's parser
// does (those directives take constants; gqlparser lets it through).
func (r lexed) apply(doc *ast.QueryDocument) error {
	var err error
	eachValue(doc, func(v *ast.Value, varDirective bool) {
		if v.Kind == ast.BlockValue && v.Position != nil {
			if value, ok := r.blocks[v.Position.Start]; ok {
				v.Raw = value
			}
		}
		if varDirective && v.Kind == ast.Variable && err == nil {
			lexErr := &lexError{line: v.Position.Line, column: v.Position.Column, message: fmt.Sprintf(`Syntax Error: Unexpected variable "$%s" in constant value.`, v.Raw)}
			lexErr.token.line, lexErr.token.column = lexErr.line, lexErr.column
			err = lexErr
		}
	})
	return err
}
