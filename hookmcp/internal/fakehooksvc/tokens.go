package fakehooksvc

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// token is a capture token and what it captured.
type token struct {
	UUID      string
	owner     string // the API key that created it; empty for a public token
	settings  settings
	createdAt time.Time
	updatedAt time.Time
	requests  []*request // oldest first
}

// settings are a token's configurable fields, as the API names them.
// Description is one hookmcp does not know: it must survive update_token.
type settings struct {
	DefaultStatus      int     `json:"default_status"`
	DefaultContent     string  `json:"default_content"`
	DefaultContentType string  `json:"default_content_type"`
	Timeout            int     `json:"timeout"`
	Listen             int     `json:"listen"`
	Expiry             *int    `json:"expiry"`
	RequestLimit       *int    `json:"request_limit"`
	Cors               bool    `json:"cors"`
	Alias              *string `json:"alias"`
	Actions            bool    `json:"actions"`
	Description        *string `json:"description"`
	GroupID            *int    `json:"group_id"`
}

// HostedPlaceholder is the page a new token answers with on the hosted
// service when it is given no default_content.
const HostedPlaceholder = "<!DOCTYPE html><html><body><h1>This URL has no default content configured.</h1></body></html>"

// Server defaults of the settings a token is created without.
const (
	defaultExpiry       = 604800 // a week, in seconds
	defaultRequestLimit = 10000
)

// defaultSettings are what the API gives every field it is not sent, on
// create and, because PUT replaces, on update too. The hosted service shows
// an HTML placeholder and leaves expiry and request_limit null (its
// defaults apply); the open-source server answers an empty text/plain body
// and writes the numbers out.
func (s *Server) defaultSettings() settings {
	if s.openSource {
		week, limit := defaultExpiry, defaultRequestLimit
		return settings{DefaultStatus: 200, DefaultContentType: "text/plain", Expiry: &week, RequestLimit: &limit}
	}
	return settings{DefaultStatus: 200, DefaultContentType: "text/html", DefaultContent: HostedPlaceholder}
}

// expiresAt is when a token expires, or the zero time for never. A null
// expiry is the service's default: a week for a public token, never for an
// account's.
func (t *token) expiresAt() time.Time {
	switch {
	case t.settings.Expiry != nil:
		return t.createdAt.Add(time.Duration(*t.settings.Expiry) * time.Second)
	case t.owner == "":
		return t.createdAt.Add(defaultExpiry * time.Second)
	}
	return time.Time{}
}

func (t *token) expired(now time.Time) bool {
	at := t.expiresAt()
	return !at.IsZero() && now.After(at)
}

// requestLimit is how many requests the token keeps.
func (t *token) requestLimit() int {
	if t.settings.RequestLimit == nil {
		return defaultRequestLimit
	}
	return *t.settings.RequestLimit
}

var aliasPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{3,32}$`)

// validationErrors collects Laravel-style field messages for a 422.
type validationErrors map[string][]string

func (v validationErrors) add(field, format string, args ...any) {
	v[field] = append(v[field], fmt.Sprintf(format, args...))
}

// decodeSettings applies the members of body onto base, the way the API
// validates them: unknown and read-only members are ignored (a client may
// send back the whole token as read), known ones must have the right type
// and range, as Laravel's rules check them: an integer may come as a
// string of digits ("3"), a boolean as 0, 1, "0" or "1". On create the
// hosted service ignores listen: it is set by an update.
func (s *Server) decodeSettings(body []byte, base settings, self *token, create bool) (settings, validationErrors) {
	errs := validationErrors{}
	var members map[string]json.RawMessage
	if len(body) > 0 {
		if err := json.Unmarshal(body, &members); err != nil {
			errs.add("body", "The request body must be a JSON object.")
			return base, errs
		}
	}
	out := base
	integer := func(name string, dst *int, min, max int) {
		raw, ok := members[name]
		if !ok {
			return
		}
		n, ok := laravelInteger(raw)
		if !ok {
			errs.add(name, "The %s must be an integer.", human(name))
			return
		}
		if n < min || n > max {
			errs.add(name, "The %s must be between %d and %d.", human(name), min, max)
			return
		}
		*dst = n
	}
	boolean := func(name string, dst *bool) {
		if raw, ok := members[name]; ok {
			switch string(raw) {
			case "true", "1", `"1"`:
				*dst = true
			case "false", "0", `"0"`:
				*dst = false
			default:
				errs.add(name, "The %s field must be true or false.", human(name))
			}
		}
	}
	str := func(name string, dst *string) {
		if raw, ok := members[name]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				errs.add(name, "The %s must be a string.", human(name))
			}
		}
	}
	// nullable reads an integer setting that null returns to the server's
	// default (and keeps null: never 0).
	nullable := func(name string, dst **int, min, max int) {
		raw, ok := members[name]
		if !ok {
			return
		}
		if string(raw) == "null" {
			*dst = nil
			return
		}
		n := 0
		integer(name, &n, min, max)
		*dst = &n
	}
	maxTimeout := 30
	if s.openSource {
		maxTimeout = 10
	}
	integer("default_status", &out.DefaultStatus, 200, 599)
	integer("timeout", &out.Timeout, 0, maxTimeout)
	if !create || s.openSource {
		integer("listen", &out.Listen, 0, 10)
	}
	nullable("request_limit", &out.RequestLimit, 0, 10000)
	if !s.openSource {
		nullable("group_id", &out.GroupID, 1, 1<<31-1)
	}
	nullable("expiry", &out.Expiry, 1, 604800)
	boolean("cors", &out.Cors)
	boolean("actions", &out.Actions)
	str("default_content", &out.DefaultContent)
	str("default_content_type", &out.DefaultContentType)
	if raw, ok := members["description"]; ok {
		if err := json.Unmarshal(raw, &out.Description); err != nil {
			errs.add("description", "The description must be a string.")
		}
	}
	if raw, ok := members["alias"]; ok {
		var alias *string
		switch err := json.Unmarshal(raw, &alias); {
		case err != nil:
			errs.add("alias", "The alias must be a string.")
		case alias != nil && !aliasPattern.MatchString(*alias):
			errs.add("alias", "The alias format is invalid.")
		case alias != nil && s.aliasTaken(*alias, self):
			errs.add("alias", "The alias has already been taken.")
		default:
			out.Alias = alias
		}
	}
	if raw, ok := members["clone_from"]; ok {
		var cloneFrom string
		if err := json.Unmarshal(raw, &cloneFrom); err != nil {
			errs.add("clone_from", "The clone from must be a string.")
		}
	}
	return out, errs
}

// laravelInteger reads a value as Laravel's integer rule accepts it: a
// JSON number without a fraction, or a string of digits with an optional
// sign (PHP's filter_var trims the string first).
func laravelInteger(raw json.RawMessage) (int, bool) {
	var text string
	if json.Unmarshal(raw, &text) != nil {
		text = string(raw)
	}
	text = strings.TrimSpace(text)
	if f, err := strconv.ParseFloat(text, 64); err == nil && !strings.HasPrefix(string(raw), `"`) {
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, false
		}
		return int(f), true
	}
	n, err := strconv.Atoi(text)
	return n, err == nil
}

func human(field string) string {
	b := []byte(field)
	for i, c := range b {
		if c == '_' {
			b[i] = ' '
		}
	}
	return string(b)
}

func (s *Server) aliasTaken(alias string, self *token) bool {
	for _, t := range s.tokens {
		if t != self && t.settings.Alias != nil && *t.settings.Alias == alias {
			return true
		}
	}
	return false
}

// findByUUIDOrAlias finds a live token for clone_from.
func (s *Server) findByUUIDOrAlias(ref string) *token {
	if t := s.tokens[ref]; t != nil {
		return t
	}
	for _, t := range s.tokens {
		if t.settings.Alias != nil && *t.settings.Alias == ref {
			return t
		}
	}
	return nil
}

