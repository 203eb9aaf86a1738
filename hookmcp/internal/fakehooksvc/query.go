package fakehooksvc

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The API's query parameter is Elasticsearch query-string syntax: Lucene's
// classic query parser with OR as the default operator, over the fields of
// the request objects the API shows. The fake reads:
//
//   - terms (a bare word searches content), field:value, field:"a phrase",
//     field:(a OR b), wildcards (* and ?), field:* and _exists_:field, a
//     lone * for everything;
//   - ranges field:[a TO b], field:{a TO b} and mixed brackets, with * for
//     an open end, and field:>N, >=N, <N, <=N;
//   - dates as "2006-01-02 15:04:05", 2006-01-02 or date math (now-14d,
//     now/d, "2022-01-01 00:00:00||+1M"), rounded as Elasticsearch rounds;
//   - AND, OR, NOT, &&, ||, !, + and - as Lucene combines them (a AND b OR c
//     requires a and b), parentheses, backslash escapes; boosts (^2) and
//     fuzziness (~1) are read and ignored.
//
// String fields are matched as Elasticsearch's standard analyzer indexes
// text: split into lower-cased words, a term matching a word (any of them
// when the term itself holds several), a phrase matching consecutive words.
// sorting, size and time are numbers; created_at and updated_at dates (to
// the second); checks.* booleans. An unknown field matches nothing.

// queryNode is a parsed query; match tells whether a request is selected.
type queryNode interface {
	match(r *request) bool
}

type occur int

const (
	should occur = iota
	must
	mustNot
)

type clause struct {
	occur occur
	node  queryNode
}

// boolNode is a Lucene boolean query: every must clause, no mustNot
// clause, and (when there is no must clause) at least one should clause
// matches. A query of prohibitions only matches everything else, as
// Elasticsearch completes it.
type boolNode []clause

func (b boolNode) match(r *request) bool {
	required, optional, anyOptional := false, false, false
	for _, c := range b {
		switch c.occur {
		case mustNot:
			if c.node.match(r) {
				return false
			}
		case must:
			required = true
			if !c.node.match(r) {
				return false
			}
		default:
			optional = true
			anyOptional = anyOptional || c.node.match(r)
		}
	}
	return required || !optional || anyOptional
}

type matchAll struct{}

func (matchAll) match(*request) bool { return true }

type matchNone struct{}

func (matchNone) match(*request) bool { return false }

// exists matches a request whose field has a value.
type exists struct{ field string }

func (e exists) match(r *request) bool {
	switch fieldKind(e.field) {
	case kindNumber, kindDate:
		return true
	}
	for _, v := range stringValues(r, e.field) {
		if v != "" {
			return true
		}
	}
	return false
}

// textMatch matches words of a string field: any of words (a term), all of
// them in a row (a phrase), or a word that fits glob (a wildcard term).
type textMatch struct {
	field  string
	words  []string
	phrase bool
	glob   string
}

