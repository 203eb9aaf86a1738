package httpx

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestReadLimited(t *testing.T) {
	// The announced size only sizes the buffer: a wrong one, or one past the
	// limit (which must not make a huge buffer), reads the same bytes, into
	// memory of its own or into a caller's (Outbound.Buffer), too small or
	// large enough.
	for _, into := range [][]byte{nil, make([]byte, 0, 2), make([]byte, 3, 64)} {
		for _, announced := range []int64{-1, 0, 3, 5, 1 << 40} {
			body, err := readLimited(strings.NewReader("12345"), 5, announced, into)
			if err != nil || string(body) != "12345" {
				t.Errorf("at the limit, %d announced, into cap %d: %q, %v", announced, cap(into), body, err)
			}
		}
		_, err := readLimited(strings.NewReader("123456"), 5, 6, into)
		var tooLarge *TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != 5 || err.Error() != "response body exceeds the limit of 5 bytes" {
			t.Errorf("over the limit, into cap %d: %v", cap(into), err)
		}
	}
	// Memory large enough is read into, not replaced.
	into := make([]byte, 0, 64)
	if body, _ := readLimited(strings.NewReader("12345"), 5, -1, into); &body[0] != &into[:1][0] {
		t.Error("a body that fits the caller's buffer was read elsewhere")
	}
}

// TestCallerBuffer: a call given a Buffer reads its answer's body into it,
// and leaves the larger memory a longer body needed there for the next.
func TestCallerBuffer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", len(r.URL.Query().Get("n")))))
	}))
	defer srv.Close()
	c := &Caller{HTTP: srv.Client(), Logger: slog.New(slog.DiscardHandler)}
	var buf []byte
	for _, n := range []int{10, 1000, 500} {
		u, _ := url.Parse(srv.URL + "?n=" + strings.Repeat("1", n))
		answer, err := c.Do(context.Background(), Outbound{Method: http.MethodGet, URL: u, MaxBytes: 1 << 20, Buffer: &buf})
		if err != nil || len(answer.Body) != n {
			t.Fatalf("n=%d: %v, %d bytes", n, err, len(answer.Body))
		}
		if cap(buf) < n || &answer.Body[0] != &buf[:1][0] {
			t.Errorf("n=%d: the body was not read into the buffer (cap %d)", n, cap(buf))
		}
	}
}

func TestDisplayURL(t *testing.T) {
	u, _ := url.Parse("https://user:pass@example.com/graphql?access_token=secret#x")
	if got := DisplayURL(u); got != "https://example.com/graphql" {
		t.Errorf("DisplayURL = %q, want no user info, query or fragment", got)
	}
}

func TestExplain(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	}))
	t.Cleanup(func() { close(hang); srv.Close() })
	client := NewClient(Options{})

	ctx, cancel := WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	_, err := client.Do(req)
	if got := Explain(ctx, err); got == nil || got.Error() != "timed out after 50 ms" {
		t.Errorf("timeout explained as %v", got)
	}

	parent, cancelParent := context.WithCancel(context.Background())
	ctx, cancel = WithTimeout(parent, time.Minute)
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	cancelParent()
	_, err = client.Do(req)
	if got := AsFailure(Explain(ctx, err)); got == nil || got.Kind != Cancelled {
		t.Errorf("cancellation explained as %v", got)
	}
}

func TestSnippet(t *testing.T) {
	if got := Snippet([]byte("  short  "), 10); got != "short" {
		t.Errorf("Snippet = %q", got)
	}
	if got := Snippet([]byte("ééééé"), 5); got != "éé…" {
		t.Errorf("Snippet cut inside a rune: %q", got)
	}
}
