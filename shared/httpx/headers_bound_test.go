package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestResponseHeadersBounded: an answer whose headers are over the bound is
// refused before it is read into memory; one just under it is read.
func TestResponseHeadersBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size := MaxResponseHeaderBytes + 1024
		if r.URL.Path == "/small" {
			size = MaxResponseHeaderBytes / 2
		}
		for i := 0; size > 0; i++ {
			w.Header().Add("X-Pad", strings.Repeat("a", 1000))
			size -= 1010
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	client := NewClient(Options{})
	if resp, err := client.Get(srv.URL + "/small"); err != nil {
		t.Fatalf("headers under the bound: %v", err)
	} else {
		resp.Body.Close()
	}
	resp, err := client.Get(srv.URL + "/big")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("headers over %d bytes were read: %d values", MaxResponseHeaderBytes, len(resp.Header["X-Pad"]))
	}
	if !strings.Contains(err.Error(), "header") {
		t.Errorf("error %v does not say the headers were too large", err)
	}
}
