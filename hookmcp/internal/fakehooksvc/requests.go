package fakehooksvc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// request is one captured request: a web request, an email or a DNS
// lookup (kind).
type request struct {
	UUID      string
	tokenID   string
	kind      string // web, email or dns
	method    string
	ip        string
	hostname  string
	userAgent string
	url       string
	query     url.Values
	headers   http.Header
	body      []byte // as stored: none for a multipart body
	size      int    // of the body as received
	form      url.Values
	files     map[string]file
	email     *Email
	sorting   int64
	createdAt time.Time
	// unstoredReads counts the reads by id still to answer 404
	// (Options.NotYetStored).
	unstoredReads int
}

// heldCapture is a sender held open while its token listens, until a
// response is set for it or listen seconds pass.
type heldCapture struct {
	requestID string
	tokenID   string // the token it was sent to: another token's URL cannot answer it
	listen    time.Duration
	answer    chan setAnswer // buffered: the setter never blocks
	fallback  setAnswer      // the token's response
}

// setAnswer is a response to a captured request's sender.
type setAnswer struct {
	status  int
	header  http.Header
	content []byte
}

// capture stores a request sent to /{uuid}[/status][/anything] and answers
// with the token's default response, or, when the token listens (1 to 10
// seconds), returns the sender held for a response set through the API.
func (s *Server) capture(w http.ResponseWriter, r *http.Request, segments []string, body []byte) *heldCapture {
	t, ok := s.live(w, segments[0])
	if !ok {
		return nil
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "The request body is larger than 10 MB.")
		return nil
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	req := &request{
		kind:      "web",
		method:    r.Method,
		userAgent: r.UserAgent(),
		hostname:  r.Host,
		url:       scheme + "://" + r.Host + r.URL.RequestURI(),
		query:     r.URL.Query(),
		headers:   r.Header.Clone(),
		body:      body,
		size:      len(body),
	}
	req.ip, _, _ = net.SplitHostPort(r.RemoteAddr)
	switch mediaType, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType {
	case "application/x-www-form-urlencoded":
		req.form, _ = url.ParseQuery(string(body))
	case "multipart/form-data":
		// PHP keeps no raw body of a multipart request: the service
		// stores its fields and files only.
		req.body = nil
		req.form, req.files = s.parseMultipart(body, params["boundary"])
	}
	s.store(t, req)
	answer := setAnswer{status: t.settings.DefaultStatus, header: http.Header{}, content: []byte(t.settings.DefaultContent)}
	if len(segments) > 1 {
		if code, err := strconv.Atoi(segments[1]); err == nil && code >= 100 && code <= 599 {
			answer.status = code
		}
	}
	answer.header.Set("Content-Type", t.settings.DefaultContentType)
	if t.settings.Cors {
		answer.header.Set("Access-Control-Allow-Origin", "*")
	}
	if !s.omitRequestID {
		w.Header().Set("X-Request-Id", req.UUID)
	}
	w.Header().Set("X-Token-Id", t.UUID)
	if t.settings.Listen > 0 && !s.openSource {
		held := &heldCapture{requestID: req.UUID, tokenID: t.UUID, listen: time.Duration(t.settings.Listen) * time.Second, answer: make(chan setAnswer, 1), fallback: answer}
		s.waiting[req.UUID] = held
		return held
	}
	writeAnswer(w, answer)
	return nil
}

// store gives req its id, time and cursor and keeps it within the token's
// request limit, then tells the socket's subscribers.
func (s *Server) store(t *token, req *request) {
	now := s.now().UTC()
	s.seq = max(s.seq+1, now.UnixMicro())
	req.UUID, req.tokenID, req.sorting, req.createdAt, req.unstoredReads = newUUID(), t.UUID, s.seq, now, s.notYetStored
	if limit := t.requestLimit(); limit > 0 {
		t.requests = append(t.requests, req)
		if over := len(t.requests) - limit; over > 0 {
			t.requests = append([]*request(nil), t.requests[over:]...)
		}
	}
	s.announce(t, req)
}

// awaitResponse answers a held sender with the response set for it, or
// with the token's once listen seconds pass or the sender goes away.
func (s *Server) awaitResponse(w http.ResponseWriter, r *http.Request, held *heldCapture) {
	select {
	case answer := <-held.answer:
		writeAnswer(w, answer)
		return
	case <-s.after(held.listen):
	case <-r.Context().Done():
	}
	s.mu.Lock()
	if s.waiting[held.requestID] == held {
		delete(s.waiting, held.requestID)
	}
	s.mu.Unlock()
	// A response set just before the wait ended still wins.
	select {
	case answer := <-held.answer:
		writeAnswer(w, answer)
	default:
		writeAnswer(w, held.fallback)
	}
}

