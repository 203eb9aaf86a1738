package fakehooksvc

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// queryNow is the clock of the query tests: requests a, b and c below were
// captured 20 days, 2 days and 1 second before it.
var queryNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func queryRequests() []*request {
	return []*request{
		{UUID: "a", kind: "web", method: "POST", body: []byte(`{"event":"order.created","note":"new order","id":"de673d0a-6d7b"}`),
			headers: http.Header{"User-Agent": {"Stripe/1.0 (+https://stripe.com)"}, "Content-Type": {"application/json"}},
			query:   url.Values{"action": {"create"}}, size: 47, sorting: 1_000_000, createdAt: queryNow.AddDate(0, 0, -20)},
		{UUID: "b", kind: "web", method: "GET", body: nil, headers: http.Header{"User-Agent": {"curl/8.0"}},
			query: url.Values{"action": {"delete", "update"}}, sorting: 2_000_000, createdAt: queryNow.AddDate(0, 0, -2)},
		{UUID: "c", kind: "email", body: []byte("Subject: Hello world"), headers: http.Header{"Subject": {"Hello world"}},
			email: &Email{From: "shop@example.com", To: []string{"x@emailhook.site"}, Text: "Your order shipped"},
			size:  20, sorting: 3_000_000, createdAt: queryNow.Add(-time.Second)},
	}
}

// TestQuerySyntax: the query parameter selects as the service's
// Elasticsearch query string does, for what hookmcp sends and documents
// and what the official CLI's help shows.
func TestQuerySyntax(t *testing.T) {
	tests := []struct {
		query string
		want  string // the ids selected
	}{
		// Terms: a bare word searches content, by word, not substring.
		{"order", "a"},
		{"orde", ""},
		{"ORDER", "a"},
		{`"order.created"`, "a"},
		{"created", ""}, // order.created is one word, as the standard analyzer splits it
		{"content:world", "c"},
		{"ord*", "a"},
		{"sh?pped", ""}, // content, not text_content
		{"text_content:sh?pped", "c"},
		// A term of several words finds any; a quoted one, the phrase.
		{"de673d0a-6d7b", "a"},
		{`"de673d0a-6d7b"`, "a"},
		{`content:"6d7b de673d0a"`, ""},
		{"content:(nothing OR world)", "c"},
		// Fields.
		{"method:POST", "a"},
		{"method:post", "a"},
		{"type:email", "c"},
		{"type:web AND method:GET", "b"},
		{`headers.user-agent:"curl/8.0"`, "b"},
		{`headers.User-Agent:"curl/8.0"`, ""},
		{"headers.user-agent:stripe", "a"},
		{"query.action:create", "a"},
		{"query.action:delete", ""}, // PHP keeps the last of a repeated name
		{"query.action:update", "b"},
		{"_exists_:query.action", "ab"},
		{"_exists_:sender", "c"},
		{"sender:*", "c"},
		{"*", "abc"},
		{"*:*", "abc"},
		{`sender:"shop@example.com"`, "c"},
		{"destinations:emailhook.site", "c"},
		{"nosuchfield:x", ""},
		// Numbers: the cursor, comparisons and ranges.
		{"sorting:>1000000", "bc"},
		{"sorting:>=2000000", "bc"},
		{"sorting:<2000000", "a"},
		{"sorting:<=2000000", "ab"},
		{"sorting:2000000", "b"},
		{"sorting:[1000000 TO 2000000]", "ab"},
		{"sorting:{1000000 TO 3000000}", "b"},
		{"sorting:{1000000 TO *]", "bc"},
		{"size:[1 TO 30]", "c"},
		{"sorting:>1000000 AND (method:POST OR type:email)", "c"},
		// Dates, with date math as in the CLI's help.
		{"created_at:[now-14d TO *]", "bc"},
		{"created_at:[* TO now-14d]", "a"},
		{`created_at:["2026-11-19 10:00:00" TO *]`, "bc"},
		{`created_at:{"2026-11-19 10:00:00" TO *]`, "c"},
		{"created_at:[2026-11-19 TO 2026-11-20]", "b"},
		{"created_at:2026-11-19", ""},
		{"created_at:now/d", "c"},
		{"created_at:[now-1d/d TO now/d]", "c"},
		{"created_at:>now-3d", "bc"},
		{`created_at:"2026-11-21 09:59:59"`, "c"},
		{`created_at:["2026-11-21 00:00:00||-2d" TO "2026-11-21 00:00:00||-1d"}`, "b"},
		// AND, OR, NOT, as Lucene combines them with OR the default.
		{"method:POST OR method:GET", "ab"},
		{"method:POST method:GET", "ab"},
		{"method:POST AND method:GET", ""},
		{"NOT type:web", "c"},
		{"-type:web", "c"},
		{"!type:web", "c"},
		{"type:web -method:GET", "a"},
		{"+type:web method:GET", "ab"},
		{"type:web && NOT method:GET", "a"},
		{"method:GET || type:email", "bc"},
		{"(method:PUT) AND (content:order OR content:test) AND NOT (content:foobar)", ""},
		{"(method:POST) AND (content:order OR content:test) AND NOT (content:foobar)", "a"},
		{"type:web AND method:GET OR method:POST", "b"}, // Lucene: +type:web +method:GET method:POST
		{"NOT (type:web AND method:GET)", "ac"},
		{"method:POST^2 OR sender:shop~1", "ac"},
		{`content:order\.created`, "a"},
		{"-", ""}, // analysed away: nothing
	}
	for _, tt := range tests {
		node, err := parseQuery(tt.query, queryNow)
		if err != nil {
			if tt.query == "-" {
				continue
			}
			t.Errorf("%s: %v", tt.query, err)
			continue
		}
		var got string
		for _, r := range queryRequests() {
			if node.match(r) {
				got += r.UUID
			}
		}
		if got != tt.want {
			t.Errorf("%s selects %q, want %q", tt.query, got, tt.want)
		}
	}
}

