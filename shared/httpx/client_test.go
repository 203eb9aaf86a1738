package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestReadLimited(t *testing.T) {
	// The announced size only sizes the buffer: a wrong one, or one past the
	// limit (which must not make a huge buffer), reads the same bytes.
	for _, announced := range []int64{-1, 0, 3, 5, 1 << 40} {
		body, err := readLimited(strings.NewReader("12345"), 5, announced)
		if err != nil || string(body) != "12345" {
			t.Errorf("at the limit, %d announced: %q, %v", announced, body, err)
		}
	}
	_, err := readLimited(strings.NewReader("123456"), 5, 6)
	var tooLarge *TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 5 || err.Error() != "response body exceeds the limit of 5 bytes" {
		t.Errorf("over the limit: %v", err)
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
