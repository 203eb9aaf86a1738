package schema

import (
	"strings"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// The printer writes SDL as graphql-js's printSchema does (graphql 16.x):
// same order, same layout, descriptions as block strings where that keeps
// them byte for byte and as quoted strings elsewhere. The proof is
// TestSchemaAgainstGraphQLJS (scripts/github-schema), which reads what it
// prints with graphql-js.

// isSpecifiedScalar reports the scalars every schema has, which SDL leaves
// out.
func isSpecifiedScalar(name string) bool {
	switch name {
	case "String", "Int", "Float", "Boolean", "ID":
		return true
	}
	return false
}

// isSpecifiedDirective reports the directives the GraphQL spec defines,
// which SDL leaves out, as graphql-js does. Experimental ones (@defer,
// @stream) are printed when a server defines them: they are its own.
func isSpecifiedDirective(name string) bool {
	switch name {
	case "skip", "include", "deprecated", "specifiedBy", "oneOf":
		return true
	}
	return false
}

// isShownType reports the types SDL prints: not the specified scalars, not
// the introspection types.
func isShownType(name string) bool {
	return !isSpecifiedScalar(name) && !strings.HasPrefix(name, "__")
}

const defaultDeprecationReason = "No longer supported"

// printer renders definitions, showing the deprecated members its filter
// lets through.
type printer struct {
	b    strings.Builder
	show *filter
}

// schemaDefinition prints the schema block when graphql-js does: when the
// schema has a description or a root type of an unconventional name.
func (p *printer) schemaDefinition(r *Result) {
	s := &r.Schema
	roots := []struct {
		op, conventional string
		t                *named
	}{{"query", "Query", s.QueryType}, {"mutation", "Mutation", s.MutationType}, {"subscription", "Subscription", s.SubscriptionType}}
	conventional := true
	for _, root := range roots {
		if root.t != nil && root.t.Name != root.conventional {
			conventional = false
		}
	}
	if s.Description == nil && conventional {
		return
	}
	p.description(s.Description, "", true)
	p.b.WriteString("schema {")
	for _, root := range roots {
		if root.t != nil {
			p.write("\n  ", root.op, ": ", root.t.Name)
		}
	}
	p.b.WriteString("\n}")
}

func (p *printer) directive(d *directive) {
	p.description(d.Description, "", true)
	p.write("directive @", d.Name)
	p.args("@"+d.Name, "", d.Args, "")
	if d.IsRepeatable {
		p.b.WriteString(" repeatable")
	}
	p.b.WriteString(" on ")
	for i, loc := range d.Locations {
		if i > 0 {
			p.b.WriteString(" | ")
		}
		p.b.WriteString(loc)
	}
}

func (p *printer) definition(t *fullType) {
	p.description(t.Description, "", true)
	switch t.Kind {
	case "SCALAR":
		p.write("scalar ", t.Name)
		if t.SpecifiedByURL != nil {
			p.b.WriteString(" @specifiedBy(url: ")
			WriteQuoted(&p.b, *t.SpecifiedByURL)
			p.b.WriteString(")")
		}
	case "OBJECT", "INTERFACE":
		keyword := "type "
		if t.Kind == "INTERFACE" {
			keyword = "interface "
		}
		p.write(keyword, t.Name)
		p.typeList(" implements ", " & ", t.Interfaces)
		shown := p.show.fields(t.Name, t.Fields)
		p.block(len(shown), func(i int) {
			f := shown[i]
			p.description(f.Description, "  ", i == 0)
			p.write("  ", f.Name)
			p.args(t.Name, f.Name, f.Args, "  ")
			p.b.WriteString(": ")
			f.Type.writeTo(&p.b)
			p.deprecated(f.IsDeprecated, f.DeprecationReason)
		})
	case "UNION":
		p.write("union ", t.Name)
		p.typeList(" = ", " | ", t.PossibleTypes)
	case "ENUM":
		p.write("enum ", t.Name)
		shown := p.show.enumValues(t.Name, t.EnumValues)
		p.block(len(shown), func(i int) {
			v := shown[i]
			p.description(v.Description, "  ", i == 0)
			p.write("  ", v.Name)
			p.deprecated(v.IsDeprecated, v.DeprecationReason)
		})
	case "INPUT_OBJECT":
		p.write("input ", t.Name)
		if t.IsOneOf {
			p.b.WriteString(" @oneOf")
		}
		shown := p.show.inputFields(t.Name, t.InputFields)
		p.block(len(shown), func(i int) {
			p.description(shown[i].Description, "  ", i == 0)
			p.b.WriteString("  ")
			p.inputValue(shown[i])
		})
	}
}

// typeList prints the names of refs after lead, separated by sep; nothing
// when there are none.
func (p *printer) typeList(lead, sep string, refs []typeRefT) {
	for i := range refs {
		if i == 0 {
			p.b.WriteString(lead)
		} else {
			p.b.WriteString(sep)
		}
		p.b.WriteString(refs[i].leafName())
	}
}

// block prints " {", n members, one a line, and "}"; nothing when n is 0.
func (p *printer) block(n int, member func(i int)) {
	if n == 0 {
		return
	}
	p.b.WriteString(" {")
	for i := range n {
		p.b.WriteString("\n")
		member(i)
	}
	p.b.WriteString("\n}")
}

// args prints the shown arguments of a field (owner.name) or a directive
// (owner "@name"): on one line when none is described, else one a line.
func (p *printer) args(owner, name string, args []inputValue, indentation string) {
	shown := p.show.args(owner, name, args)
	if len(shown) == 0 {
		return
	}
	described := false
	for _, a := range shown {
		described = described || (a.Description != nil && *a.Description != "")
	}
	if !described {
		p.b.WriteString("(")
		for i, a := range shown {
			if i > 0 {
				p.b.WriteString(", ")
			}
			p.inputValue(a)
		}
		p.b.WriteString(")")
		return
	}
	p.b.WriteString("(\n")
	for i, a := range shown {
		if i > 0 {
			p.b.WriteString("\n")
		}
		p.description(a.Description, "  "+indentation, i == 0)
		p.write("  ", indentation)
		p.inputValue(a)
	}
	p.write("\n", indentation, ")")
}

func (p *printer) inputValue(v *inputValue) {
	writeInputValue(&p.b, v)
	p.deprecated(v.IsDeprecated, v.DeprecationReason)
}

// deprecated prints " @deprecated", with the reason unless it is the
// default one. A deprecated member with no reason at all (null) reads as
// the default, as graphql-js's buildClientSchema reads it.
func (p *printer) deprecated(isDeprecated bool, reason *string) {
	if !isDeprecated {
		return
	}
	if reason == nil || *reason == defaultDeprecationReason {
		p.b.WriteString(" @deprecated")
		return
	}
	p.b.WriteString(" @deprecated(reason: ")
	WriteQuoted(&p.b, *reason)
	p.b.WriteString(")")
}

// write writes each of parts.
func (p *printer) write(parts ...string) {
	for _, s := range parts {
		p.b.WriteString(s)
	}
}

// description prints a description above a definition or member: a block
// string when that gives back the same text, a quoted string otherwise.
// Inside a block, a described member other than the first is set off by a
// blank line.
func (p *printer) description(d *string, indentation string, firstInBlock bool) {
	if d == nil {
		return
	}
	if indentation != "" && !firstInBlock {
		p.b.WriteString("\n")
	}
	p.b.WriteString(indentation)
	if !printableAsBlockString(*d) {
		WriteQuoted(&p.b, *d) // one line: its line breaks are escaped
		p.b.WriteString("\n")
		return
	}
	writeBlockString(&p.b, *d, indentation)
	p.b.WriteString("\n")
}

// writeDefault writes v's default value in graphql-js's layout.
func (v *inputValue) writeDefault(b *strings.Builder) {
	if v.parsedDefault != nil {
		writeValue(b, v.parsedDefault)
		return
	}
	b.WriteString(printLiteral(*v.DefaultValue))
}

// printLiteral re-prints a default value, which introspection gives as
// GraphQL literal text, in graphql-js's layout. validate has parsed every
// default value already; text that does not parse is printed as it came.
func printLiteral(literal string) string {
	v, err := parseLiteral(literal)
	if err != nil {
		return literal
	}
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

// parseLiteral parses a default value by reading it as the default of a
// variable: the only way gqlparser parses a bare value.
func parseLiteral(literal string) (*ast.Value, error) {
	doc, err := parser.ParseQuery(&ast.Source{Input: "query($v: Int = " + literal + ") { f }"})
	if err != nil {
		return nil, err
	}
	if len(doc.Operations) != 1 || len(doc.Operations[0].VariableDefinitions) != 1 || doc.Operations[0].VariableDefinitions[0].DefaultValue == nil {
		return nil, errNotALiteral
	}
	return doc.Operations[0].VariableDefinitions[0].DefaultValue, nil
}

func writeValue(b *strings.Builder, v *ast.Value) {
	switch v.Kind {
	case ast.StringValue, ast.BlockValue:
		WriteQuoted(b, v.Raw)
	case ast.NullValue:
		b.WriteString("null")
	case ast.ListValue:
		b.WriteByte('[')
		for i, child := range v.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, child.Value)
		}
		b.WriteByte(']')
	case ast.ObjectValue:
		b.WriteByte('{')
		for i, child := range v.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(child.Name)
			b.WriteString(": ")
			writeValue(b, child.Value)
		}
		b.WriteByte('}')
	case ast.Variable:
		b.WriteByte('$')
		b.WriteString(v.Raw)
	default: // Int, Float, Boolean, Enum
		b.WriteString(v.Raw)
	}
}