// hopHeaders are the headers of a set response that describe the
// connection it came over, not the response: the fake's own server writes
// them.
var hopHeaders = map[string]bool{
	"Connection": true, "Content-Length": true, "Keep-Alive": true, "Transfer-Encoding": true,
	"Te": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true, "Content-Encoding": true,
}

func writeAnswer(w http.ResponseWriter, answer setAnswer) {
	for name, values := range answer.header {
		if !hopHeaders[http.CanonicalHeaderKey(name)] {
			for _, v := range values {
				w.Header().Add(name, v)
			}
		}
	}
	w.WriteHeader(answer.status)
	w.Write(answer.content)
}

// setResponse serves PUT /token/{id}/request/{rid}/response: the response
// for a sender the token holds waiting, {"status":200,"content":"<base64>",
// "headers":{"name":["value"]}}. It answers {"status":3} when a sender
// took it, {"status":2} when none was waiting.
func (s *Server) setResponse(w http.ResponseWriter, r *http.Request, t *token, id string, body []byte) {
	if r.Method != http.MethodPut {
		methodNotAllowed(w, "PUT")
		return
	}
	held := s.waiting[id]
	if held != nil && held.tokenID != t.UUID {
		held = nil
	}
	if held == nil && t.find(id) == nil {
		writeError(w, http.StatusNotFound, "Request not found.")
		return
	}
	if len(body) > maxRead {
		writeError(w, http.StatusRequestEntityTooLarge, "The response is larger than 10 MB.")
		return
	}
	var in struct {
		Status  json.RawMessage            `json:"status"`
		Content *string                    `json:"content"`
		Headers map[string]json.RawMessage `json:"headers"`
	}
	errs := validationErrors{}
	if err := json.Unmarshal(body, &in); err != nil {
		errs.add("body", "The request body must be a JSON object.")
		s.writeInvalid(w, errs)
		return
	}
	answer := setAnswer{status: http.StatusOK, header: http.Header{}}
	if in.Status != nil {
		if n, ok := laravelInteger(in.Status); !ok || n < 100 || n > 599 {
			errs.add("status", "The status must be an integer between 100 and 599.")
		} else {
			answer.status = n
		}
	}
	if in.Content != nil {
		content, err := base64.StdEncoding.DecodeString(*in.Content)
		if err != nil {
			errs.add("content", "The content must be base64-encoded.")
		}
		answer.content = content
	}
	for name, raw := range in.Headers {
		var values []string
		if json.Unmarshal(raw, &values) != nil {
			var one string
			if json.Unmarshal(raw, &one) != nil {
				errs.add("headers."+name, "The header %s must be a string or a list of strings.", name)
				continue
			}
			values = []string{one}
		}
		for _, v := range values {
			answer.header.Add(name, v)
		}
	}
	if len(errs) > 0 {
		s.writeInvalid(w, errs)
		return
	}
	if len(answer.content) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "The response is larger than 10 MB.")
		return
	}
	if held == nil {
		writeJSON(w, http.StatusOK, map[string]any{"status": 2})
		return
	}
	delete(s.waiting, id)
	held.answer <- answer
	writeJSON(w, http.StatusOK, map[string]any{"status": 3})
}

// find is the token's request with id, or nil.
func (t *token) find(id string) *request {
	for _, req := range t.requests {
		if req.UUID == id {
			return req
		}
	}
	return nil
}

// download serves GET /token/{id}/request/{rid}/download/{fileId}: a 302 to
// the file's bytes in storage (on this server).
func (s *Server) download(w http.ResponseWriter, r *http.Request, t *token, id, fileID string) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	if req := t.find(id); req != nil {
		for _, f := range req.files {
			if f.ID == fileID {
				scheme := "http"
				if r.TLS != nil {
					scheme = "https"
				}
				http.Redirect(w, r, scheme+"://"+r.Host+"/storage/"+f.storageKey, http.StatusFound)
				return
			}
		}
	}
	writeError(w, http.StatusNotFound, "File not found.")
}

// serveStorage serves a stored file's bytes, as the storage a download
// redirects to does: no key needed, the address is the secret.
func (s *Server) serveStorage(w http.ResponseWriter, r *http.Request, key string) {
	f := s.storage[key]
	if f == nil || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.contentType)
	w.Write(f.data)
}

