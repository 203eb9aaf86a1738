package schema

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// splitWords cuts a name into its lower-cased words: at underscores, spaces
// and other marks (snake_case, SCREAMING_CASE, "review comment"), where a
// lower-case letter or digit meets an upper-case one (camelCase,
// PascalCase), before the last capital of a run followed by a lower-case
// letter (HTTPServer: http, server), and between letters and digits
// (sha256: sha, 256). A model types names in any of these styles; the
// schema's own may be in any other.
func splitWords(name string) []string {
	joined, starts := appendWords(nil, nil, name)
	words := make([]string, len(starts))
	for i, start := range starts {
		end := len(joined)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		words[i] = string(joined[start:end])
	}
	return words
}

// appendWords appends name's words, lower-cased and run together, to joined,
// and where each starts in joined to starts. A search calls it for every
// name of a schema: it allocates nothing once its buffers have grown.
func appendWords(joined []byte, starts []int, name string) ([]byte, []int) {
	prev, inWord := rune(0), false
	for i, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			inWord = false
			continue
		}
		boundary := !inWord
		if inWord {
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				boundary = true
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && nextIsLower(name[i:]):
				boundary = true
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				boundary = true
			}
		}
		if boundary {
			starts = append(starts, len(joined))
		}
		switch {
		case 'A' <= r && r <= 'Z':
			joined = append(joined, byte(r+'a'-'A'))
		case r < utf8.RuneSelf:
			joined = append(joined, byte(r))
		default:
			joined = utf8.AppendRune(joined, unicode.ToLower(r))
		}
		prev, inWord = r, true
	}
	return joined, starts
}

// nextIsLower reports whether the rune after the first of rest is a
// lower-case letter.
func nextIsLower(rest string) bool {
	_, size := utf8.DecodeRuneInString(rest)
	r, size := utf8.DecodeRuneInString(rest[size:])
	return size > 0 && unicode.IsLower(r)
}

// Ranks of a search hit, best first.
const (
	rankExact    = iota // the name is the term (case and word separators aside)
	rankPrefix          // the name starts with the term
	rankAllWords        // every word of the term starts a word of the name
	rankPartial         // the name contains the term elsewhere, or some of its words
	rankArgument        // a field whose argument matches
)

// MaxSearchWords bounds the words of a search term: each is compared with
// each word of every name of the schema.
const MaxSearchWords = 8

// CheckSearch refuses a search term of more than MaxSearchWords words.
func CheckSearch(term string) error {
	if _, starts := appendWords(nil, nil, term); len(starts) > MaxSearchWords {
		return fmt.Errorf("search has %d words, more than the %d a search matches: give the few words the name holds, such as \"review comment\"", len(starts), MaxSearchWords)
	}
	return nil
}

// minPartialWord is the shortest word of a term that a name matches by
// alone, when no name has all the term's words: a letter or two ("a", "id")
// starts a word of nearly every name.
const minPartialWord = 3

// matcher tells how well a name matches a search term, by the term's words.
type matcher struct {
	words [][]byte
	// joined is the term's words run together: "pullRequest",
	// "pull_request" and "pull request" all give "pullrequest".
	joined []byte
	// someWords lets a name that has some of several words, not all,
	// match (as partial), if one of those it has is at least
	// minPartialWord long: set when no name has them all.
	someWords bool
	// The name being matched, as appendWords gives it.
	name   []byte
	starts []int
}

func newMatcher(term string) *matcher {
	joined, starts := appendWords(nil, nil, term)
	if len(starts) > MaxSearchWords {
		// CheckSearch refuses such a term; past it, the words are not
		// matched.
		joined, starts = joined[:starts[MaxSearchWords]], starts[:MaxSearchWords]
	}
	m := &matcher{joined: joined}
	for i, start := range starts {
		end := len(joined)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		m.words = append(m.words, joined[start:end])
	}
	return m
}

// match returns the rank of name for m, and for partial matches by words
// how many of the term's words the name lacks (0 otherwise); ok is false
// when name does not match.
func (m *matcher) match(name string) (rank, lacking int, ok bool) {
	if len(m.joined) == 0 {
		return 0, 0, false
	}
	m.name, m.starts = appendWords(m.name[:0], m.starts[:0], name)
	switch {
	case bytes.Equal(m.name, m.joined):
		return rankExact, 0, true
	case bytes.HasPrefix(m.name, m.joined):
		return rankPrefix, 0, true
	}
	found, foundLong := 0, 0
	for _, w := range m.words {
		for k, start := range m.starts {
			// A word of the term matches a word of the name it starts
			// (review, reviews), not one that runs into the next word.
			end := len(m.name)
			if k+1 < len(m.starts) {
				end = m.starts[k+1]
			}
			if bytes.HasPrefix(m.name[start:end], w) {
				found++
				if len(w) >= minPartialWord {
					foundLong++
				}
				break
			}
		}
	}
	switch {
	case found == len(m.words):
		return rankAllWords, 0, true
	case bytes.Contains(m.name, m.joined):
		return rankPartial, 0, true
	case m.someWords && foundLong > 0:
		return rankPartial, len(m.words) - found, true
	}
	return 0, 0, false
}

// matches reports whether name matches m in any rank.
func (m *matcher) matches(name string) bool {
	_, _, ok := m.match(name)
	return ok
}