// WriteQuoted writes s as graphql-js's printString does: a string literal
// with quotes, backslashes and control characters escaped.
func WriteQuoted(b *strings.Builder, s string) {
	if plainASCII(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			b.WriteString(`\u00`)
			b.WriteByte("0123456789ABCDEF"[r>>4])
			b.WriteByte("0123456789ABCDEF"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// quotedLen is the length of what WriteQuoted writes for s.
func quotedLen(s string) int {
	if plainASCII(s) {
		return len(s) + 2
	}
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\b' || r == '\t' || r == '\n' || r == '\f' || r == '\r':
			n += 2
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			n += 6
		default:
			n += utf8.RuneLen(r)
		}
	}
	return n
}

// plainASCII reports text that a string literal holds as it is: printable
// ASCII without a quote or a backslash, the common case of descriptions.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// printableAsBlockString is graphql-js's isPrintableAsBlockString, stricter
// in one way: any control character but tab and newline (graphql-js lets
// U+0010–U+001F through) sends the text to a quoted string, where it is
// escaped, so that every GraphQL parser reads it back.
func printableAsBlockString(s string) bool {
	if s == "" {
		return true
	}
	isEmptyLine, hasIndent, hasCommonIndent, seenNonEmptyLine := true, false, true, false
	for _, r := range s {
		switch {
		case r == '\n':
			if isEmptyLine && !seenNonEmptyLine {
				return false // a leading empty line
			}
			seenNonEmptyLine, isEmptyLine, hasIndent = true, true, false
		case r == '\t' || r == ' ':
			hasIndent = hasIndent || isEmptyLine
		case r < 0x20 || (r >= 0x7f && r <= 0x9f): // \r included: it would read as \n
			return false
		default:
			hasCommonIndent = hasCommonIndent && hasIndent
			isEmptyLine = false
		}
	}
	if isEmptyLine {
		return false // trailing empty lines
	}
	return !(hasCommonIndent && seenNonEmptyLine) // no common indentation
}

// writeBlockString writes s as graphql-js's printBlockString does, for
// text that printableAsBlockString accepts, each line after the first
// indented by indentation, empty lines too, as graphql-js indents them.
func writeBlockString(b *strings.Builder, s, indentation string) {
	escaped := strings.ReplaceAll(s, `"""`, `\"""`)
	_, after, multiline := strings.Cut(escaped, "\n")
	singleLine := !multiline
	// A leading new line when every line after the first is indented.
	forceLeadingNewLine := multiline
	for more := after; forceLeadingNewLine && more != ""; {
		var line string
		line, more, _ = strings.Cut(more, "\n")
		if line != "" && line[0] != ' ' && line[0] != '\t' {
			forceLeadingNewLine = false
		}
	}
	trailingTripleQuotes := strings.HasSuffix(escaped, `\"""`)
	forceTrailingNewLine := (strings.HasSuffix(s, `"`) && !trailingTripleQuotes) || strings.HasSuffix(s, `\`)
	multipleLines := !singleLine || utf8.RuneCountInString(s) > 70 || forceTrailingNewLine || forceLeadingNewLine || trailingTripleQuotes
	skipLeadingNewLine := singleLine && s != "" && (s[0] == ' ' || s[0] == '\t')
	newLine := func() {
		b.WriteByte('\n')
		b.WriteString(indentation)
	}
	b.WriteString(`"""`)
	if (multipleLines && !skipLeadingNewLine) || forceLeadingNewLine {
		newLine()
	}
	for text := escaped; ; {
		line, more, found := strings.Cut(text, "\n")
		b.WriteString(line)
		if !found {
			break
		}
		newLine()
		text = more
	}
	if multipleLines || forceTrailingNewLine {
		newLine()
	}
	b.WriteString(`"""`)
}

// String renders a type reference: "[Int!]!".
func (t typeRefT) String() string {
	var b strings.Builder
	t.writeTo(&b)
	return b.String()
}

// writeTo writes t.String() to b.
func (t *typeRefT) writeTo(b *strings.Builder) {
	switch t.Kind {
	case "NON_NULL":
		t.OfType.writeTo(b)
		b.WriteByte('!')
	case "LIST":
		b.WriteByte('[')
		t.OfType.writeTo(b)
		b.WriteByte(']')
	default:
		b.WriteString(t.leafName())
	}
}

// leafName is the named type at the bottom of a reference.
func (t typeRefT) leafName() string {
	for ref := &t; ref != nil; ref = ref.OfType {
		if ref.Name != nil {
			return *ref.Name
		}
	}
	return ""
}
