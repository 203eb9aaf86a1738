package upstream

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
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
	for name, body := range map[string]string{
		"list": yogaBody(`{"data":{"l":`+list+`},"hasNext":true}`, fmt.Sprintf(`{"incremental":[{"data":{"x":1},"path":["l",%d]}],"hasNext":false}`, n-1)),
		"object": yogaBody(`{"data":{"o":{`+members.String()+`"z":{}}},"hasNext":true}`,
			`{"incremental":[{"data":{"x":1},"path":["o","z"]}],"hasNext":false}`),
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			resp, err := read(t, yogaType, body)
			elapsed := time.Since(start) // a bound on real work, as TestIncrementalWorstCase's
			runtime.ReadMemStats(&after)
			if err != nil || !strings.Contains(string(resp.Body), `{"x":1}`) {
				t.Fatalf("%v %.100s", err, resp.Body)
			}
			allocated := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes merged in %v, %d MiB allocated", len(body), elapsed, allocated>>20)
			if factor := allocated / uint64(len(body)); factor > 32 { // 25 under the race detector
				t.Errorf("merging %d bytes allocated %d MiB, %d times as much", len(body), allocated>>20, factor)
			}
			// Loose enough for a loaded machine; a merge that grew with
			// the square of the bytes would take minutes.
			if limit := 5 * time.Second * raceSlowdown; elapsed > limit {
				t.Errorf("merging %d bytes took %v", len(body), elapsed)
			}
		})
	}
}
