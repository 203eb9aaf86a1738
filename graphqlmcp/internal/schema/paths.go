package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Bounds of the paths a search shows.
const (
	// maxPathSteps is the longest path written out; a type farther from
	// the root is said to be that far, which no real schema reaches
	// (GitHub's farthest type is 6 steps from Query, 11 by fields alone).
	maxPathSteps = 24
	// maxPathCandidates and maxPathVisits bound the shortest paths to a
	// type that are compared to pick the best few, and the work of finding
	// them: a schema can have more shortest paths to a type than atoms in
	// the universe.
	maxPathCandidates = 16
	maxPathVisits     = 512
)

// pathIndex holds, for one view of a schema, how each output type is reached
// from the root types: a breadth-first search over the types that fields
// return, and from an interface or union to each of its possible types (a
// fragment, `... on Issue`). It is built once per view, on the first search,
// and kept with the schema; its size is linear in the schema's (a few
// integers per type and per field that returns an object, interface or
// union).
type pathIndex struct {
	names []string
	node  map[string]int32
	edges []pathEdge
	// roots are Query's, Mutation's and Subscription's reach, those the
	// schema has, in that order: a type is shown its paths from the first
	// root that reaches it.
	roots []rootReach
	// implementers are each interface's objects: an interface no field
	// returns (GitHub's Starrable) is reached as one of them.
	implementers map[int32][]int32
}

// pathEdge is one step: a field of from that returns to, or, with field
// nil, a fragment on to, one of the possible types of the abstract type
// from.
type pathEdge struct {
	from, to int32
	field    *field
	required int32 // required arguments of the field, which a query must give
}

type rootReach struct {
	name string
	// any goes through fields and fragments; direct through fields alone,
	// for the path that names no ID or URL that a model does not have
	// (node(id!), resource(url!) on GitHub reach nearly every type in two
	// steps).
	any, direct reach
}

// reach is a breadth-first search from one root.
type reach struct {
	dist []int32 // steps from the root; -1 when it does not reach the type
	cost []int32 // the fewest required arguments of a shortest path
	// preds[predAt[i]:predAt[i+1]] are the edges into type i that start a
	// shortest path back to the root, cheapest first.
	predAt []int32
	preds  []int32
}

// buildPaths indexes the paths of v: the fields it shows, with the
// arguments it shows.
func (v *View) buildPaths() *pathIndex {
	types := v.s.result.Schema.Types
	p := &pathIndex{node: map[string]int32{}}
	for i := range types {
		t := &types[i]
		if _, twice := p.node[t.Name]; !twice && isShownType(t.Name) && isComposite(t.Kind) {
			p.node[t.Name] = int32(len(p.names))
			p.names = append(p.names, t.Name)
		}
	}
	// An interface's possible types are the objects that say they
	// implement it (a schema read from SDL lists no possibleTypes for
	// interfaces; an introspection answer lists these).
	implementers := map[string][]string{}
	for i := range types {
		if t := &types[i]; t.Kind == "OBJECT" {
			for _, ref := range t.Interfaces {
				implementers[ref.leafName()] = append(implementers[ref.leafName()], t.Name)
			}
		}
	}
	p.implementers = map[int32][]int32{}
	for name, objects := range implementers {
		if iface, ok := p.node[name]; ok {
			for _, object := range objects {
				if o, ok := p.node[object]; ok {
					p.implementers[iface] = append(p.implementers[iface], o)
				}
			}
		}
	}
	out := make([]int32, 0, len(p.names)+1)
	for i := range types {
		t := &types[i]
		from, ok := p.node[t.Name]
		if !ok || !isComposite(t.Kind) || int(from) != len(out) {
			continue // not an output type, or a name given twice
		}
		out = append(out, int32(len(p.edges)))
		for _, f := range v.show.fields(t.Name, t.Fields) {
			if to, ok := p.node[f.Type.leafName()]; ok {
				required := 0
				for _, a := range v.show.args(t.Name, f.Name, f.Args) {
					if a.required() {
						required++
					}
				}
				p.edges = append(p.edges, pathEdge{from: from, to: to, field: f, required: int32(required)})
			}
		}
		possible := implementers[t.Name]
		if t.Kind == "UNION" {
			possible = nil
			for _, ref := range t.PossibleTypes {
				possible = append(possible, ref.leafName())
			}
		}
		for _, name := range possible {
			if to, ok := p.node[name]; ok && to != from {
				p.edges = append(p.edges, pathEdge{from: from, to: to})
			}
		}
	}
	out = append(out, int32(len(p.edges)))
	for _, root := range v.s.rootNames() {
		if r, ok := p.node[root]; ok {
			p.roots = append(p.roots, rootReach{name: root, any: p.search(r, out, true), direct: p.search(r, out, false)})
		}
	}
	return p
}