func (s *Server) createToken(w http.ResponseWriter, key string, body []byte) {
	base := s.defaultSettings()
	// clone_from picks the base before the other members apply on top.
	var probe struct {
		CloneFrom string `json:"clone_from"`
	}
	if json.Unmarshal(body, &probe) == nil && probe.CloneFrom != "" {
		source := s.findByUUIDOrAlias(probe.CloneFrom)
		if source == nil {
			s.writeInvalid(w, validationErrors{"clone_from": {"The selected clone from is invalid."}})
			return
		}
		base = source.settings
		base.Alias = nil // an alias is unique: a clone does not take it
	}
	set, errs := s.decodeSettings(body, base, nil, true)
	if len(errs) > 0 {
		s.writeInvalid(w, errs)
		return
	}
	now := s.now().UTC()
	t := &token{UUID: newUUID(), owner: key, settings: set, createdAt: now, updatedAt: now}
	s.tokens[t.UUID] = t
	writeJSON(w, http.StatusCreated, s.tokenJSON(t))
}

// updateToken replaces the token's settings: what the body leaves out goes
// back to its default, as on the real API. The open-source server applies
// only the response settings and silently keeps the others as they were.
func (s *Server) updateToken(w http.ResponseWriter, t *token, body []byte) {
	set, errs := s.decodeSettings(body, s.defaultSettings(), t, false)
	if len(errs) > 0 {
		s.writeInvalid(w, errs)
		return
	}
	if s.openSource {
		old := t.settings
		set.Cors, set.Alias, set.Expiry, set.Listen, set.RequestLimit, set.Actions, set.Description =
			old.Cors, old.Alias, old.Expiry, old.Listen, old.RequestLimit, old.Actions, old.Description
	}
	t.settings = set
	t.updatedAt = s.now().UTC()
	writeJSON(w, http.StatusOK, s.tokenJSON(t))
}

// tokenJSON renders a token with the fields the API shows.
func (s *Server) tokenJSON(t *token) map[string]any {
	var expiresAt, latestID, latestAt any
	if at := t.expiresAt(); !at.IsZero() {
		expiresAt = at.Format(timeLayout)
	}
	if n := len(t.requests); n > 0 {
		latestID = t.requests[n-1].UUID
		latestAt = t.requests[n-1].createdAt.Format(timeLayout)
	}
	out := map[string]any{
		"uuid":                 t.UUID,
		"redirect":             false,
		"alias":                t.settings.Alias,
		"actions":              t.settings.Actions,
		"cors":                 t.settings.Cors,
		"expiry":               t.settings.Expiry,
		"timeout":              t.settings.Timeout,
		"listen":               t.settings.Listen,
		"premium":              t.owner != "",
		"premium_expires_at":   nil,
		"expires_at":           expiresAt,
		"user_id":              nil,
		"ip":                   "127.0.0.1",
		"user_agent":           "fakehooksvc",
		"default_content":      t.settings.DefaultContent,
		"default_status":       t.settings.DefaultStatus,
		"default_content_type": t.settings.DefaultContentType,
		"request_limit":        t.settings.RequestLimit,
		"description":          t.settings.Description,
		"require_auth":         t.owner != "",
		"latest_request_id":    latestID,
		"latest_request_at":    latestAt,
		"created_at":           t.createdAt.Format(timeLayout),
		"updated_at":           t.updatedAt.Format(timeLayout),
	}
	if !s.openSource {
		// Account data the hosted service's token object carries: a
		// client must not pass it on as settings. An account's token
		// names its user and team; password says whether viewing its
		// requests needs one (never in the fake).
		var account any
		if id, ok := s.accounts[t.owner]; ok {
			account = id
		}
		out["user_id"] = account
		out["team_id"] = account
		out["group_id"] = t.settings.GroupID
		out["password"] = false
		out["auth_username"] = nil
	}
	return out
}

// EmailAddress is the address whose mail the hosted service captures for
// the token (CaptureEmail stores such a mail).
func EmailAddress(tokenID string) string { return tokenID + "@emailhook.site" }

// DNSName is the name whose lookups (and its subdomains') the hosted
// service captures for the token (CaptureDNS stores such a lookup).
func DNSName(tokenID string) string { return tokenID + ".dnshook.site" }
