package coerce

import (
	"slices"
	"strings"
	"unicode/utf16"
)

// suggestionList is graphql-js's: the options within a lexical distance of
// 40% of input's length (plus one), closest first, then in natural order.
func suggestionList(input string, options []string) []string {
	in := []rune(input)
	inLower := utf16.Encode([]rune(strings.ToLower(input)))
	threshold := len(utf16.Encode(in))*4/10 + 1
	distances := make(map[string]int, len(options))
	var found []string
	for _, option := range options {
		if _, seen := distances[option]; seen {
			continue
		}
		if d, ok := lexicalDistance(input, inLower, option, threshold); ok {
			distances[option] = d
			found = append(found, option)
		}
	}
	slices.SortFunc(found, func(a, b string) int {
		if d := distances[a] - distances[b]; d != 0 {
			return d
		}
		return naturalCompare(a, b)
	})
	return found
}

// lexicalDistance is graphql-js's LexicalDistance.measure: the
// Damerau-Levenshtein distance between the lower-cased strings, in UTF-16
// code units, a change of case alone counting 1; ok is false past
// threshold. It returns early when the lengths alone differ by more than
// threshold, so a huge input costs nothing against short names.
func lexicalDistance(input string, inputLower []uint16, option string, threshold int) (int, bool) {
	if input == option {
		return 0, true
	}
	optionLower := utf16.Encode([]rune(strings.ToLower(option)))
	if slices.Equal(inputLower, optionLower) {
		return 1, true
	}
	a, b := optionLower, inputLower
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > threshold {
		return 0, false
	}
	var rows [3][]int
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		up, cur := rows[(i-1)%3], rows[i%3]
		cur[0] = i
		smallest := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cell := min(up[j]+1, cur[j-1]+1, up[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cell = min(cell, rows[(i-2)%3][j-2]+1)
			}
			smallest = min(smallest, cell)
			cur[j] = cell
		}
		if smallest > threshold {
			return 0, false
		}
	}
	d := rows[len(a)%3][len(b)]
	return d, d <= threshold
}

// naturalCompare is graphql-js's: runs of digits compare by value.
func naturalCompare(a, b string) int {
	ai, bi := 0, 0
	digit := func(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for ai < len(a) && bi < len(b) {
		if digit(a, ai) && digit(b, bi) {
			// graphql-js stops a run after a leading zero (its loop
			// continues only while the number is above 0).
			an, bn := 0, 0
			for {
				an = an*10 + int(a[ai]-'0')
				ai++
				if !digit(a, ai) || an == 0 || an > 1e15 {
					break
				}
			}
			for {
				bn = bn*10 + int(b[bi]-'0')
				bi++
				if !digit(b, bi) || bn == 0 || bn > 1e15 {
					break
				}
			}
			if an != bn {
				return compareInt(an, bn)
			}
			continue
		}
		if a[ai] != b[bi] {
			return compareInt(int(a[ai]), int(b[bi]))
		}
		ai++
		bi++
	}
	return compareInt(len(a), len(b))
}

func compareInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// didYouMean is graphql-js's suffix naming at most five suggestions;
// subject ("the enum value") may be empty.
func didYouMean(subject string, suggestions []string) string {
	if len(suggestions) == 0 {
		return ""
	}
	msg := " Did you mean "
	if subject != "" {
		msg += subject + " "
	}
	quoted := make([]string, 0, 5)
	for _, s := range suggestions[:min(len(suggestions), 5)] {
		quoted = append(quoted, `"`+s+`"`)
	}
	switch len(quoted) {
	case 1:
		return msg + quoted[0] + "?"
	case 2:
		return msg + quoted[0] + " or " + quoted[1] + "?"
	}
	last := quoted[len(quoted)-1]
	return msg + strings.Join(quoted[:len(quoted)-1], ", ") + ", or " + last + "?"
}
