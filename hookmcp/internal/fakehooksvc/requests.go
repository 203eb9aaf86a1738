package fakehooksvc

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// request is one captured request.
type request struct {
	UUID      string
	method    string
	ip        string
	hostname  string
	userAgent string
	url       string
	query     url.Values
	headers   http.Header
	body      []byte
	form      url.Values
	files     map[string]file
	sorting   int64
	createdAt time.Time
}

// capture stores a request sent to /{uuid}[/status][/anything] and answers
// with the token's default response.
func (s *Server) capture(w http.ResponseWriter, r *http.Request, segments []string, body []byte) {
	t, ok := s.live(w, segments[0])
	if !ok {
		return
	}
	now := s.now().UTC()
	s.seq = max(s.seq+1, now.UnixMicro())
	req := &request{
		UUID:      newUUID(),
		method:    r.Method,
		userAgent: r.UserAgent(),
		hostname:  r.Host,
		url:       "http://" + r.Host + r.URL.RequestURI(),
		query:     r.URL.Query(),
		headers:   r.Header.Clone(),
		body:      body,
		sorting:   s.seq,
		createdAt: now,
	}
	req.ip, _, _ = net.SplitHostPort(r.RemoteAddr)
	switch mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType {
	case "application/x-www-form-urlencoded":
		req.form, _ = url.ParseQuery(string(body))
	case "multipart/form-data":
		req.form, req.files = parseMultipart(body, params["boundary"])
	}
	if limit := t.requestLimit(); limit > 0 {
		t.requests = append(t.requests, req)
		if over := len(t.requests) - limit; over > 0 {
			t.requests = append([]*request(nil), t.requests[over:]...)
		}
	}
	s.announce(t, req)
	status := t.settings.DefaultStatus
	if len(segments) > 1 {
		if code, err := strconv.Atoi(segments[1]); err == nil && code >= 100 && code <= 599 {
			status = code
		}
	}
	if !s.omitRequestID {
		w.Header().Set("X-Request-Id", req.UUID)
	}
	w.Header().Set("X-Token-Id", t.UUID)
	if t.settings.Cors {
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}
	w.Header().Set("Content-Type", t.settings.DefaultContentType)
	w.WriteHeader(status)
	w.Write([]byte(t.settings.DefaultContent))
}

