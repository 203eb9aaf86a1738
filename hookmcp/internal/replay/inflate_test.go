package replay

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"testing"
)

func compressed(t *testing.T, s string, w func(io.Writer) io.WriteCloser) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := w(&buf)
	if _, err := io.WriteString(zw, s); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestInflated: a body is read as the target inflates it, bounded; what
// Go cannot undo, or what is not compressed, is not.
func TestInflated(t *testing.T) {
	gz := func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }
	zl := func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }
	raw := func(w io.Writer) io.WriteCloser { fw, _ := flate.NewWriter(w, flate.BestSpeed); return fw }
	both := compressed(t, string(compressed(t, "secret body", zl)), gz)
	for _, tt := range []struct {
		name, encoding string
		body           []byte
		want           string
		over, ok       bool
	}{
		{"gzip", "gzip", compressed(t, "secret body", gz), "secret body", false, true},
		{"x-gzip upper case", "X-GZIP", compressed(t, "secret body", gz), "secret body", false, true},
		{"zlib deflate", "deflate", compressed(t, "secret body", zl), "secret body", false, true},
		{"raw deflate", "deflate", compressed(t, "secret body", raw), "secret body", false, true},
		{"a list, undone last first", "deflate, gzip", both, "secret body", false, true},
		{"over the limit", "gzip", compressed(t, "0123456789abcdef", gz), "0123456789", true, true},
		{"brotli", "br", []byte("x"), "", false, false},
		{"not gzip at all", "gzip", []byte("plain"), "", false, false},
		{"none", "", []byte("plain"), "", false, false},
	} {
		h := http.Header{}
		if tt.encoding != "" {
			h.Set("Content-Encoding", tt.encoding)
		}
		limit := int64(64)
		if tt.over {
			limit = 10
		}
		got, over, ok := Inflated(h, tt.body, limit)
		if string(got) != tt.want || over != tt.over || ok != tt.ok {
			t.Errorf("%s: Inflated = %q, over %v, ok %v; want %q, %v, %v", tt.name, got, over, ok, tt.want, tt.over, tt.ok)
		}
	}
}
