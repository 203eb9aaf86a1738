package app

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/mcptool"
)

// FlagError is a bad value of a flag or of the variable that mirrors it.
// The process prints it naming both, "--timeout (GRAPHQL_TIMEOUT) must be
// ...", and exits with exitUsage.
type FlagError struct {
	Flag    string // the flag's long name, without dashes
	Problem string // the rule and a good example, e.g. "must be at least 1, got 0; for example --maxComplexity 100"
}

func (e *FlagError) Error() string { return "--" + e.Flag + " " + e.Problem }

// FlagErrorf returns a *FlagError for flag with a formatted problem.
func FlagErrorf(flag, format string, args ...any) error {
	return &FlagError{Flag: flag, Problem: fmt.Sprintf(format, args...)}
}

// EnvOnlyFlag is a flag that does not exist on purpose: a setting read from
// the environment only, because a flag's value shows in process listings
// (an API key). Given on the command line it is refused, naming the variable
// to set instead and never repeating the value; --help does not list it.
// A server lists it among its flags so that the refusal can say this
// instead of "unknown flag".
type EnvOnlyFlag struct {
	Name    string
	Aliases []string
	EnvVar  string // the variable to set instead, e.g. HOOKSVC_API_KEY
	What    string // what it holds, e.g. "the API key"
}

// errEnvOnly is what Set answers; urfave/cli wraps it with the value, which
// describeError never prints.
var errEnvOnly = errors.New("not a flag: read from the environment only")

func (f *EnvOnlyFlag) String() string           { return "" }
func (f *EnvOnlyFlag) Get() any                 { return nil }
func (f *EnvOnlyFlag) PreParse() error          { return nil }
func (f *EnvOnlyFlag) PostParse() error         { return nil }
func (f *EnvOnlyFlag) Set(string, string) error { return errEnvOnly }
func (f *EnvOnlyFlag) Names() []string          { return append([]string{f.Name}, f.Aliases...) }
func (f *EnvOnlyFlag) IsSet() bool              { return false }
func (f *EnvOnlyFlag) IsVisible() bool          { return false }

// IsBoolFlag makes "--api-key value" take no value, so that the value is
// left alone as an argument and "--api-key" alone is refused the same way.
func (f *EnvOnlyFlag) IsBoolFlag() bool { return true }

// refusal says that typed, the name the command line used (the flag's or
// an alias), is not a flag: the user is told of what they wrote.
func (f *EnvOnlyFlag) refusal(spec Spec, typed string) string {
	return fmt.Sprintf("%s is not a flag: %s reads %s from the environment variable %s only, because a flag's value shows in process listings. "+
		"Set %s in %s's environment instead (the env of its entry in your MCP client's configuration), and remove %s",
		dashed(typed), spec.Name, f.What, f.EnvVar, f.EnvVar, spec.Name, dashed(typed))
}

// envOnlyRefused finds the EnvOnlyFlag that msg, a command-line error,
// refuses, and the name it was given by.
func envOnlyRefused(flags []cli.Flag, msg string) (*EnvOnlyFlag, string) {
	if !strings.HasPrefix(msg, "invalid value ") || !strings.HasSuffix(msg, ": "+errEnvOnly.Error()) {
		return nil, ""
	}
	for _, f := range flags {
		if envOnly, ok := f.(*EnvOnlyFlag); ok {
			for _, name := range envOnly.Names() {
				if strings.HasSuffix(msg, " for flag -"+name+": "+errEnvOnly.Error()) || strings.HasSuffix(msg, " for flag --"+name+": "+errEnvOnly.Error()) {
					return envOnly, name
				}
			}
		}
	}
	return nil, ""
}

// flagErrorTexts are the errors urfave/cli and the flag package return for a
// command line they cannot parse. They are matched here, in one place, and
// said again in the project's words: Go's own text names flags with one dash
// and types in Go's terms ("could not parse "5" as time.Duration value").
// They are compiled only when a command line fails, not at every start.
type flagErrorTexts struct {
	unknownFlag, missingValue, badFlagValue, badEnvValue *regexp.Regexp
}

func compileFlagErrorTexts() flagErrorTexts {
	return flagErrorTexts{
		unknownFlag:  regexp.MustCompile(`^flag provided but not defined: -+(.+)$`),
		missingValue: regexp.MustCompile(`^flag needs an argument: -*(.+)$`),
		badFlagValue: regexp.MustCompile(`^invalid value (".*") for flag -+(.+?): (.*)$`),
		badEnvValue:  regexp.MustCompile(`^could not parse (".*") as .+ value from environment variable "(.+?)" for flag (.+?): (.*)$`),
	}
}