// pathIndexWeight bounds the bytes a view's path index holds, counted from
// the whole schema (a view shows no more): an edge takes 24 bytes and 4 in
// each of up to six searches' predecessors; a type, its name, its place in
// the map and 12 bytes in each search (GitHub's: 995 types, 3,283 edges,
// 0.32 MB counted, 0.22 MB held).
func pathIndexWeight(r *Result, idx *index) int {
	composite := func(name string) bool {
		t := idx.types[name]
		return t != nil && isComposite(t.Kind)
	}
	types, edges := 0, 0
	for i := range r.Schema.Types {
		t := &r.Schema.Types[i]
		if !isComposite(t.Kind) {
			continue
		}
		types++
		for j := range t.Fields {
			if composite(t.Fields[j].Type.leafName()) {
				edges++
			}
		}
		// An object's interfaces, a union's members: an edge each.
		edges += len(t.Interfaces)
		if t.Kind == "UNION" {
			edges += len(t.PossibleTypes)
		}
	}
	return 48*edges + 160*types
}

func isComposite(kind string) bool {
	return kind == "OBJECT" || kind == "INTERFACE" || kind == "UNION"
}

// search is a breadth-first search from root over the edges (out[i] is
// where type i's begin), through fragments when fragments is set.
func (p *pathIndex) search(root int32, out []int32, fragments bool) reach {
	n := len(p.names)
	r := reach{dist: make([]int32, n), cost: make([]int32, n), predAt: make([]int32, n+1)}
	for i := range r.dist {
		r.dist[i] = -1
	}
	r.dist[root] = 0
	queue := []int32{root}
	var into []int32 // edges that start a shortest path back, in queue order
	for head := 0; head < len(queue); head++ {
		// A type's cost is final when it leaves the queue: every edge
		// into it on a shortest path starts at a type queued before it.
		u := queue[head]
		for e := out[u]; e < out[u+1]; e++ {
			edge := &p.edges[e]
			if edge.field == nil && !fragments {
				continue
			}
			to := edge.to
			switch {
			case r.dist[to] < 0:
				r.dist[to] = r.dist[u] + 1
				r.cost[to] = r.cost[u] + edge.required
				queue = append(queue, to)
			case r.dist[to] == r.dist[u]+1:
				r.cost[to] = min(r.cost[to], r.cost[u]+edge.required)
			default:
				continue
			}
			into = append(into, e)
			r.predAt[to+1]++
		}
	}
	for i := range n {
		r.predAt[i+1] += r.predAt[i]
	}
	r.preds = make([]int32, len(into))
	next := slices.Clone(r.predAt[:n])
	for _, e := range into {
		to := p.edges[e].to
		r.preds[next[to]] = e
		next[to]++
	}
	for i := range n {
		preds := r.preds[r.predAt[i]:r.predAt[i+1]]
		slices.SortFunc(preds, func(a, b int32) int {
			ea, eb := &p.edges[a], &p.edges[b]
			return cmp.Or(
				cmp.Compare(r.cost[ea.from]+ea.required, r.cost[eb.from]+eb.required),
				strings.Compare(p.names[ea.from], p.names[eb.from]),
				strings.Compare(ea.fieldName(), eb.fieldName()),
			)
		})
	}
	return r
}

func (e *pathEdge) fieldName() string {
	if e.field == nil {
		return ""
	}
	return e.field.Name
}

