package schema

import (
	"github.com/vektah/gqlparser/v2/ast"
)

// member names a field, argument, input field or enum value: owner is a
// type's name or a directive's ("@name"); arg is set for an argument.
type member struct {
	owner, name, arg string
}

// filter decides which deprecated members a view shows. With all set it
// shows every member; otherwise it hides deprecated ones, except those in
// kept, which the schema needs to stay valid.
type filter struct {
	all  bool
	kept map[member]bool
}

func (f *filter) shows(m member, deprecated bool) bool {
	return f.all || !deprecated || f.kept[m]
}

func (f *filter) field(owner string, fd *field) bool {
	return f.shows(member{owner: owner, name: fd.Name}, fd.IsDeprecated)
}

func (f *filter) enumValue(owner string, v *enumValue) bool {
	return f.shows(member{owner: owner, name: v.Name}, v.IsDeprecated)
}

func (f *filter) fields(owner string, fields []field) []*field {
	shown := make([]*field, 0, len(fields))
	for i := range fields {
		if fd := &fields[i]; f.field(owner, fd) {
			shown = append(shown, fd)
		}
	}
	return shown
}

func (f *filter) enumValues(owner string, values []enumValue) []*enumValue {
	var shown []*enumValue
	for i := range values {
		if v := &values[i]; f.enumValue(owner, v) {
			shown = append(shown, v)
		}
	}
	return shown
}

func (f *filter) inputField(owner string, v *inputValue) bool {
	return f.shows(member{owner: owner, name: v.Name}, v.IsDeprecated)
}

func (f *filter) inputFields(owner string, values []inputValue) []*inputValue {
	var shown []*inputValue
	for i := range values {
		if v := &values[i]; f.inputField(owner, v) {
			shown = append(shown, v)
		}
	}
	return shown
}

// args lists the shown arguments of field owner.name, or of directive owner
// when name is "".
func (f *filter) args(owner, name string, values []inputValue) []*inputValue {
	var shown []*inputValue
	for i := range values {
		if v := &values[i]; f.shows(member{owner: owner, name: name, arg: v.Name}, v.IsDeprecated) {
			shown = append(shown, v)
		}
	}
	return shown
}

// keptDeprecated finds the deprecated members that hiding would make the
// schema invalid without, so that the default view keeps them (still marked
// @deprecated):
//   - every member of a type, input or enum whose members are all
//     deprecated (an empty one is not a valid definition);
//   - a required argument or input field (non-null, no default), which
//     GraphQL does not let be deprecated but an endpoint may mark anyway:
//     no operation can leave it out;
//   - a field, and an argument of it, that an interface the type implements
//     shows (GraphQL requires it of the implementation);
//   - an enum value or input field that a shown default value names.
//
// Keeping one member can require another (a kept input field's default
// value names a deprecated enum value), so it runs to a fixed point.
func keptDeprecated(r *Result, types map[string]*fullType) map[member]bool {
	kept := map[member]bool{}
	show := &filter{kept: kept}
	keepAll := func(owner string, names []string) {
		for _, name := range names {
			kept[member{owner: owner, name: name}] = true
		}
	}
	for i := range r.Schema.Types {
		t := &r.Schema.Types[i]
		var all []string
		live := false
		for _, f := range t.Fields {
			all, live = append(all, f.Name), live || !f.IsDeprecated
		}
		for _, f := range t.InputFields {
			all, live = append(all, f.Name), live || !f.IsDeprecated
			if f.IsDeprecated && f.required() {
				kept[member{owner: t.Name, name: f.Name}] = true
			}
		}
		for _, f := range t.Fields {
			for _, a := range f.Args {
				if a.IsDeprecated && a.required() {
					kept[member{owner: t.Name, name: f.Name, arg: a.Name}] = true
				}
			}
		}
		for _, v := range t.EnumValues {
			all, live = append(all, v.Name), live || !v.IsDeprecated
		}
		if !live {
			keepAll(t.Name, all)
		}
	}
	for _, d := range r.Schema.Directives {
		for _, a := range d.Args {
			if a.IsDeprecated && a.required() {
				kept[member{owner: "@" + d.Name, arg: a.Name}] = true
			}
		}
	}
	defaults := defaultSites(r)
	keep := func(m member) bool {
		if kept[m] {
			return false
		}
		kept[m] = true
		return true
	}
	for changed := true; changed; {
		changed = false
		for i := range r.Schema.Types {
			t := &r.Schema.Types[i]
			for _, ref := range t.Interfaces {
				iface := types[ref.leafName()]
				if iface == nil {
					continue
				}
				for j := range iface.Fields {
					required := &iface.Fields[j]
					if !show.field(iface.Name, required) {
						continue
					}
					own := fieldNamed(t, required.Name)
					if own == nil {
						continue
					}
					if own.IsDeprecated && !show.field(t.Name, own) {
						changed = keep(member{owner: t.Name, name: own.Name}) || changed
					}
					for _, arg := range show.args(iface.Name, required.Name, required.Args) {
						m := member{owner: t.Name, name: own.Name, arg: arg.Name}
						if ownArg := inputValueNamed(own.Args, arg.Name); ownArg != nil && ownArg.IsDeprecated {
							changed = keep(m) || changed
						}
					}
				}
			}
		}
		for _, site := range defaults {
			if site.shown(show) {
				for _, m := range namedByValue(site.value, site.typ, types) {
					changed = keep(m) || changed
				}
			}
		}
	}
	return kept
}

