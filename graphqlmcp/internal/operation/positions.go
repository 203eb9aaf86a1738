package operation

import (
	"errors"
	"regexp"
	"sort"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// lines holds where each line of a text begins, in runes (gqlparser's
// positions count runes); a line ends at a CRLF, a LF or a CR, as in
// graphql-js.
type lines []int

func lineStarts(src []rune) lines {
	starts := lines{0}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
			i++
			starts = append(starts, i+1)
		case src[i] == '\n' || src[i] == '\r':
			starts = append(starts, i+1)
		}
	}
	return starts
}

// location is the line and column, from 1, of offset, as graphql-js's
// getLocation gives them (but for columns in runes, not UTF-16 units).
func (ls lines) location(offset int) (int, int) {
	line := sort.Search(len(ls), func(i int) bool { return ls[i] > offset })
	return line, offset - ls[line-1] + 1
}

// gqlparser places a string token a column past its opening quote, and a
// block string at the line where it ends, a column past its """ counted
// from the start of that line (column -1 for one that ends early on its
// line); graphql-js places both at their opening quote. Other tokens it
// places right.

// placeStrings moves doc's string values to where graphql-js places them.
func placeStrings(doc *ast.QueryDocument, ls lines) {
	eachValue(doc, func(v *ast.Value, _ bool) {
		if (v.Kind == ast.StringValue || v.Kind == ast.BlockValue) && v.Position != nil {
			// Start is right: gqlparser moves it back to the quote.
			v.Position.Line, v.Position.Column = ls.location(v.Position.Start)
		}
	})
}

// parseErrorAt is gqlparser's parse error err with the line and column
// graphql-js gives its token.
func parseErrorAt(err error, ls lines) (gqlErr *gqlerror.Error, line, column int, ok bool) {
	if !errors.As(err, &gqlErr) || len(gqlErr.Locations) == 0 {
		return nil, 0, 0, false
	}
	line, column = gqlErr.Locations[0].Line, gqlErr.Locations[0].Column
	kind := regexp.MustCompile(`(?:found|Unexpected) (String|BlockString)(?: |$)`).FindStringSubmatch(gqlErr.Message)
	if kind == nil || line < 1 || line > len(ls) {
		return gqlErr, line, column, true
	}
	past := 1
	if kind[1] == "BlockString" {
		past = 3
	}
	line, column = ls.location(max(0, ls[line-1]+column-1-past))
	return gqlErr, line, column, true
}