// listRequests serves GET /token/{id}/requests with the page envelope.
func (s *Server) listRequests(w http.ResponseWriter, r *http.Request, t *token) {
	q := r.URL.Query()
	errs := validationErrors{}
	perPage := intParam(q, "per_page", 50, 1, 100, errs)
	page := intParam(q, "page", 1, 1, 1<<31-1, errs)
	sorting := q.Get("sorting")
	if sorting != "" && sorting != "newest" && sorting != "oldest" {
		errs.add("sorting", "The selected sorting is invalid.")
	}
	match, filterErrs := s.filter(q)
	for k, v := range filterErrs {
		errs[k] = v
	}
	if len(errs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, errs)
		return
	}
	var selected []*request
	for _, req := range t.requests {
		if match(req) {
			selected = append(selected, req)
		}
	}
	if sorting == "newest" {
		for i, j := 0, len(selected)-1; i < j; i, j = i+1, j-1 {
			selected[i], selected[j] = selected[j], selected[i]
		}
	}
	total := len(selected)
	start := min((page-1)*perPage, total)
	end := min(start+perPage, total)
	data := make([]any, 0, end-start)
	for _, req := range selected[start:end] {
		data = append(data, requestJSON(t, req))
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

// deleteRequests serves DELETE /token/{id}/request: those matching the
// filters, or all of them.
func (s *Server) deleteRequests(w http.ResponseWriter, r *http.Request, t *token) {
	match, errs := s.filter(r.URL.Query())
	if len(errs) > 0 {
		writeJSON(w, http.StatusUnprocessableEntity, errs)
		return
	}
	kept := t.requests[:0:0]
	for _, req := range t.requests {
		if !match(req) {
			kept = append(kept, req)
		}
	}
	deleted := len(kept) < len(t.requests)
	t.requests = kept
	// The open-source server answers Redis DEL's count as a bool: false
	// when the token had no requests. The hosted service says true.
	writeJSON(w, http.StatusOK, map[string]any{"status": deleted || !s.openSource})
}

// serveOneRequest serves /token/{id}/request/{requestId|latest}[/raw].
func (s *Server) serveOneRequest(w http.ResponseWriter, r *http.Request, t *token, id string, raw bool) {
	var found *request
	index := -1
	if id == "latest" {
		if n := len(t.requests); n > 0 {
			found, index = t.requests[n-1], n-1
		}
	} else {
		for i, req := range t.requests {
			if req.UUID == id {
				found, index = req, i
			}
		}
	}
	if found == nil {
		writeError(w, http.StatusNotFound, "Request not found.")
		return
	}
	switch {
	case r.Method == http.MethodDelete && !raw && id != "latest":
		t.requests = append(t.requests[:index:index], t.requests[index+1:]...)
		writeJSON(w, http.StatusOK, map[string]any{"status": true})
	case r.Method != http.MethodGet:
		methodNotAllowed(w, "GET, HEAD")
	case raw:
		contentType := "text/plain"
		if mediaType, _, _ := mime.ParseMediaType(found.headers.Get("Content-Type")); mediaType == "application/json" {
			contentType = found.headers.Get("Content-Type")
		}
		w.Header().Set("Content-Type", contentType)
		w.Write(found.body)
	default:
		writeJSON(w, http.StatusOK, requestJSON(t, found))
	}
}

func intParam(q url.Values, name string, def, lowest, highest int, errs validationErrors) int {
	text := q.Get(name)
	if text == "" {
		return def
	}
	n, err := strconv.Atoi(text)
	switch {
	case err != nil:
		errs.add(name, "The %s must be an integer.", human(name))
	case n < lowest:
		errs.add(name, "The %s must be at least %d.", human(name), lowest)
	case n > highest:
		errs.add(name, "The %s must not be greater than %d.", human(name), highest)
	default:
		return n
	}
	return def
}

// filter turns date_from, date_to and query into a predicate. Dates are
// inclusive; the delete endpoint's relative forms (now-7d) are accepted too.
func (s *Server) filter(q url.Values) (func(*request) bool, validationErrors) {
	errs := validationErrors{}
	if s.openSource {
		// The open-source server's RequestController reads none of them.
		return func(*request) bool { return true }, errs
	}
	var from, to time.Time
	for name, dst := range map[string]*time.Time{"date_from": &from, "date_to": &to} {
		text := q.Get(name)
		if text == "" {
			continue
		}
		t, err := s.parseDate(text)
		if err != nil {
			errs.add(name, "The %s does not match the format Y-m-d H:i:s.", human(name))
		}
		*dst = t
	}
	query, err := parseQuery(q.Get("query"))
	if err != nil {
		errs.add("query", "%v", err)
	}
	return func(req *request) bool {
		at := req.createdAt.Truncate(time.Second)
		if !from.IsZero() && at.Before(from) || !to.IsZero() && at.After(to) {
			return false
		}
		return query == nil || query.match(req)
	}, errs
}

func (s *Server) parseDate(text string) (time.Time, error) {
	if rest, ok := strings.CutPrefix(text, "now-"); ok && len(rest) > 1 {
		n, err := strconv.Atoi(rest[:len(rest)-1])
		unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[rest[len(rest)-1]]
		if err == nil && unit != 0 {
			return s.now().UTC().Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Parse(timeLayout, text)
}

// requestJSON renders a captured request with the fields the API shows:
// query and form fields are null when there are none, and the list fields
// (files, custom action output) are [] when empty.
func requestJSON(t *token, req *request) map[string]any {
	headers := map[string][]string{}
	for name, values := range req.headers {
		headers[strings.ToLower(name)] = values
	}
	return map[string]any{
		"uuid":                 req.UUID,
		"token_id":             t.UUID,
		"type":                 "web",
		"ip":                   req.ip,
		"hostname":             req.hostname,
		"method":               req.method,
		"user_agent":           req.userAgent,
		"content":              string(req.body),
		"query":                firstValues(req.query),
		"headers":              headers,
		"url":                  req.url,
		"size":                 len(req.body),
		"files":                filesJSON(req.files),
		"custom_action_output": []any{},
		"custom_action_errors": []any{},
		"time":                 0.001,
		"note":                 nil,
		"sorting":              req.sorting,
		"request":              firstValues(req.form),
		"created_at":           req.createdAt.Format(timeLayout),
		"updated_at":           req.createdAt.Format(timeLayout),
	}
}

// file is an uploaded file of a multipart body.
type file struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	Name        string `json:"name"`
	Size        int    `json:"size"`
	ContentType string `json:"content_type"`
}

// parseMultipart reads a multipart/form-data body: its plain fields and its
// files (by field name). A malformed body gives what was read before the
// fault, as a lenient server would.
func parseMultipart(body []byte, boundary string) (url.Values, map[string]file) {
	fields, files := url.Values{}, map[string]file{}
	if boundary == "" {
		return nil, nil
	}
	reader := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := reader.NextPart()
		if err != nil {
			break
		}
		content, _ := io.ReadAll(part)
		if part.FileName() == "" {
			fields.Add(part.FormName(), string(content))
			continue
		}
		files[part.FormName()] = file{
			ID: newUUID(), Filename: part.FileName(), Name: part.FormName(), Size: len(content),
			ContentType: part.Header.Get("Content-Type"),
		}
	}
	return fields, files
}

// filesJSON is a request's files as the API shows them: [] when there are
// none (the server is PHP), else an object by field name.
func filesJSON(files map[string]file) any {
	if len(files) == 0 {
		return []any{}
	}
	return files
}

// firstValues maps each name to its first value, or is nil for none.
func firstValues(values url.Values) any {
	if len(values) == 0 {
		return nil
	}
	out := make(map[string]string, len(values))
	for k, v := range values {
		out[k] = v[0]
	}
	return out
}