// shortest lists shortest paths from the root to type t, each as its edges
// from the root, the cheapest found first: at most limit, found within
// maxPathVisits steps of the search back from t (the first is always found).
func (p *pathIndex) shortest(r *reach, t int32, limit int) [][]int32 {
	var found [][]int32
	visits := 0
	back := make([]int32, 0, r.dist[t])
	var walk func(v int32) bool
	walk = func(v int32) bool {
		if r.dist[v] == 0 {
			path := slices.Clone(back)
			slices.Reverse(path)
			found = append(found, path)
			return len(found) < limit
		}
		for _, e := range r.preds[r.predAt[v]:r.predAt[v+1]] {
			back = append(back, e)
			if !walk(p.edges[e].from) {
				return false
			}
			back = back[:len(back)-1]
			if visits++; visits >= maxPathVisits {
				return false
			}
		}
		return true
	}
	walk(t)
	return found
}

// distanceSpan is past any path's steps: a path has fewer than a schema has
// types.
const distanceSpan = 1 << 32

// distance orders types by how soon a query reaches them: the steps from
// Query, past any from Query; then from Mutation, past those; then from
// Subscription; those no root reaches last.
func (p *pathIndex) distance(name string) int {
	node, ok := p.node[name]
	if !ok {
		return len(p.roots) * distanceSpan
	}
	for i := range p.roots {
		if _, d := p.locate(&p.roots[i], node); d >= 0 {
			return i*distanceSpan + int(d)
		}
	}
	return len(p.roots) * distanceSpan
}

// locate returns the type by which root reaches node, and in how many
// steps: node itself, or for an interface no field returns, the nearest of
// its objects (the fewest steps, then required arguments, then by name); d
// is -1 when root reaches neither.
func (p *pathIndex) locate(root *rootReach, node int32) (via, d int32) {
	r := &root.any
	if r.dist[node] >= 0 {
		return node, r.dist[node]
	}
	via, d = -1, -1
	for _, o := range p.implementers[node] {
		if r.dist[o] < 0 {
			continue
		}
		if via < 0 || cmp.Or(cmp.Compare(r.dist[o], r.dist[via]), cmp.Compare(r.cost[o], r.cost[via]), strings.Compare(p.names[o], p.names[via])) < 0 {
			via, d = o, r.dist[o]
		}
	}
	return via, d
}

// reaches reports whether a root reaches the type name.
func (p *pathIndex) reaches(name string) bool {
	return p.distance(name) < len(p.roots)*distanceSpan
}

// pathTarget is what a search hit shows the paths to: a type, or a field of
// a type; node is -1 for a hit that has no paths (an input, an enum value).
type pathTarget struct {
	node  int32
	field *field // nil for the type itself
}

// pathLines renders up to limit paths to target, one a line, each line
// starting with indent. A root type's fields have none: they are a root.
func (v *View) pathLines(p *pathIndex, target pathTarget, limit int) []string {
	const indent = "  path: "
	for i := range p.roots {
		root := &p.roots[i]
		via, d := p.locate(root, target.node)
		switch {
		case d < 0:
			continue
		case d == 0:
			return nil // a root, or a field of one
		case d > maxPathSteps:
			if target.field != nil {
				d++
			}
			return []string{fmt.Sprintf("%s%d steps from %s, too many to write out", indent, d, root.name)}
		}
		var lines []string
		for _, path := range v.pickPaths(p, root, via, limit) {
			if via == target.node {
				lines = append(lines, indent+v.renderPath(p, path, target))
				continue
			}
			// Reached as one of its objects: "… -> Repository (as
			// Starrable)", then the interface's field.
			line := v.renderPath(p, path, pathTarget{node: via}) + " (as " + p.names[target.node] + ")"
			if target.field != nil {
				var b strings.Builder
				v.writeStep(&b, p.names[target.node], target.field)
				line += " -> " + b.String()
			}
			lines = append(lines, indent+line)
		}
		return lines
	}
	var roots []string
	for _, root := range p.roots {
		roots = append(roots, root.name)
	}
	from := strings.Join(roots, " or ")
	if all := v.s.all; v != all && all.paths().reaches(p.names[target.node]) {
		return []string{fmt.Sprintf("%snone: only deprecated fields lead from %s to %s; includeDeprecated: true shows them", indent, from, p.names[target.node])}
	}
	return []string{fmt.Sprintf("%snone: no field from %s leads to %s", indent, from, p.names[target.node])}
}

