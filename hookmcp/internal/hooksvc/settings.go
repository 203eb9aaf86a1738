package hooksvc

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// UUIDPattern matches a token or request UUID, the only ids the API takes in
// paths (it does not accept a token alias there).
var UUIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ExampleUUID is a well-formed token UUID, for messages.
const ExampleUUID = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d"

// AliasPattern is what the API accepts as a token's alias.
var AliasPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{3,32}$`)

// CloneFromPattern is a token UUID or an alias: what clone_from takes.
var CloneFromPattern = regexp.MustCompile(`^(` + strings.Trim(UUIDPattern.String(), "^$") + `|` + strings.Trim(AliasPattern.String(), "^$") + `)$`)

// The API's date format, UTC: yyyy-MM-dd HH:mm:ss.
var DatePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$`)

const DateLayout = "2006-01-02 15:04:05"

// DateExprPattern is a date expression relative to now, as the API's delete
// endpoint documents them: now, or now minus a whole number of seconds,
// minutes, hours, days or weeks (now-7d, now-1h, now-30m).
var DateExprPattern = regexp.MustCompile(`^now(-(\d{1,6})([smhdw]))?$`)

// DateOrExprPattern is what a date filter that takes expressions accepts.
var DateOrExprPattern = regexp.MustCompile(`^(\d{4}(-\d\d){2} \d\d(:\d\d){2}|now(-\d{1,6}[smhdw])?)$`)

var dateUnits = map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}

// ResolveDate checks a date argument that may also be an expression
// (DateExprPattern) and returns it as an absolute UTC time in the API's
// layout, resolved against now: the listing that checks a filter first
// takes only absolute dates. An empty one is absent and gives "".
func ResolveDate(name, v string, now time.Time) (string, time.Time, error) {
	if v == "" {
		return "", time.Time{}, nil
	}
	if m := DateExprPattern.FindStringSubmatch(v); m != nil {
		at := now.UTC().Truncate(time.Second)
		if m[1] != "" {
			n, _ := strconv.Atoi(m[2])
			at = at.Add(-time.Duration(n) * dateUnits[m[3]])
		}
		return at.Format(DateLayout), at, nil
	}
	t, err := time.Parse(DateLayout, v)
	if !DatePattern.MatchString(v) || err != nil {
		return "", time.Time{}, fmt.Errorf("%s must be a UTC date and time written yyyy-MM-dd HH:mm:ss, such as 2026-11-21 14:30:00, "+
			"or an expression relative to now: now, now-30m, now-1h, now-7d (units s, m, h, d, w); got %s", name, Quote(v))
	}
	return v, t, nil
}

// Settings are the configurable fields of a token, by their API names, in
// the order the API documents them. update_token sends all of them back.
var Settings = []string{
	"default_status", "default_content", "default_content_type", "timeout", "listen",
	"expiry", "request_limit", "cors", "alias", "actions",
}

// Bounds is the range the API accepts for a numeric setting.
type Bounds struct{ Min, Max int }

// SettingBounds are the API's bounds of the numeric settings.
var SettingBounds = map[string]Bounds{
	"default_status": {200, 599},
	"timeout":        {0, 30},
	"listen":         {0, 10},
	"expiry":         {0, 604800}, // 0: none (null)
	"request_limit":  {0, 10000},
}

// TokenSettings are a token's configurable fields, as create_token and
// update_token take them. A nil field was not given. Numbers are float64 so
// that 1.5 reaches Validate and is refused with the rule. Defaults are the
// hosted service's; the open-source server's differ where noted.
type TokenSettings struct {
	DefaultStatus      *float64 `json:"default_status,omitempty" jsonschema:"status the capture URL answers with"`
	DefaultContent     *string  `json:"default_content,omitempty" jsonschema:"body it answers with"`
	DefaultContentType *string  `json:"default_content_type,omitempty" jsonschema:"that body's Content-Type"`
	Timeout            *float64 `json:"timeout,omitempty" jsonschema:"answer delay in seconds (at most 10 on open-source servers); not this call's time limit"`
	Listen             *float64 `json:"listen,omitempty" jsonschema:"seconds it waits for a response set via the API"`
	Expiry             *float64 `json:"expiry,omitempty" jsonschema:"seconds until the token expires; 0: the plan's default"`
	RequestLimit       *float64 `json:"request_limit,omitempty" jsonschema:"most requests kept; 0 keeps none"`
	Cors               *bool    `json:"cors,omitempty" jsonschema:"add CORS headers to its answers"`
	Alias              *string  `json:"alias,omitempty" jsonschema:"custom alias"`
	Actions            *bool    `json:"actions,omitempty" jsonschema:"enable Custom Actions (an account feature)"`
}

func (s TokenSettings) numbers() map[string]*float64 {
	return map[string]*float64{
		"default_status": s.DefaultStatus, "timeout": s.Timeout, "listen": s.Listen,
		"expiry": s.Expiry, "request_limit": s.RequestLimit,
	}
}

// Validate checks every given setting against the API's rules; its error
// names the setting, the rule and the value.
func (s TokenSettings) Validate() error {
	numbers := s.numbers()
	for _, name := range Settings {
		v, ok := numbers[name]
		if !ok || v == nil {
			continue
		}
		b := SettingBounds[name]
		if *v != math.Trunc(*v) || *v < float64(b.Min) || *v > float64(b.Max) {
			return fmt.Errorf("%s must be a whole number from %d to %d; got %g", name, b.Min, b.Max, *v)
		}
	}
	if s.Alias != nil && !AliasPattern.MatchString(*s.Alias) {
		return fmt.Errorf("alias must be 3 to 32 letters, digits, _ or - (pattern %s); got %s", AliasPattern, Quote(*s.Alias))
	}
	return nil
}

// Fields returns the given settings by their API names, whole numbers as
// integers: the body to send. Call Validate first.
func (s TokenSettings) Fields() map[string]any {
	out := map[string]any{}
	for name, v := range s.numbers() {
		if v != nil {
			out[name] = int(*v)
		}
	}
	if s.Expiry != nil && *s.Expiry == 0 {
		out["expiry"] = nil // the API's "no expiry of its own"
	}
	for name, v := range map[string]*string{"default_content": s.DefaultContent, "default_content_type": s.DefaultContentType, "alias": s.Alias} {
		if v != nil {
			out[name] = *v
		}
	}
	for name, v := range map[string]*bool{"cors": s.Cors, "actions": s.Actions} {
		if v != nil {
			out[name] = *v
		}
	}
	return out
}
