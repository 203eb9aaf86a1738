package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestIncrementalSplitBounded: an increment whose path leads through the
// largest list or object an answer can hold (items and members of a few
// bytes each, the whole of a 4 MiB answer) costs memory and time in
// proportion to those bytes, with a small factor: the list and the object
// are split once into their items and members, 32 bytes an item (a list
// of one-digit numbers, two bytes an item, is the worst: about 20 times its
// bytes; before, each item was an allocation of its own, and 58 times).
func TestIncrementalSplitBounded(t *testing.T) {
	const size = 4 << 20
	n := size / 2
	list := "[" + strings.Repeat("1,", n-1) + "{}]"
	var members strings.Builder
	for i := 0; members.Len() < size-20; i++ {
		fmt.Fprintf(&members, `"%x":1,`, i)
	}
	for name, payloads := range map[string][]string{
		"list": {`{"data":{"l":` + list + `},"hasNext":true}`, fmt.Sprintf(`{"incremental":[{"data":{"x":1},"path":["l",%d]}],"hasNext":false}`, n-1)},
		"object": {`{"data":{"o":{` + members.String() + `"z":{}}},"hasNext":true}`,
			`{"incremental":[{"data":{"x":1},"path":["o","z"]}],"hasNext":false}`},
	} {
		t.Run(name, func(t *testing.T) {
			body := yogaBody(payloads...)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			resp, err := read(t, yogaType, body)
			runtime.ReadMemStats(&after)
			if err != nil || !strings.Contains(string(resp.Body), `{"x":1}`) {
				t.Fatalf("%v %.100s", err, resp.Body)
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes merged, %d MiB allocated", len(body), allocated>>20)
			if factor := allocated / uint64(len(body)); factor > 32 { // 25 under the race detector
				t.Errorf("merging %d bytes allocated %d MiB, %d times as much", len(body), allocated>>20, factor)
			}
			// The work, counted rather than timed (the machine's load
			// changes a time, not a count): a merge that grew with the
			// square of the bytes would read them through thousands of
			// times.
			checkMergeWork(t, payloads, 4)
		})
	}
}

// TestIncrementalReadOnce: however deep the paths, each byte of an answer
// is read through a few times at most while its parts are merged: a value
// that a path splits is read through once, its large members then stepped
// over. Before, a list at the bottom of data as deep as a path may go was
// read through twice for each level above it (320 times), seconds of work
// for a 4 MiB answer. This counts the bytes read, which no load on the
// machine changes.
func TestIncrementalReadOnce(t *testing.T) {
	deep := func(bottom string) []string {
		var data, path strings.Builder
		for i := range maxPathLength {
			data.WriteString(`{"n":`)
			if i > 0 {
				path.WriteString(",")
			}
			path.WriteString(`"n"`)
		}
		data.WriteString(strings.Repeat(`{"m":`, maxMergeDepth) + bottom + strings.Repeat("}", maxMergeDepth+maxPathLength))
		increment := `{"data":` + strings.Repeat(`{"m":`, maxMergeDepth) + `1` + strings.Repeat("}", maxMergeDepth) + `,"path":[` + path.String() + `]}`
		return []string{`{"data":` + data.String() + `,"hasNext":true}`, `{"incremental":[` + increment + `,` + increment + `],"hasNext":false}`}
	}
	// Data nested as deep as a path may go, with something to read at
	// every level: members that are lists nested 16 deep.
	filler := `"f":` + strings.Repeat(`[1,`, 16) + "1" + strings.Repeat("]", 16) + ","
	var spread strings.Builder
	var path []string
	for range maxPathLength {
		spread.WriteString(`{` + strings.Repeat(filler, 200) + `"n":`)
		path = append(path, `"n"`)
	}
	spread.WriteString(`{}` + strings.Repeat("}", maxPathLength))
	for name, payloads := range map[string][]string{
		"a list of numbers below the deepest path": deep("[" + strings.Repeat("1,", 1<<20) + "1]"),
		"a list of objects below the deepest path": deep("[" + strings.Repeat("{},", 1<<19) + "{}]"),
		"a string below the deepest path":          deep(`"` + strings.Repeat("x", 2<<20) + `"`),
		"something at every level": {`{"data":` + spread.String() + `,"hasNext":true}`,
			`{"incremental":[{"data":{"v":1},"path":[` + strings.Join(path, ",") + `]}],"hasNext":false}`},
	} {
		t.Run(name, func(t *testing.T) {
			m := merger{}
			size := 0
			for i, p := range payloads {
				size += len(p)
				if err := m.add(i+1, []byte(p)); err != nil {
					t.Fatal(err)
				}
			}
			doc, d, ok := m.finish()
			if !ok || !d.Complete || !json.Valid(doc.body) || !bytes.Contains(doc.body, []byte(`{"m":1}`)) && !bytes.Contains(doc.body, []byte(`"n":{"v":1}`)) {
				t.Fatalf("not merged: %+v %.200s", d, doc.body)
			}
			t.Logf("%d bytes, %d read (%.1f times)", size, m.scan.read, float64(m.scan.read)/float64(size))
			if m.scan.read > 4*size {
				t.Errorf("%d bytes read through to merge %d", m.scan.read, size)
			}
		})
	}
}

// TestIncrementalManySmallIncrements: graphql-js 17's increments can be a
// few bytes each (an id and empty data) while their pending path is as deep
// as allowed. Each costs a walk down that path, and no more memory than its
// bytes: before, each was decoded into a map (5 KB) and its path copied (4
// KB), 2 GiB allocated for a 4 MiB answer.
func TestIncrementalManySmallIncrements(t *testing.T) {
	var data, path strings.Builder
	for i := range maxPathLength {
		data.WriteString(`{"n":`)
		if i > 0 {
			path.WriteString(",")
		}
		path.WriteString(`"n"`)
	}
	data.WriteString(`{}` + strings.Repeat("}", maxPathLength))
	increment := `{"id":"0","data":{}},{"id":"0","subPath":[],"data":{}}`
	n := (4 << 20) / (len(increment) + 1)
	payloads := []string{`{"data":` + data.String() + `,"pending":[{"id":"0","path":[` + path.String() + `]}],"hasNext":true}`,
		`{"incremental":[` + strings.TrimSuffix(strings.Repeat(increment+",", n), ",") + `],"completed":[{"id":"0"}],"hasNext":false}`}
	body := yogaBody(payloads...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	resp, err := read(t, yogaType, body)
	runtime.ReadMemStats(&after)
	if err != nil || !resp.Incremental.Complete {
		t.Fatalf("%v %+v", err, resp)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes, %d increments merged, %d MiB allocated", len(body), 2*n, allocated>>20)
	if factor := allocated / uint64(len(body)); factor > 16 {
		t.Errorf("merging %d bytes allocated %d MiB, %d times as much", len(body), allocated>>20, factor)
	}
	checkMergeWork(t, payloads, 4)
}

// checkMergeWork merges payloads as the reader does and fails when the
// bytes the merge read through are over factor times the payloads' bytes:
// a bound on the work that, unlike a time, no load on the machine changes.
// It returns the bytes read.
func checkMergeWork(t *testing.T, payloads []string, factor int) int {
	t.Helper()
	m := merger{}
	size := 0
	for i, p := range payloads {
		size += len(p)
		if err := m.add(i+1, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if _, d, ok := m.finish(); !ok || !d.Complete {
		t.Fatalf("not merged: %+v", d)
	}
	t.Logf("%d bytes, %d read through (%.1f times)", size, m.scan.read, float64(m.scan.read)/float64(size))
	if m.scan.read > factor*size {
		t.Errorf("%d bytes read through to merge %d, over %d times as many", m.scan.read, size, factor)
	}
	return m.scan.read
}
