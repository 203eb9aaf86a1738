package fakehooksvc

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestListWhileCapturingAndDeleting: a listing is encoded after the fake's
// lock is released, so pages of a token are listed while the same token's
// requests are captured, deleted one by one and deleted all at once, and
// while another token is created and the fake reset. Run with -race: the
// unlocked encoding must read nothing the others write. Every page must be
// one whole, well-formed listing.
func TestListWhileCapturingAndDeleting(t *testing.T) {
	for _, php := range []bool{false, true} {
		t.Run(fmt.Sprintf("php=%v", php), func(t *testing.T) {
			h := startWith(t, Options{PHPEscapes: php})
			id := h.create(`{}`)
			h.captureN(id, 150)
			send := func(method, path, body string) ([]byte, int, error) {
				req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
				if err != nil {
					return nil, 0, err
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return nil, 0, err
				}
				defer resp.Body.Close()
				raw, err := io.ReadAll(resp.Body)
				return raw, resp.StatusCode, err
			}
			const rounds = 40
			var wg sync.WaitGroup
			for range 3 {
				wg.Go(func() {
					for i := range rounds {
						raw, status, err := send("GET", fmt.Sprintf("/token/%s/requests?per_page=100&page=%d&sorting=newest", id, 1+i%2), "")
						if err != nil {
							t.Error(err)
							return
						}
						var page struct {
							Data  []map[string]any `json:"data"`
							Total *int             `json:"total"`
						}
						if status != http.StatusOK || json.Unmarshal(raw, &page) != nil || page.Total == nil {
							t.Errorf("listing: %d %.200s", status, raw)
							return
						}
						for _, req := range page.Data {
							if req["token_id"] != id || req["uuid"] == "" {
								t.Errorf("a listed request is not whole: %v", req)
								return
							}
							// Read each listed one back, as a resource read
							// checks a request it was given.
							if i%8 == 0 {
								if _, _, err := send("GET", "/token/"+id+"/request/"+req["uuid"].(string), ""); err != nil {
									t.Error(err)
								}
							}
						}
					}
				})
			}
			wg.Go(func() {
				for i := range rounds {
					if _, _, err := send("POST", fmt.Sprintf("/%s/more?i=%d", id, i), `{"a":"é/<&>"}`); err != nil {
						t.Error(err)
						return
					}
				}
			})
			wg.Go(func() {
				for range rounds {
					raw, _, err := send("GET", "/token/"+id+"/requests?per_page=1&sorting=oldest", "")
					if err != nil {
						t.Error(err)
						return
					}
					var page struct {
						Data []struct {
							UUID string `json:"uuid"`
						} `json:"data"`
					}
					if json.Unmarshal(raw, &page) == nil && len(page.Data) == 1 {
						if raw, status, err := send("DELETE", "/token/"+id+"/request/"+page.Data[0].UUID, ""); err != nil || status >= 300 {
							t.Errorf("deleting the oldest: %d %.200s %v", status, raw, err)
						}
					}
				}
				if _, _, err := send("DELETE", "/token/"+id+"/request", ""); err != nil {
					t.Error(err)
				}
			})
			wg.Go(func() {
				for range rounds / 4 {
					if _, _, err := send("POST", "/token", "{}"); err != nil {
						t.Error(err)
					}
				}
			})
			wg.Wait()
		})
	}
}