func (m textMatch) match(r *request) bool {
	for _, v := range stringValues(r, m.field) {
		doc := analyze(v)
		switch {
		case m.glob != "":
			for _, w := range doc {
				if ok, _ := path.Match(m.glob, w); ok {
					return true
				}
			}
		case m.phrase:
			for i := 0; i+len(m.words) <= len(doc); i++ {
				if equalWords(doc[i:i+len(m.words)], m.words) {
					return true
				}
			}
		default:
			for _, w := range doc {
				for _, q := range m.words {
					if w == q {
						return true
					}
				}
			}
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// textRange matches a word of a string field between two bounds, compared
// as strings; "" is an open end.
type textRange struct {
	field          string
	lo, hi         string
	loIncl, hiIncl bool
}

func (m textRange) match(r *request) bool {
	for _, v := range stringValues(r, m.field) {
		for _, w := range analyze(v) {
			if (m.lo == "" || w > m.lo || m.loIncl && w == m.lo) && (m.hi == "" || w < m.hi || m.hiIncl && w == m.hi) {
				return true
			}
		}
	}
	return false
}

// numberRange matches a number field within inclusive bounds.
type numberRange struct {
	field  string
	lo, hi float64
}

func (m numberRange) match(r *request) bool {
	v := numberValue(r, m.field)
	return v >= m.lo && v <= m.hi
}

// dateRange matches a date field within inclusive bounds; a zero bound is
// an open end. Dates are kept to the second, as the API shows them.
type dateRange struct {
	lo, hi time.Time
}

func (m dateRange) match(r *request) bool {
	at := r.createdAt.Truncate(time.Second)
	return (m.lo.IsZero() || !at.Before(m.lo)) && (m.hi.IsZero() || !at.After(m.hi))
}

// The kinds of fields, as the service's index maps them.
const (
	kindText = iota
	kindNumber
	kindDate
	kindBool
)

func fieldKind(field string) int {
	switch {
	case field == "sorting" || field == "size" || field == "time":
		return kindNumber
	case field == "created_at" || field == "updated_at":
		return kindDate
	case strings.HasPrefix(field, "checks."):
		return kindBool
	}
	return kindText
}

func numberValue(r *request, field string) float64 {
	switch field {
	case "sorting":
		return float64(r.sorting)
	case "size":
		return float64(r.size)
	}
	return 0.001 // time
}

// stringValues are a request's values of a string (or boolean) field, as
// the API shows them; nothing for an unknown field or one the request has
// not. Field names are case-sensitive, and header names lower-case.
func stringValues(r *request, field string) []string {
	if name, ok := strings.CutPrefix(field, "headers."); ok {
		if name != strings.ToLower(name) {
			return nil
		}
		return r.headers.Values(name)
	}
	if name, ok := strings.CutPrefix(field, "query."); ok {
		return phpField(r.query, name)
	}
	if name, ok := strings.CutPrefix(field, "request."); ok {
		return phpField(r.form, name)
	}
	if name, ok := strings.CutPrefix(field, "files."); ok {
		name, prop, _ := strings.Cut(name, ".")
		f, ok := r.files[name]
		if !ok {
			return nil
		}
		return []string{map[string]string{"": f.Filename, "filename": f.Filename, "id": f.ID, "name": f.Name,
			"content_type": f.ContentType, "size": strconv.Itoa(f.Size)}[prop]}
	}
	if _, ok := strings.CutPrefix(field, "checks."); ok && r.email != nil {
		return []string{"true"}
	}
	var v string
	switch field {
	case "content":
		v = string(r.body)
	case "uuid":
		v = r.UUID
	case "token_id":
		v = r.tokenID
	case "type":
		v = r.kind
	case "method":
		v = r.method
	case "ip":
		v = r.ip
	case "hostname":
		v = r.hostname
	case "user_agent":
		v = r.userAgent
	case "url":
		v = r.url
	}
	if e := r.email; e != nil {
		switch field {
		case "sender":
			v = e.From
		case "message_id":
			v = e.MessageID
		case "text_content":
			v = e.Text
		case "html_content":
			v = e.HTML
		case "destinations":
			return e.To
		}
	}
	if v == "" {
		return nil
	}
	return []string{v}
}

// analyze splits text into lower-cased words as Elasticsearch's standard
// analyzer does, near enough: runs of letters, digits and _, joined across
// a . or ' between two of them (webhook.site, 8.0, don't).
func analyze(text string) []string {
	var words []string
	runes := []rune(strings.ToLower(text))
	wordRune := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' }
	start := -1
	for i, c := range runes {
		joiner := (c == '.' || c == '\'') && start >= 0 && i+1 < len(runes) && wordRune(runes[i+1])
		switch {
		case wordRune(c) || joiner:
			if start < 0 {
				start = i
			}
		case start >= 0:
			words = append(words, string(runes[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, string(runes[start:]))
	}
	return words
}

// maxQueryDepth bounds the nesting of parentheses.
const maxQueryDepth = 50

// parseQuery parses text; an empty text gives a nil node (no filter). now
// is the time date math counts from.
func parseQuery(text string, now time.Time) (queryNode, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	p := &queryParser{src: []rune(text), now: now}
	node, err := p.query("", false)
	if err != nil {
		return nil, err
	}
	if node == nil {
		// Every term was analysed away: Elasticsearch matches nothing.
		return matchNone{}, nil
	}
	return node, nil
}

type queryParser struct {
	src   []rune
	pos   int
	depth int
	now   time.Time
}

func (p *queryParser) errorf(format string, args ...any) error {
	return fmt.Errorf("The query is invalid at character %d: %s.", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *queryParser) eof() bool { return p.pos >= len(p.src) }

func (p *queryParser) peek() rune {
	if p.eof() {
		return 0
	}
	return p.src[p.pos]
}

func (p *queryParser) space() {
	for !p.eof() && unicode.IsSpace(p.src[p.pos]) {
		p.pos++
	}
}

// word consumes w when it stands alone: followed by the end, a space or a
// parenthesis.
func (p *queryParser) word(w string) bool {
	end := p.pos + len([]rune(w))
	if end > len(p.src) || string(p.src[p.pos:end]) != w {
		return false
	}
	if end < len(p.src) && !unicode.IsSpace(p.src[end]) && p.src[end] != '(' && p.src[end] != ')' {
		return false
	}
	p.pos = end
	return true
}

const (
	conjNone = iota
	conjAnd
	conjOr
)

// query parses clauses up to the end, or up to a closing parenthesis when
// nested; field is the default field of bare terms ("" for content). It
// combines them as Lucene's classic parser does with OR as the default
// operator.
func (p *queryParser) query(field string, nested bool) (queryNode, error) {
	var clauses []clause
	first := true
	for {
		p.space()
		if p.eof() {
			if nested {
				return nil, p.errorf("a parenthesis is not closed")
			}
			break
		}
		if p.peek() == ')' {
			if !nested {
				return nil, p.errorf("a ) closes no parenthesis")
			}
			break
		}
		conj := conjNone
		switch {
		case p.word("AND") || p.word("&&"):
			conj = conjAnd
		case p.word("OR") || p.word("||"):
			conj = conjOr
		}
		if conj != conjNone {
			if first {
				return nil, p.errorf("AND and OR need a clause before them")
			}
			p.space()
			if p.eof() || p.peek() == ')' {
				return nil, p.errorf("AND and OR need a clause after them")
			}
		}
		mod := should
		switch {
		case p.word("NOT"):
			mod = mustNot
		case p.peek() == '!' || p.peek() == '-':
			p.pos++
			mod = mustNot
		case p.peek() == '+':
			p.pos++
			mod = must
		}
		if mod != should {
			p.space()
			if p.eof() || p.peek() == ')' {
				return nil, p.errorf("NOT, !, - and + need a clause after them")
			}
		}
		node, err := p.clause(field)
		if err != nil {
			return nil, err
		}
		// Lucene's addClause: AND makes the clause before required, and
		// this one too unless prohibited.
		if conj == conjAnd && len(clauses) > 0 && clauses[len(clauses)-1].occur != mustNot {
			clauses[len(clauses)-1].occur = must
		}
		if conj == conjAnd && mod == should {
			mod = must
		}
		if node != nil {
			clauses = append(clauses, clause{mod, node})
		}
		first = false
	}
	switch {
	case len(clauses) == 0:
		return nil, nil
	case len(clauses) == 1 && clauses[0].occur != mustNot:
		return clauses[0].node, nil
	}
	return boolNode(clauses), nil
}

// clause parses a parenthesised query, or a value with an optional field.
func (p *queryParser) clause(field string) (queryNode, error) {
	if p.peek() == '(' {
		return p.group(field)
	}
	start := p.pos
	if name := p.termText(); name != "" && p.peek() == ':' {
		p.pos++
		p.space()
		if p.peek() == '(' {
			return p.group(name)
		}
		return p.value(name)
	}
	p.pos = start
	return p.value(field)
}

func (p *queryParser) group(field string) (queryNode, error) {
	if p.depth++; p.depth > maxQueryDepth {
		return nil, p.errorf("parentheses are nested more than %d deep", maxQueryDepth)
	}
	p.pos++
	node, err := p.query(field, true)
	if err != nil {
		return nil, err
	}
	p.pos++ // the )
	p.depth--
	p.suffix()
	return node, nil
}

// termText reads an unquoted term, unescaping backslashes; "" when none.
func (p *queryParser) termText() string {
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		if c == '\\' && p.pos+1 < len(p.src) {
			b.WriteRune(p.src[p.pos+1])
			p.pos += 2
			continue
		}
		if unicode.IsSpace(c) || strings.ContainsRune(`()[]{}"^~:\`, c) {
			break
		}
		b.WriteRune(c)
		p.pos++
	}
	return b.String()
}

// quoted reads a "quoted" text, the opening quote at p.pos.
func (p *queryParser) quoted() (string, error) {
	p.pos++
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		switch {
		case c == '\\' && p.pos+1 < len(p.src):
			b.WriteRune(p.src[p.pos+1])
			p.pos += 2
		case c == '"':
			p.pos++
			return b.String(), nil
		default:
			b.WriteRune(c)
			p.pos++
		}
	}
	return "", p.errorf("a quote is not closed")
}

// suffix reads and ignores a boost (^2) or fuzziness (~1).
func (p *queryParser) suffix() {
	for !p.eof() && (p.peek() == '^' || p.peek() == '~') {
		p.pos++
		for !p.eof() && (unicode.IsDigit(p.peek()) || p.peek() == '.') {
			p.pos++
		}
	}
}

// value parses what follows field: (a phrase, a range, a comparison or a
// term) into a node, or nil when the analyzer leaves no word of it.
func (p *queryParser) value(field string) (queryNode, error) {
	bare := field == ""
	if bare {
		field = "content"
	}
	switch c := p.peek(); {
	case c == '"':
		text, err := p.quoted()
		if err != nil {
			return nil, err
		}
		p.suffix()
		return p.fieldNode(field, text, true)
	case c == '[' || c == '{':
		return p.rangeValue(field)
	case c == '>' || c == '<':
		return p.comparison(field)
	}
	start := p.pos
	text := p.termText()
	if text == "" {
		if p.eof() {
			return nil, p.errorf("the query ends where a value was expected")
		}
		return nil, p.errorf("unexpected %q", p.peek())
	}
	p.suffix()
	if strings.ContainsAny(string(p.src[start:p.pos]), "*?") && !strings.Contains(string(p.src[start:p.pos]), `\`) {
		return p.wildcard(field, text, bare)
	}
	return p.fieldNode(field, text, false)
}

func (p *queryParser) wildcard(field, text string, bare bool) (queryNode, error) {
	switch {
	case text == "*" && (bare || field == "*"):
		return matchAll{}, nil
	case text == "*":
		return exists{field}, nil
	case fieldKind(field) != kindText:
		return nil, p.errorf("%s is not a text field: wildcards do not apply", field)
	}
	glob := strings.ToLower(strings.NewReplacer(`[`, `\[`, `]`, `\]`, `\`, `\\`).Replace(text))
	if _, err := path.Match(glob, ""); err != nil {
		return nil, p.errorf("the wildcard %q is malformed", text)
	}
	return textMatch{field: field, glob: glob}, nil
}

// fieldNode is the node of field:text, a phrase when quoted.
func (p *queryParser) fieldNode(field, text string, quoted bool) (queryNode, error) {
	if field == "_exists_" {
		return exists{text}, nil
	}
	switch fieldKind(field) {
	case kindNumber:
		n, err := p.number(field, text)
		if err != nil {
			return nil, err
		}
		return numberRange{field, n, n}, nil
	case kindDate:
		lo, err := p.date(field, text, false, true)
		if err != nil {
			return nil, err
		}
		hi, err := p.date(field, text, true, true)
		if err != nil {
			return nil, err
		}
		return dateRange{lo, hi}, nil
	}
	words := analyze(text)
	if len(words) == 0 {
		return nil, nil
	}
	return textMatch{field: field, words: words, phrase: quoted && len(words) > 1}, nil
}

func (p *queryParser) number(field, text string) (float64, error) {
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(n) {
		return 0, p.errorf("%s is a number field: %q is not a number", field, text)
	}
	return n, nil
}

// rangeValue parses [lo TO hi], {lo TO hi} or mixed brackets.
func (p *queryParser) rangeValue(field string) (queryNode, error) {
	loIncl := p.peek() == '['
	p.pos++
	p.space()
	lo, err := p.rangeBound()
	if err != nil {
		return nil, err
	}
	p.space()
	if !p.word("TO") {
		return nil, p.errorf("a range is written [from TO to]")
	}
	p.space()
	hi, err := p.rangeBound()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.peek() != ']' && p.peek() != '}' {
		return nil, p.errorf("a range ends with ] or }")
	}
	hiIncl := p.peek() == ']'
	p.pos++
	p.suffix()
	return p.rangeNode(field, lo, hi, loIncl, hiIncl)
}

// rangeBound reads one end of a range: quoted, or up to a space or a
// closing bracket; "*" is an open end.
func (p *queryParser) rangeBound() (string, error) {
	if p.peek() == '"' {
		return p.quoted()
	}
	start := p.pos
	for !p.eof() && !unicode.IsSpace(p.peek()) && p.peek() != ']' && p.peek() != '}' {
		p.pos++
	}
	if p.pos == start {
		return "", p.errorf("a range needs a value at each end (* for none)")
	}
	return string(p.src[start:p.pos]), nil
}

// comparison parses >N, >=N, <N and <=N as ranges open at one end.
func (p *queryParser) comparison(field string) (queryNode, error) {
	op := string(p.src[p.pos])
	p.pos++
	if p.peek() == '=' {
		op += "="
		p.pos++
	}
	var text string
	var err error
	if p.peek() == '"' {
		text, err = p.quoted()
	} else if text = p.termText(); text == "" {
		err = p.errorf("%s needs a value after it", op)
	}
	if err != nil {
		return nil, err
	}
	p.suffix()
	switch op {
	case ">":
		return p.rangeNode(field, text, "*", false, true)
	case ">=":
		return p.rangeNode(field, text, "*", true, true)
	case "<":
		return p.rangeNode(field, "*", text, true, false)
	}
	return p.rangeNode(field, "*", text, true, true)
}

func (p *queryParser) rangeNode(field, lo, hi string, loIncl, hiIncl bool) (queryNode, error) {
	switch fieldKind(field) {
	case kindNumber:
		r := numberRange{field, math.Inf(-1), math.Inf(1)}
		if lo != "*" {
			n, err := p.number(field, lo)
			if err != nil {
				return nil, err
			}
			if r.lo = n; !loIncl {
				r.lo = math.Nextafter(n, math.Inf(1))
			}
		}
		if hi != "*" {
			n, err := p.number(field, hi)
			if err != nil {
				return nil, err
			}
			if r.hi = n; !hiIncl {
				r.hi = math.Nextafter(n, math.Inf(-1))
			}
		}
		return r, nil
	case kindDate:
		var r dateRange
		if lo != "*" {
			// Elasticsearch rounds a gte bound down and a gt bound up.
			at, err := p.date(field, lo, !loIncl, false)
			if err != nil {
				return nil, err
			}
			if r.lo = at; !loIncl {
				r.lo = at.Add(time.Nanosecond)
			}
		}
		if hi != "*" {
			// ... and an lte bound up, an lt bound down.
			at, err := p.date(field, hi, hiIncl, false)
			if err != nil {
				return nil, err
			}
			if r.hi = at; !hiIncl {
				r.hi = at.Add(-time.Nanosecond)
			}
		}
		return r, nil
	}
	r := textRange{field: field, loIncl: loIncl, hiIncl: hiIncl}
	if lo != "*" {
		r.lo = strings.ToLower(lo)
	}
	if hi != "*" {
		r.hi = strings.ToLower(hi)
	}
	return r, nil
}

// date reads a date or date math: the start of what it names, or its last
// nanosecond when up. A term (exact) spans the second it names, or the
// unit it rounds to.
func (p *queryParser) date(field, text string, up, exact bool) (time.Time, error) {
	anchor, expr, err := p.dateAnchor(text)
	if err != nil {
		return time.Time{}, p.errorf("%s is a date field: %q is not a date (write \"2006-01-02 15:04:05\", 2006-01-02 or date math such as now-14d)", field, text)
	}
	at, rounded, err := applyDateMath(anchor, expr)
	if err != nil {
		return time.Time{}, p.errorf("%s: the date math %q is invalid (%v)", field, expr, err)
	}
	if up {
		switch {
		case rounded != "":
			at = addUnit(at, rounded, 1).Add(-time.Nanosecond)
		case exact:
			at = at.Add(time.Second - time.Nanosecond)
		}
	}
	return at, nil
}

// dateAnchor splits text into the date it starts from and its math.
func (p *queryParser) dateAnchor(text string) (time.Time, string, error) {
	if rest, ok := strings.CutPrefix(text, "now"); ok {
		return p.now, rest, nil
	}
	anchor, expr, _ := strings.Cut(text, "||")
	for _, layout := range []string{timeLayout, "2006-01-02", time.RFC3339, "2006-01-02T15:04:05"} {
		if at, err := time.Parse(layout, anchor); err == nil {
			return at, expr, nil
		}
	}
	if ms, err := strconv.ParseInt(anchor, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), expr, nil
	}
	return time.Time{}, "", errors.New("not a date")
}

// applyDateMath applies +N<unit>, -N<unit> and /<unit> (rounding down,
// reported in rounded) in order.
func applyDateMath(at time.Time, expr string) (time.Time, string, error) {
	rounded := ""
	for expr != "" {
		op := expr[0]
		expr = expr[1:]
		i := 0
		for i < len(expr) && expr[i] >= '0' && expr[i] <= '9' {
			i++
		}
		n := 1
		if i > 0 {
			var err error
			if n, err = strconv.Atoi(expr[:i]); err != nil || n > 100000 {
				return at, "", fmt.Errorf("%q is too large", expr[:i])
			}
		}
		if i == len(expr) || !strings.ContainsRune("yMwdhHms", rune(expr[i])) {
			return at, "", errors.New("a unit (y, M, w, d, h, m or s) must follow")
		}
		unit := expr[i : i+1]
		expr = expr[i+1:]
		switch op {
		case '+':
			at = addUnit(at, unit, n)
		case '-':
			at = addUnit(at, unit, -n)
		case '/':
			if i > 0 {
				return at, "", errors.New("rounding takes a unit alone")
			}
			at, rounded = truncateTo(at, unit), unit
		default:
			return at, "", fmt.Errorf("%q is not +, - or /", op)
		}
	}
	return at, rounded, nil
}

func addUnit(at time.Time, unit string, n int) time.Time {
	switch unit {
	case "y":
		return at.AddDate(n, 0, 0)
	case "M":
		return at.AddDate(0, n, 0)
	case "w":
		return at.AddDate(0, 0, 7*n)
	case "d":
		return at.AddDate(0, 0, n)
	case "h", "H":
		return at.Add(time.Duration(n) * time.Hour)
	case "m":
		return at.Add(time.Duration(n) * time.Minute)
	}
	return at.Add(time.Duration(n) * time.Second)
}

func truncateTo(at time.Time, unit string) time.Time {
	y, mo, d := at.Date()
	switch unit {
	case "y":
		return time.Date(y, 1, 1, 0, 0, 0, 0, at.Location())
	case "M":
		return time.Date(y, mo, 1, 0, 0, 0, 0, at.Location())
	case "w":
		day := time.Date(y, mo, d, 0, 0, 0, 0, at.Location())
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)) // weeks start on Monday
	case "d":
		return time.Date(y, mo, d, 0, 0, 0, 0, at.Location())
	case "h", "H":
		return at.Truncate(time.Hour)
	case "m":
		return at.Truncate(time.Minute)
	}
	return at.Truncate(time.Second)
}
