package fakehooksvc

import (
	"net/http"
	"slices"
	"strings"
)

// listTokens serves GET /token, the hosted service's list of an account's
// tokens, newest first, in the page envelope the request listings use
// (its shape is not documented: this is the tolerant guess the client
// reads). Without a key there is no account: 401, as the hosted API answers
// an account call without one.
func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, key string) {
	if key == "" {
		writeError(w, http.StatusUnauthorized, "Unauthenticated.")
		return
	}
	q := r.URL.Query()
	errs := validationErrors{}
	perPage := intParam(q, "per_page", 50, 1, 100, errs)
	page := intParam(q, "page", 1, 1, 1<<31-1, errs)
	if len(errs) > 0 {
		s.writeInvalid(w, errs)
		return
	}
	var owned []*token
	for id := range s.tokens {
		if t := s.liveToken(id); t != nil && t.owner == key {
			owned = append(owned, t)
		}
	}
	slices.SortFunc(owned, func(a, b *token) int {
		if c := b.createdAt.Compare(a.createdAt); c != 0 {
			return c
		}
		return strings.Compare(a.UUID, b.UUID)
	})
	total := len(owned)
	start := min((page-1)*perPage, total)
	end := min(start+perPage, total)
	data := make([]any, 0, end-start)
	for _, t := range owned[start:end] {
		data = append(data, s.tokenJSON(t))
	}
	offset := (page - 1) * perPage
	writeJSON(w, http.StatusOK, map[string]any{
		"data":         data,
		"total":        total,
		"per_page":     perPage,
		"current_page": page,
		"is_last_page": len(data)+offset >= total,
		"from":         offset + 1,
		"to":           min(total, len(data)+offset),
	})
}