// defaultSite is a default value and where it is declared: an argument
// (owner, name, arg) or an input field (owner, name).
type defaultSite struct {
	at         member
	deprecated bool
	parent     *field // the field an argument belongs to; nil otherwise
	typ        typeRefT
	value      *ast.Value
}

func (d defaultSite) shown(f *filter) bool {
	if d.parent != nil && !f.field(d.at.owner, d.parent) {
		return false
	}
	return f.shows(d.at, d.deprecated)
}

// defaultSites lists every default value with the place it is declared.
func defaultSites(r *Result) []defaultSite {
	var sites []defaultSite
	add := func(at member, v *inputValue, parent *field) {
		if v.DefaultValue == nil {
			return
		}
		value := v.parsedDefault
		if value == nil {
			parsed, err := parseLiteral(*v.DefaultValue)
			if err != nil {
				return
			}
			value = parsed
		}
		sites = append(sites, defaultSite{at: at, deprecated: v.IsDeprecated, parent: parent, typ: v.Type, value: value})
	}
	for i := range r.Schema.Types {
		t := &r.Schema.Types[i]
		for j := range t.Fields {
			f := &t.Fields[j]
			for k := range f.Args {
				add(member{owner: t.Name, name: f.Name, arg: f.Args[k].Name}, &f.Args[k], f)
			}
		}
		for j := range t.InputFields {
			add(member{owner: t.Name, name: t.InputFields[j].Name}, &t.InputFields[j], nil)
		}
	}
	for i := range r.Schema.Directives {
		d := &r.Schema.Directives[i]
		for k := range d.Args {
			add(member{owner: "@" + d.Name, arg: d.Args[k].Name}, &d.Args[k], nil)
		}
	}
	return sites
}

// namedByValue lists the deprecated enum values and input fields that value,
// of type typ, names: those a view must show for the value to stay valid.
func namedByValue(value *ast.Value, typ typeRefT, types map[string]*fullType) []member {
	var named []member
	var walk func(v *ast.Value, t *typeRefT, depth int)
	walk = func(v *ast.Value, t *typeRefT, depth int) {
		if v == nil || t == nil || depth > maxValueDepth {
			return
		}
		switch t.Kind {
		case "NON_NULL":
			walk(v, t.OfType, depth)
			return
		case "LIST":
			if v.Kind != ast.ListValue {
				walk(v, t.OfType, depth+1) // one item stands for a list of it
				return
			}
			for _, item := range v.Children {
				walk(item.Value, t.OfType, depth+1)
			}
			return
		}
		def := types[t.leafName()]
		if def == nil {
			return
		}
		switch {
		case def.Kind == "ENUM" && v.Kind == ast.EnumValue:
			if ev := enumValueNamed(def, v.Raw); ev != nil && ev.IsDeprecated {
				named = append(named, member{owner: def.Name, name: ev.Name})
			}
		case def.Kind == "INPUT_OBJECT" && v.Kind == ast.ObjectValue:
			for _, child := range v.Children {
				f := inputValueNamed(def.InputFields, child.Name)
				if f == nil {
					continue
				}
				if f.IsDeprecated {
					named = append(named, member{owner: def.Name, name: f.Name})
				}
				walk(child.Value, &f.Type, depth+1)
			}
		}
	}
	walk(value, &typ, 0)
	return named
}

// maxValueDepth bounds the walk of a default value, which an endpoint
// chooses; gqlparser's parser bounds its nesting too.
const maxValueDepth = 64

// required reports an argument or input field that must be given.
func (v *inputValue) required() bool {
	return v.Type.Kind == "NON_NULL" && v.DefaultValue == nil
}

func fieldNamed(t *fullType, name string) *field {
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return &t.Fields[i]
		}
	}
	return nil
}

func inputValueNamed(values []inputValue, name string) *inputValue {
	for i := range values {
		if values[i].Name == name {
			return &values[i]
		}
	}
	return nil
}

func enumValueNamed(t *fullType, name string) *enumValue {
	for i := range t.EnumValues {
		if t.EnumValues[i].Name == name {
			return &t.EnumValues[i]
		}
	}
	return nil
}
