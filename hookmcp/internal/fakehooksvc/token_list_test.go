package fakehooksvc

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestListTokens: GET /token lists the key's account's tokens only, in the
// page envelope, paged; without a key it is 401, and the open-source server
// has no such route.
func TestListTokens(t *testing.T) {
	h := start(t)
	mine := []string{h.createWith("key-one-111", `{}`), h.createWith("key-one-111", `{}`)}
	h.createWith("key-two-222", `{}`)
	h.create(`{}`)
	slices.Sort(mine) // created at one instant: the UUID breaks the tie

	status, _, page := h.do("GET", "/token", "key-one-111", "")
	var listed []string
	for _, tok := range page["data"].([]any) {
		listed = append(listed, tok.(map[string]any)["uuid"].(string))
	}
	if status != http.StatusOK || !slices.Equal(listed, mine) || page["total"] != 2.0 || page["is_last_page"] != true {
		t.Errorf("GET /token: %d %v, want %v", status, page, mine)
	}
	status, _, page = h.do("GET", "/token?per_page=1&page=2", "key-one-111", "")
	if data := page["data"].([]any); status != http.StatusOK || len(data) != 1 || data[0].(map[string]any)["uuid"] != mine[1] || page["is_last_page"] != true || page["from"] != 2.0 {
		t.Errorf("the second page of one: %d %v", status, page)
	}
	if status, _, page = h.do("GET", "/token?per_page=0", "key-one-111", ""); status != http.StatusUnprocessableEntity {
		t.Errorf("per_page=0: %d %v", status, page)
	}
	if status, _, _ = h.do("GET", "/token", "", ""); status != http.StatusUnauthorized {
		t.Errorf("without a key: %d, want 401", status)
	}

	open := httptest.NewServer(New(Options{OpenSource: true, APIKeys: []string{"k"}}))
	defer open.Close()
	req, _ := http.NewRequest("GET", open.URL+"/token", nil)
	req.Header.Set("Api-Key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("the open-source server: %d, want 405", resp.StatusCode)
	}
}
