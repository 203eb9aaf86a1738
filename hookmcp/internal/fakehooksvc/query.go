package fakehooksvc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The API's query parameter is Elasticsearch query-string syntax. The fake
// understands a useful subset: bare words (searched in the body), field:value
// and field:"quoted value" on method, type, ip, hostname, user_agent, url,
// content, uuid, headers.<name> and query.<name>, a trailing * for a prefix,
// _exists_:field, sorting:>N (and >=, <, <=: the service's cursor, an
// integer), AND, OR, NOT and parentheses. Bracket ranges are refused with a
// 422 that says the fake does not support them.

type queryNode interface {
	match(r *request) bool
}

type (
	orNode  []queryNode
	andNode []queryNode
	notNode struct{ inner queryNode }
	term    struct {
		field string // empty for a bare word
		value string
	}
)

func (n orNode) match(r *request) bool {
	for _, c := range n {
		if c.match(r) {
			return true
		}
	}
	return false
}

func (n andNode) match(r *request) bool {
	for _, c := range n {
		if !c.match(r) {
			return false
		}
	}
	return true
}

func (n notNode) match(r *request) bool { return !n.inner.match(r) }

func (t term) match(r *request) bool {
	if t.field == "" {
		return strings.Contains(strings.ToLower(string(r.body)), strings.ToLower(t.value))
	}
	if t.field == "_exists_" {
		return len(fieldValues(r, t.value)) > 0
	}
	if t.field == "sorting" {
		return t.compare(r.sorting)
	}
	for _, v := range fieldValues(r, t.field) {
		if t.field == "content" && strings.Contains(strings.ToLower(v), strings.ToLower(t.value)) {
			return true
		}
		if prefix, ok := strings.CutSuffix(t.value, "*"); ok {
			if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
				return true
			}
		} else if strings.EqualFold(v, t.value) {
			return true
		}
	}
	return false
}

// compare matches a numeric field against the term's value: N, >N, >=N,
// <N or <=N. A value that is not an integer matches nothing.
func (t term) compare(v int64) bool {
	for _, op := range []string{">=", "<=", ">", "<"} {
		rest, ok := strings.CutPrefix(t.value, op)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			return false
		}
		switch op {
		case ">=":
			return v >= n
		case "<=":
			return v <= n
		case ">":
			return v > n
		default:
			return v < n
		}
	}
	n, err := strconv.ParseInt(t.value, 10, 64)
	return err == nil && v == n
}

// fieldValues are a request's values of a query field.
func fieldValues(r *request, field string) []string {
	if name, ok := strings.CutPrefix(field, "headers."); ok {
		return r.headers.Values(name)
	}
	if name, ok := strings.CutPrefix(field, "query."); ok {
		return r.query[name]
	}
	var v string
	switch field {
	case "method":
		v = r.method
	case "type":
		v = "web"
	case "ip":
		v = r.ip
	case "hostname":
		v = r.hostname
	case "user_agent":
		v = r.userAgent
	case "url":
		v = r.url
	case "content":
		v = string(r.body)
	case "uuid":
		v = r.UUID
	}
	if v == "" {
		return nil
	}
	return []string{v}
}

// parseQuery parses text; an empty text gives a nil node (match all).
func parseQuery(text string) (queryNode, error) {
	tokens, err := tokenize(text)
	if err != nil || len(tokens) == 0 {
		return nil, err
	}
	p := &queryParser{tokens: tokens}
	node, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.tokens) {
		return nil, fmt.Errorf("The query has an unexpected %q.", p.tokens[p.pos])
	}
	return node, nil
}

func tokenize(text string) ([]string, error) {
	var tokens []string
	var cur strings.Builder
	inQuote := false
	flush := func() {
		if cur.Len() > 0 {
			tokens = append(tokens, cur.String())
			cur.Reset()
		}
	}
	for _, c := range text {
		switch {
		case c == '"':
			inQuote = !inQuote
			cur.WriteRune(c)
		case inQuote:
			cur.WriteRune(c)
		case c == '[' || c == '{':
			return nil, errors.New("The fake API does not support range queries; use date_from and date_to.")
		case c == '(' || c == ')':
			flush()
			tokens = append(tokens, string(c))
		case c == ' ' || c == '\t':
			flush()
		default:
			cur.WriteRune(c)
		}
	}
	if inQuote {
		return nil, errors.New("The query has an unclosed quote.")
	}
	flush()
	return tokens, nil
}

type queryParser struct {
	tokens []string
	pos    int
}

func (p *queryParser) peek() string {
	if p.pos < len(p.tokens) {
		return p.tokens[p.pos]
	}
	return ""
}

func (p *queryParser) or() (queryNode, error) {
	var alts orNode
	for {
		n, err := p.and()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		if p.peek() != "OR" {
			break
		}
		p.pos++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return alts, nil
}

func (p *queryParser) and() (queryNode, error) {
	var all andNode
	for {
		if p.peek() == "AND" {
			p.pos++
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		all = append(all, n)
		if next := p.peek(); next == "" || next == "OR" || next == ")" {
			break
		}
	}
	if len(all) == 1 {
		return all[0], nil
	}
	return all, nil
}

func (p *queryParser) unary() (queryNode, error) {
	tok := p.peek()
	switch tok {
	case "":
		return nil, errors.New("The query ends too early.")
	case "NOT":
		p.pos++
		inner, err := p.unary()
		return notNode{inner}, err
	case "(":
		p.pos++
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, errors.New("The query has an unclosed parenthesis.")
		}
		p.pos++
		return n, nil
	case ")", "AND", "OR":
		return nil, fmt.Errorf("The query has an unexpected %q.", tok)
	}
	p.pos++
	field, value, ok := strings.Cut(tok, ":")
	if !ok || strings.HasPrefix(tok, `"`) {
		return term{value: strings.Trim(tok, `"`)}, nil
	}
	return term{field: field, value: strings.Trim(value, `"`)}, nil
}
