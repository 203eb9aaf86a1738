package hooksvc

import (
	"fmt"
	"math"
	"regexp"
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

// ParseDate checks a date argument named name; an empty one is absent and
// gives the zero time.
func ParseDate(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(DateLayout, v)
	if !DatePattern.MatchString(v) || err != nil {
		return time.Time{}, fmt.Errorf("%s must be a UTC date and time written yyyy-MM-dd HH:mm:ss, such as 2026-11-21 14:30:00; got %q", name, v)
	}
	return t, nil
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
	"expiry":         {1, 604800},
	"request_limit":  {0, 10000},
}

// TokenSettings are a token's configurable fields, as create_token and
// update_token take them. A nil field was not given. Numbers are float64 so
// that 1.5 reaches Validate and is refused with the rule.
type TokenSettings struct {
	DefaultStatus      *float64 `json:"default_status,omitempty" jsonschema:"HTTP status the capture URL answers with, 200 to 599 (API default 200)"`
	DefaultContent     *string  `json:"default_content,omitempty" jsonschema:"body the capture URL answers with (API default empty)"`
	DefaultContentType *string  `json:"default_content_type,omitempty" jsonschema:"Content-Type of that answer, e.g. application/json (API default text/plain)"`
	Timeout            *float64 `json:"timeout,omitempty" jsonschema:"seconds the capture URL waits before answering, 0 to 30 (API default 0)"`
	Listen             *float64 `json:"listen,omitempty" jsonschema:"seconds to wait for a response from the Set Response endpoint, 0 to 10 (API default 0)"`
	Expiry             *float64 `json:"expiry,omitempty" jsonschema:"seconds until the token expires, 1 to 604800 (API default 604800, one week)"`
	RequestLimit       *float64 `json:"request_limit,omitempty" jsonschema:"how many requests the token keeps, oldest dropped first, 0 to 10000; 0 keeps none (API default 10000)"`
	Cors               *bool    `json:"cors,omitempty" jsonschema:"add CORS headers to the capture URL's answers"`
	Alias              *string  `json:"alias,omitempty" jsonschema:"custom alias of 3 to 32 letters, digits, _ or -"`
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
		return fmt.Errorf("alias must be 3 to 32 letters, digits, _ or - (pattern %s); got %q", AliasPattern, *s.Alias)
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
