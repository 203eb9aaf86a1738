package schema

import (
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
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
//   - what a definition needs (keepWhatDefinitionsNeed): every member of a
//     type, input or enum whose members are all deprecated, and a required
//     argument or input field;
//   - what an interface needs (interfaceField): a field, and an argument of
//     it, that an interface the type implements shows;
//   - what a default value names (defaultSite): an enum value or input field
//     that a shown default value names.
//
// Keeping one member can require another (a kept input field's default
// value names a deprecated enum value): each member kept is queued, and what
// showing it requires is found in turn, so that each default value and
// interface field is visited a few times at most, not once per member kept.
func keptDeprecated(r *Result, idx *index) map[member]bool {
	k := &keeper{r: r, idx: idx, kept: map[member]bool{}}
	k.show = &filter{kept: k.kept}
	k.keepWhatDefinitionsNeed()
	sites := defaultSites(r)
	// What to visit again when a member is kept: the default values
	// declared on it (or on the field an argument belongs to), and the
	// interface fields it is, or is an argument of.
	sitesOn := map[member][]int{}
	for i, site := range sites {
		if site.deprecated {
			sitesOn[site.at] = append(sitesOn[site.at], i)
		}
		if site.parent != nil && site.parent.IsDeprecated {
			field := member{owner: site.at.owner, name: site.at.name}
			sitesOn[field] = append(sitesOn[field], i)
		}
	}
	implementers := map[string][]*fullType{}
	for i := range r.Schema.Types {
		t := &r.Schema.Types[i]
		for _, ref := range t.Interfaces {
			implementers[ref.leafName()] = append(implementers[ref.leafName()], t)
		}
	}
	for i := range sites {
		k.visitSite(&sites[i])
	}
	for name, types := range implementers {
		if iface := idx.types[name]; iface != nil {
			for j := range iface.Fields {
				k.visitInterfaceField(iface, &iface.Fields[j], types)
			}
		}
	}
	for len(k.queue) > 0 {
		m := k.queue[len(k.queue)-1]
		k.queue = k.queue[:len(k.queue)-1]
		for _, i := range sitesOn[m] {
			k.visitSite(&sites[i])
		}
		if f := k.idx.fields[member{owner: m.owner, name: m.name}]; f != nil && len(implementers[m.owner]) > 0 {
			k.visitInterfaceField(k.idx.types[m.owner], f, implementers[m.owner])
		}
	}
	return k.kept
}

// keeper gathers the deprecated members the default view keeps.
type keeper struct {
	r    *Result
	idx  *index
	kept map[member]bool
	// show is the default view's filter as kept stands so far.
	show *filter
	// queue holds the members kept whose consequences are still to find.
	queue []member
}

// keep adds m, and queues it when it is new.
func (k *keeper) keep(m member) {
	if !k.kept[m] {
		k.kept[m] = true
		k.queue = append(k.queue, m)
	}
}

// keepWhatDefinitionsNeed keeps every member of a definition whose members
// are all deprecated (an empty one is not a valid definition), and every
// required argument or input field (non-null, no default), which GraphQL
// does not let be deprecated but an endpoint may mark anyway: no operation
// can leave it out.
func (k *keeper) keepWhatDefinitionsNeed() {
	for i := range k.r.Schema.Types {
		t := &k.r.Schema.Types[i]
		if allDeprecated(t) {
			for _, f := range t.Fields {
				k.keep(member{owner: t.Name, name: f.Name})
			}
			for _, f := range t.InputFields {
				k.keep(member{owner: t.Name, name: f.Name})
			}
			for _, v := range t.EnumValues {
				k.keep(member{owner: t.Name, name: v.Name})
			}
		}
		for _, f := range t.InputFields {
			if f.IsDeprecated && f.required() {
				k.keep(member{owner: t.Name, name: f.Name})
			}
		}
		for _, f := range t.Fields {
			for _, a := range f.Args {
				if a.IsDeprecated && a.required() {
					k.keep(member{owner: t.Name, name: f.Name, arg: a.Name})
				}
			}
		}
	}
	for _, d := range k.r.Schema.Directives {
		for _, a := range d.Args {
			if a.IsDeprecated && a.required() {
				k.keep(member{owner: "@" + d.Name, arg: a.Name})
			}
		}
	}
}

// allDeprecated reports a definition with members, every one deprecated.
func allDeprecated(t *fullType) bool {
	for _, f := range t.Fields {
		if !f.IsDeprecated {
			return false
		}
	}
	for _, f := range t.InputFields {
		if !f.IsDeprecated {
			return false
		}
	}
	for _, v := range t.EnumValues {
		if !v.IsDeprecated {
			return false
		}
	}
	return len(t.Fields)+len(t.InputFields)+len(t.EnumValues) > 0
}

// visitInterfaceField keeps, when interface iface shows its field required,
// the deprecated field of that name of each of types (which implement
// iface), and the field's deprecated arguments that required shows: GraphQL
// requires them of the implementation.
func (k *keeper) visitInterfaceField(iface *fullType, required *field, types []*fullType) {
	if !k.show.field(iface.Name, required) {
		return
	}
	args := k.show.args(iface.Name, required.Name, required.Args)
	for _, t := range types {
		own := k.idx.fields[member{owner: t.Name, name: required.Name}]
		if own == nil {
			continue
		}
		if own.IsDeprecated {
			k.keep(member{owner: t.Name, name: own.Name})
		}
		for _, arg := range args {
			m := member{owner: t.Name, name: own.Name, arg: arg.Name}
			if ownArg := k.idx.args[m]; ownArg != nil && ownArg.IsDeprecated {
				k.keep(m)
			}
		}
	}
}

// visitSite keeps, when the default value of site is shown, the deprecated
// enum values and input fields it names.
func (k *keeper) visitSite(site *defaultSite) {
	if site.shown(k.show) {
		for _, m := range k.idx.namedByValue(site.value, site.typ) {
			k.keep(m)
		}
	}
}

// index finds a schema's definitions and members by name.
type index struct {
	types map[string]*fullType
	// fields, inputFields and enumValues are keyed by owner and name,
	// args by owner, field name and argument name.
	fields      map[member]*field
	inputFields map[member]*inputValue
	enumValues  map[member]*enumValue
	args        map[member]*inputValue
}

func newIndex(r *Result) *index {
	idx := &index{
		types: make(map[string]*fullType, len(r.Schema.Types)), fields: map[member]*field{},
		inputFields: map[member]*inputValue{}, enumValues: map[member]*enumValue{}, args: map[member]*inputValue{},
	}
	for i := range r.Schema.Types {
		t := &r.Schema.Types[i]
		idx.types[t.Name] = t
		for j := range t.Fields {
			f := &t.Fields[j]
			idx.fields[member{owner: t.Name, name: f.Name}] = f
			for k := range f.Args {
				idx.args[member{owner: t.Name, name: f.Name, arg: f.Args[k].Name}] = &f.Args[k]
			}
		}
		for j := range t.InputFields {
			idx.inputFields[member{owner: t.Name, name: t.InputFields[j].Name}] = &t.InputFields[j]
		}
		for j := range t.EnumValues {
			idx.enumValues[member{owner: t.Name, name: t.EnumValues[j].Name}] = &t.EnumValues[j]
		}
	}
	return idx
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
func (idx *index) namedByValue(value *ast.Value, typ typeRefT) []member {
	var named []member
	var walk func(v *ast.Value, t *typeRefT, depth int)
	walk = func(v *ast.Value, t *typeRefT, depth int) {
		if v == nil || t == nil || depth > parser.MaxNestingDepth {
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
		def := idx.types[t.leafName()]
		if def == nil {
			return
		}
		switch {
		case def.Kind == "ENUM" && v.Kind == ast.EnumValue:
			m := member{owner: def.Name, name: v.Raw}
			if ev := idx.enumValues[m]; ev != nil && ev.IsDeprecated {
				named = append(named, m)
			}
		case def.Kind == "INPUT_OBJECT" && v.Kind == ast.ObjectValue:
			for _, child := range v.Children {
				m := member{owner: def.Name, name: child.Name}
				f := idx.inputFields[m]
				if f == nil {
					continue
				}
				if f.IsDeprecated {
					named = append(named, m)
				}
				walk(child.Value, &f.Type, depth+1)
			}
		}
	}
	walk(value, &typ, 0)
	return named
}

// maxValueDepth bounds the nesting of a default value that coercion
// follows or builds; one nested deeper is kept as written. (gqlparser's
// parser bounds what is written at parser.MaxNestingDepth, which the walk
// of namedByValue follows to the end: a value kept as written may name a
// deprecated member at any depth.)
const maxValueDepth = 64

// required reports an argument or input field that must be given.
func (v *inputValue) required() bool {
	return v.Type.Kind == "NON_NULL" && v.DefaultValue == nil
}