// describeError rewrites err into one line in the project's words when it is
// a bad flag or variable, naming the flag, its variable, the rule and an
// example. It reports whether err was such an error.
func describeError(spec Spec, flags []cli.Flag, err error) (string, bool) {
	var flagErr *FlagError
	if errors.As(err, &flagErr) {
		return flagName(lookupFlag(flags, flagErr.Flag), flagErr.Flag) + " " + flagErr.Problem, true
	}
	msg := err.Error()
	// First: the value of an env-only flag is a secret, and the error
	// urfave/cli made holds it.
	if envOnly, typed := envOnlyRefused(flags, msg); envOnly != nil {
		return envOnly.refusal(spec, typed), true
	}
	texts := compileFlagErrorTexts()
	if m := texts.unknownFlag.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("unknown flag %s; run %s --help to list the flags it takes", shortened(dashed(m[1])), spec.Name), true
	}
	if m := texts.missingValue.FindStringSubmatch(msg); m != nil {
		f := lookupFlag(flags, m[1])
		text := flagName(f, m[1]) + " needs a value"
		if example := exampleValue(f); example != "" {
			text += fmt.Sprintf(", such as %s %s", dashed(longName(f, m[1])), example)
		}
		return text, true
	}
	if m := texts.badFlagValue.FindStringSubmatch(msg); m != nil {
		f := lookupFlag(flags, m[2])
		return badValue(flagName(f, m[2]), m[1], f, m[3], dashed(longName(f, m[2]))+" "), true
	}
	if m := texts.badEnvValue.FindStringSubmatch(msg); m != nil {
		f := lookupFlag(flags, m[3])
		return badValue(fmt.Sprintf("%s (%s)", m[2], dashed(longName(f, m[3]))), m[1], f, m[4], m[2]+"="), true
	}
	return "", false
}

// maxQuotedValue is the most characters of a flag's value, or of a flag
// name not known, that a startup error quotes: enough to recognise a URL
// or a path, and a line however long the value.
const maxQuotedValue = 200

// shortened is s, or when longer than maxQuotedValue characters its
// prefix and its length.
func shortened(s string) string {
	if utf8.RuneCountInString(s) <= maxQuotedValue {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", string([]rune(s)[:maxQuotedValue]), utf8.RuneCountInString(s))
}

// badValue is "<who> must be <rule>; got <value>. For example <set><example>".
// A flag value type of the project's own says its rule in its error, which
// starts "must"; Go's parsers do not, and the flag's type says the rule.
func badValue(who, quoted string, f cli.Flag, reason, set string) string {
	value, err := strconv.Unquote(quoted)
	if err != nil {
		value = quoted
	}
	rule := reason
	if !strings.HasPrefix(reason, "must ") {
		rule = "must be " + typeRule(f)
	}
	text := fmt.Sprintf("%s %s; got %s", who, rule, mcptool.QuoteUpTo(value, maxQuotedValue))
	if example := exampleValue(f); example != "" {
		text += fmt.Sprintf(". For example %s%s", set, example)
	}
	return text
}

func typeRule(f cli.Flag) string {
	doc, _ := f.(cli.DocGenerationFlag)
	if doc == nil {
		return "a valid value (see --help)"
	}
	switch doc.TypeName() {
	case "int", "uint":
		return "a whole number"
	case "float":
		return "a number"
	case "duration":
		return "a duration with its unit, such as 30s, 5m or 1h30m"
	case "bool":
		return "true or false"
	}
	return "a valid value (see --help)"
}

// exampleValue is a good value of f for messages: its default, when it has
// one worth showing.
func exampleValue(f cli.Flag) string {
	doc, _ := f.(cli.DocGenerationFlag)
	if doc == nil {
		return ""
	}
	if doc.TypeName() == "bool" {
		return "true"
	}
	example := strings.Trim(defaultText(doc), `"`)
	if doc.TypeName() == "duration" {
		// time.Duration writes 5m as 5m0s, and 1h as 1h0m0s.
		for _, zero := range []string{"m0s", "h0m"} {
			if strings.HasSuffix(example, zero) {
				example = example[:len(example)-2]
			}
		}
	}
	return example
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func longName(f cli.Flag, name string) string {
	if f != nil {
		return f.Names()[0]
	}
	return name
}

// flagName is "--timeout (HOOKSVC_TIMEOUT)", or "--timeout" for a flag no
// variable mirrors.
func flagName(f cli.Flag, name string) string {
	text := dashed(longName(f, name))
	if doc, ok := f.(cli.DocGenerationFlag); ok {
		if env := doc.GetEnvVars(); len(env) > 0 {
			text += " (" + strings.Join(env, ", ") + ")"
		}
	}
	return text
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