// pickPaths chooses up to limit shortest paths from root to type t: the
// fewest required arguments first, then by their text; one path per
// sequence of types (Query.node and Query.nodes both reach Issue through
// Node: one of them is enough). When none of those picked names fields
// alone (no fragment), the shortest that does takes the last place, so that
// a way to the type by its parents is shown beside the way by ID.
func (v *View) pickPaths(p *pathIndex, root *rootReach, t int32, limit int) [][]int32 {
	type candidate struct {
		edges []int32
		cost  int32
		text  string
	}
	var all []candidate
	for _, path := range p.shortest(&root.any, t, maxPathCandidates) {
		c := candidate{edges: path}
		for _, e := range path {
			c.cost += p.edges[e].required
		}
		c.text = v.renderPath(p, path, pathTarget{node: t})
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.cost, b.cost), strings.Compare(a.text, b.text))
	})
	var picked [][]int32
	seen := map[string]bool{}
	direct := false
	hasDirect := root.direct.dist[t] > 0 && root.direct.dist[t] <= maxPathSteps
	for _, c := range all {
		if len(picked) == limit {
			break
		}
		var key strings.Builder
		for _, e := range c.edges {
			key.WriteString(p.names[p.edges[e].to])
			key.WriteByte(' ')
		}
		if seen[key.String()] {
			continue
		}
		seen[key.String()] = true
		if !direct && len(picked) == limit-1 && limit > 1 && hasDirect {
			// The last place goes to a path of fields alone.
			break
		}
		picked = append(picked, c.edges)
		direct = direct || p.fieldsOnly(c.edges)
	}
	if !direct && len(picked) < limit && hasDirect {
		picked = append(picked, p.shortest(&root.direct, t, 1)[0])
	}
	return picked
}

func (p *pathIndex) fieldsOnly(path []int32) bool {
	for _, e := range path {
		if p.edges[e].field == nil {
			return false
		}
	}
	return true
}

// renderPath writes a path as fields with the arguments a query must give
// and fragments: `Query.repository(owner!, name!) -> Repository.issues(first)
// -> IssueConnection.nodes -> Issue`, `Query.node(id!) -> Node (on Issue)`.
// A path to a field ends with that field.
func (v *View) renderPath(p *pathIndex, path []int32, target pathTarget) string {
	var b strings.Builder
	for i, e := range path {
		if i > 0 {
			b.WriteString(" -> ")
		}
		edge := &p.edges[e]
		from := p.names[edge.from]
		if edge.field == nil {
			b.WriteString(from + " (on " + p.names[edge.to] + ")")
			continue
		}
		v.writeStep(&b, from, edge.field)
	}
	switch last := len(path) - 1; {
	case target.field != nil:
		if len(path) > 0 {
			b.WriteString(" -> ")
		}
		v.writeStep(&b, p.names[target.node], target.field)
	case last < 0 || p.edges[path[last]].field != nil:
		if last >= 0 {
			b.WriteString(" -> ")
		}
		b.WriteString(p.names[target.node])
	}
	return b.String()
}

// writeStep writes "Owner.field(required!, first)": the arguments a query
// must give, and the one that sizes a page, if the field has one.
func (v *View) writeStep(b *strings.Builder, owner string, f *field) {
	b.WriteString(owner + "." + f.Name)
	args := v.show.args(owner, f.Name, f.Args)
	var named []string
	for _, a := range args {
		if a.required() {
			named = append(named, a.Name+"!")
		}
	}
	// The names of the argument that sizes a page of a list, in the order
	// one is picked when a field has several: GitHub's connections need
	// first or last, other APIs a limit.
	for _, name := range [...]string{"first", "last", "limit", "take", "top", "pageSize", "perPage"} {
		i := slices.IndexFunc(args, func(a *inputValue) bool { return a.Name == name })
		if i >= 0 {
			if !args[i].required() {
				named = append(named, name)
			}
			break
		}
	}
	if len(named) > 0 {
		b.WriteString("(" + strings.Join(named, ", ") + ")")
	}
}
