package schema

import (
	"slices"
	"strings"
)

// TypeDefinition is what graphql://type/{name} shows of one named type: its
// SDL as the view prints it, and the names of the other shown types its
// shown members refer to (field and argument types, input fields,
// interfaces, union members), sorted. ok is false when the schema has no
// such type: built-in scalars and introspection types included, as the
// SDL leaves them out.
func (v *View) TypeDefinition(name string) (sdl string, refs []string, ok bool) {
	t := v.s.types[name]
	if t == nil || !isShownType(name) {
		return "", nil, false
	}
	seen := map[string]bool{name: true}
	add := func(ref *typeRefT) {
		for ref != nil && ref.OfType != nil {
			ref = ref.OfType
		}
		if ref == nil || ref.Name == nil || seen[*ref.Name] || !isShownType(*ref.Name) {
			return
		}
		seen[*ref.Name] = true
		refs = append(refs, *ref.Name)
	}
	for _, f := range v.show.fields(t.Name, t.Fields) {
		add(&f.Type)
		for _, a := range v.show.args(t.Name, f.Name, f.Args) {
			add(&a.Type)
		}
	}
	for _, f := range v.show.inputFields(t.Name, t.InputFields) {
		add(&f.Type)
	}
	for i := range t.Interfaces {
		add(&t.Interfaces[i])
	}
	for i := range t.PossibleTypes {
		add(&t.PossibleTypes[i])
	}
	slices.Sort(refs)
	return v.print(t, nil), refs, true
}

// TypeNames returns up to limit names of the schema's shown types that
// start with prefix, compared without case, sorted, and how many match in
// all.
func (v *View) TypeNames(prefix string, limit int) (names []string, total int) {
	lower := strings.ToLower(prefix)
	for _, t := range v.s.result.Schema.Types {
		if !isShownType(t.Name) || !strings.HasPrefix(strings.ToLower(t.Name), lower) {
			continue
		}
		total++
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names[:min(limit, len(names))], total
}