// TestQueryErrors: a malformed query is refused with what is wrong and
// where.
func TestQueryErrors(t *testing.T) {
	for query, want := range map[string]string{
		`"unclosed`:                   "a quote is not closed",
		"(a OR b":                     "a parenthesis is not closed",
		"a)":                          "a ) closes no parenthesis",
		"AND a":                       "AND and OR need a clause before them",
		"a OR":                        "AND and OR need a clause after them",
		"NOT":                         "NOT, !, - and + need a clause after them",
		"sorting:>x":                  `sorting is a number field: "x" is not a number`,
		"created_at:[yesterday TO *]": `created_at is a date field: "yesterday" is not a date`,
		"created_at:[now-14x TO *]":   "a unit (y, M, w, d, h, m or s) must follow",
		"sorting:[1 2]":               "a range is written [from TO to]",
		"sorting:[1 TO 2":             "a range ends with ] or }",
		"method:":                     "the query ends where a value was expected",
		"a:[1 TO 2] b:]":              `unexpected ']'`,
		strings.Repeat("(", 60) + "a" + strings.Repeat(")", 60): "nested more than 50 deep",
	} {
		_, err := parseQuery(query, queryNow)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "The query is invalid at character ") {
			t.Errorf("%s: %v, want %q", query, err, want)
		}
	}
}

// TestQueryOverHTTP: the official CLI's help query and hookmcp's cursor
// query are taken by the listing, the last of a repeated query wins, and
// a malformed one answers Laravel's 422 naming query.
func TestQueryOverHTTP(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	h.captureN(id, 3)
	for query, want := range map[string]float64{
		"created_at:[now-14d+TO+*]":              3,
		"created_at:%5Bnow-14d%20TO%20*%5D":      3,
		"created_at:[now-1s+TO+*]":               1,
		"query=x&query=query.i:1":                1,
		"content:%22body%22+AND+NOT+query.i:0":   2,
		"sorting:>0+AND+(method:POST)&query=nah": 0,
	} {
		if !strings.HasPrefix(query, "query=") {
			query = "query=" + query
		}
		status, _, page := h.do("GET", "/token/"+id+"/requests?"+query, "", "")
		if status != 200 || page["total"] != want {
			t.Errorf("%s: %d total %v, want %v", query, status, page["total"], want)
		}
	}
	status, _, body := h.do("GET", "/token/"+id+"/requests?query=(", "", "")
	if messages, _ := fieldErrors(body)["query"].([]any); status != 422 || len(messages) != 1 || !strings.Contains(messages[0].(string), "parenthesis") {
		t.Errorf("a malformed query: %d %v", status, body)
	}
}

// FuzzParseQuery: no query crashes the parser or the matching, and one
// that parses is matched against requests of every kind.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{
		"order", `"de673d0a-6d7b"`, "type:web AND method:GET OR method:POST", "created_at:[now-14d TO *]",
		`created_at:["2022-01-01 00:00:00||+1M/d" TO *}`, "sorting:>1700000000000000 AND (q)", "_exists_:query.action",
		"NOT (a OR -b) && +c || !d", `content:order\.cre*ted^2~1`, "files.report.size:[1 TO 9]", "checks.spf:true",
		"(((", `"\`, "a:b:c", "[1 TO 2]", "*:*", "sender:*", "?",
	} {
		f.Add(seed)
	}
	requests := queryRequests()
	requests = append(requests, &request{UUID: "d", kind: "web", files: map[string]file{"report": {Filename: "r.csv", Size: 3}}})
	f.Fuzz(func(t *testing.T, query string) {
		node, err := parseQuery(query, queryNow)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "The query is invalid at character ") {
				t.Fatalf("%q: error %q does not say where", query, err)
			}
			return
		}
		if node == nil {
			if strings.TrimSpace(query) != "" {
				t.Fatalf("%q: no filter from a query that is not blank", query)
			}
			return
		}
		for _, r := range requests {
			node.match(r)
		}
	})
}

func TestAnalyze(t *testing.T) {
	for text, want := range map[string][]string{
		"Hello, World!":               {"hello", "world"},
		"curl/8.0":                    {"curl", "8.0"},
		"order.created de673d0a-6d7b": {"order.created", "de673d0a", "6d7b"},
		"https://webhook.site/x?y=1":  {"https", "webhook.site", "x", "y", "1"},
		"don't stop.":                 {"don't", "stop"},
		"":                            nil,
		"日本 語":                        {"日本", "語"},
	} {
		if got := analyze(text); !cmp.Equal(got, want) {
			t.Errorf("analyze(%q) = %q, want %q", text, got, want)
		}
	}
}