// Email is a mail for CaptureEmail: what the hosted service shows of a
// mail sent to EmailAddress(token).
type Email struct {
	From      string
	To        []string // the destinations; EmailAddress(token) when empty
	Subject   string
	Text      string // the plain-text part
	HTML      string // the HTML part
	MessageID string // made up when empty
}

// CaptureEmail stores a mail for the token as the hosted service stores
// one sent to its address, and tells the socket's subscribers. It returns
// the request's id.
func (s *Server) CaptureEmail(tokenID string, e Email) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.liveToken(tokenID)
	if t == nil {
		return "", fmt.Errorf("fakehooksvc: no live token %s", tokenID)
	}
	if len(e.To) == 0 {
		e.To = []string{EmailAddress(tokenID)}
	}
	if e.MessageID == "" {
		e.MessageID = newUUID() + "@fakehooksvc"
	}
	raw := emailSource(e)
	headers := http.Header{}
	headers.Set("From", e.From)
	headers.Set("To", strings.Join(e.To, ", "))
	headers.Set("Subject", e.Subject)
	headers.Set("Message-Id", "<"+e.MessageID+">")
	headers.Set("Mime-Version", "1.0")
	req := &request{kind: "email", hostname: "emailhook.site", headers: headers, body: raw, size: len(raw), email: &e}
	s.store(t, req)
	return req.UUID, nil
}

// emailSource is a mail's raw source, as content holds it: multipart
// alternative when it has both parts.
func emailSource(e Email) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s>\r\nMIME-Version: 1.0\r\n", e.From, strings.Join(e.To, ", "), mime.QEncoding.Encode("utf-8", e.Subject), e.MessageID)
	if e.HTML == "" {
		fmt.Fprintf(&b, "Content-Type: text/plain; charset=utf-8\r\n\r\n%s", e.Text)
		return b.Bytes()
	}
	parts := multipart.NewWriter(&b)
	fmt.Fprintf(&b, "Content-Type: multipart/alternative; boundary=%s\r\n\r\n", parts.Boundary())
	for _, p := range []struct{ kind, text string }{{"text/plain", e.Text}, {"text/html", e.HTML}} {
		w, _ := parts.CreatePart(textproto.MIMEHeader{"Content-Type": {p.kind + "; charset=utf-8"}})
		io.WriteString(w, p.text)
	}
	parts.Close()
	return b.Bytes()
}

// DNSLookup is a lookup for CaptureDNS.
type DNSLookup struct {
	Name string // the name looked up, below DNSName(token): "x" gives x.<token>.dnshook.site
	Type string // the record type, A when empty
	IP   string // the resolver that asked, 192.0.2.53 when empty
}

// CaptureDNS stores a DNS lookup of a name under the token's DNS name, as
// the hosted service stores one, and tells the socket's subscribers. It
// returns the request's id.
func (s *Server) CaptureDNS(tokenID string, d DNSLookup) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.liveToken(tokenID)
	if t == nil {
		return "", fmt.Errorf("fakehooksvc: no live token %s", tokenID)
	}
	name := DNSName(tokenID)
	if d.Name != "" {
		name = d.Name + "." + name
	}
	if d.Type == "" {
		d.Type = "A"
	}
	if d.IP == "" {
		d.IP = "192.0.2.53"
	}
	req := &request{kind: "dns", hostname: name, ip: d.IP, method: d.Type, headers: http.Header{}}
	s.store(t, req)
	return req.UUID, nil
}

// listRequests serves GET /token/{id}/requests with the page envelope.
func (s *Server) listRequests(w http.ResponseWriter, r *http.Request, t *token) (unlocked func()) {
	q := r.URL.Query()
	errs := validationErrors{}
	perPage := intParam(q, "per_page", 50, 1, 100, errs)
	page := intParam(q, "page", 1, 1, 1<<31-1, errs)
	sorting := last(q, "sorting")
	if sorting != "" && sorting != "newest" && sorting != "oldest" {
		errs.add("sorting", "The selected sorting is invalid.")
	}
	match, filterErrs := s.filter(q)
	for k, v := range filterErrs {
		errs[k] = v
	}
	if len(errs) > 0 {
		s.writeInvalid(w, errs)
		return nil
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
	// The page is written once the lock is released: a stored request
	// does not change, nor does a token's UUID, and selected is this
	// call's own.
	return func() {
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
}

// deleteRequests serves DELETE /token/{id}/request: those matching the
// filters, or all of them.
func (s *Server) deleteRequests(w http.ResponseWriter, r *http.Request, t *token) {
	match, errs := s.filter(r.URL.Query())
	if len(errs) > 0 {
		s.writeInvalid(w, errs)
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
	if found != nil && id != "latest" && r.Method == http.MethodGet && found.unstoredReads > 0 {
		found.unstoredReads--
		found = nil
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

// last is a query parameter's value as PHP reads a query string: the last
// of a repeated name.
func last(q url.Values, name string) string {
	if values := q[name]; len(values) > 0 {
		return values[len(values)-1]
	}
	return ""
}

func intParam(q url.Values, name string, def, lowest, highest int, errs validationErrors) int {
	text := last(q, name)
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
		text := last(q, name)
		if text == "" {
			continue
		}
		t, err := s.parseDate(text)
		if err != nil {
			errs.add(name, "The %s does not match the format Y-m-d H:i:s.", human(name))
		}
		*dst = t
	}
	query, err := parseQuery(last(q, "query"), s.now().UTC())
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
// (files, custom action output) are [] when empty (the server is PHP). An
// email has no method, url, query or form, and adds its sender, message
// id, destinations, checks and parsed parts; a DNS lookup shows the name
// looked up as its hostname.
func requestJSON(t *token, req *request) map[string]any {
	headers := map[string][]string{}
	for name, values := range req.headers {
		headers[strings.ToLower(name)] = values
	}
	out := map[string]any{
		"uuid":                 req.UUID,
		"token_id":             t.UUID,
		"type":                 req.kind,
		"ip":                   nullable(req.ip),
		"hostname":             req.hostname,
		"method":               nullable(req.method),
		"user_agent":           nullable(req.userAgent),
		"content":              string(req.body),
		"query":                phpValues(req.query),
		"headers":              headers,
		"url":                  nullable(req.url),
		"size":                 req.size,
		"files":                filesJSON(req.files),
		"custom_action_output": []any{},
		"custom_action_errors": []any{},
		"time":                 0.001,
		"note":                 nil,
		"sorting":              req.sorting,
		"request":              phpValues(req.form),
		"created_at":           req.createdAt.Format(timeLayout),
		"updated_at":           req.createdAt.Format(timeLayout),
	}
	if e := req.email; e != nil {
		out["sender"] = e.From
		out["message_id"] = e.MessageID
		out["destinations"] = e.To
		out["checks"] = map[string]bool{"spam": true, "virus": true, "spf": true, "dkim": true, "dmarc": true}
		out["text_content"] = e.Text
		out["html_content"] = e.HTML
	}
	if len(headers) == 0 {
		out["headers"] = []any{}
	}
	return out
}

// nullable is null for an empty string.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// file is an uploaded file of a multipart body.
type file struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	Name        string `json:"name"`
	Size        int    `json:"size"`
	ContentType string `json:"content_type"`
	storageKey  string
}

// storedFile is an uploaded file's bytes in storage.
type storedFile struct {
	contentType string
	data        []byte
}

// parseMultipart reads a multipart/form-data body: its plain fields, and
// its files (by field name, the last of a repeated name as PHP keeps it),
// whose bytes go to storage. A malformed body gives what was read before
// the fault, as a lenient server would.
func (s *Server) parseMultipart(body []byte, boundary string) (url.Values, map[string]file) {
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
		contentType := part.Header.Get("Content-Type")
		if contentType == "" {
			contentType = "application/octet-stream"
		}
		key := strings.ReplaceAll(newUUID(), "-", "")
		s.storage[key] = &storedFile{contentType: contentType, data: content}
		files[part.FormName()] = file{
			ID: newUUID(), Filename: part.FileName(), Name: part.FormName(), Size: len(content),
			ContentType: contentType, storageKey: key,
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

// phpValues maps names to values as PHP reads a query string or a form:
// the last value of a repeated name, a list for a name ending in [] (the
// brackets dropped); null for none.
func phpValues(values url.Values) any {
	if len(values) == 0 {
		return nil
	}
	out := make(map[string]any, len(values))
	for k, v := range values {
		if list, ok := strings.CutSuffix(k, "[]"); ok {
			out[list] = v
			continue
		}
		if _, isList := values[k+"[]"]; !isList {
			out[k] = v[len(v)-1]
		}
	}
	return out
}

// phpField is the values of one name of a query string or form as PHP
// reads them (see phpValues).
func phpField(values url.Values, name string) []string {
	if list, ok := values[name+"[]"]; ok {
		return list
	}
	if v := values[name]; len(v) > 0 {
		return v[len(v)-1:]
	}
	return nil
}
