package app

import (
	"context"
	"io"
	"log/slog"

	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/mcpforge/servers/shared/redact"
)

// chatterHandler demotes Info records to Debug. The go-sdk logs each session
// start at Info, which on a terminal or in an assistant's log reads as noise;
// with it, that chatter shows only under --log-level debug, and warnings and
// errors still show.
type chatterHandler struct{ next slog.Handler }

func (h chatterHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, demote(level))
}

func (h chatterHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return h.next.Handle(ctx, r)
}

func (h chatterHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return chatterHandler{h.next.WithAttrs(attrs)}
}

func (h chatterHandler) WithGroup(name string) slog.Handler {
	return chatterHandler{h.next.WithGroup(name)}
}

func demote(level slog.Level) slog.Level {
	if level == slog.LevelInfo {
		return slog.LevelDebug
	}
	return level
}

// SDKLogger returns the logger to give the go-sdk: logger, with the SDK's
// Info records shown only at debug level.
func SDKLogger(logger *slog.Logger) *slog.Logger {
	return slog.New(chatterHandler{logger.Handler()})
}

// RedactingLogger returns logger with every secret r knows replaced in each
// record it writes: the message, and every attribute's value, however
// deep in a group, and whatever its type prints as. A server's own log
// lines redact what they quote, but the go-sdk logs what it was sent (a
// subscribed URI, a method) as is; with this in front of every log line,
// a secret that arrives inside one is not written to stderr.
func RedactingLogger(logger *slog.Logger, r redact.Redactor) *slog.Logger {
	if logger == nil || r.Empty() {
		return logger
	}
	return slog.New(redactingHandler{next: logger.Handler(), r: r})
}

type redactingHandler struct {
	next slog.Handler
	r    redact.Redactor
}

func (h redactingHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	redacted := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		redacted[i] = h.attr(a)
	}
	return redactingHandler{next: h.next.WithAttrs(redacted), r: h.r}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{next: h.next.WithGroup(name), r: h.r}
}

func (h redactingHandler) attr(a slog.Attr) slog.Attr {
	a.Key = h.r.String(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		group := v.Group()
		redacted := make([]slog.Attr, len(group))
		for i, member := range group {
			redacted[i] = h.attr(member)
		}
		a.Value = slog.GroupValue(redacted...)
	case slog.KindString:
		a.Value = slog.StringValue(h.r.String(v.String()))
	default:
		// Numbers, times, errors, URLs, structs: as the handler would
		// print them, replaced by their redacted text only when that
		// holds a secret, so that a clean value keeps its type.
		if text := v.String(); h.r.Contains(text) {
			a.Value = slog.StringValue(h.r.String(text))
		} else {
			a.Value = v
		}
	}
	return a
}

// newLogger makes the process's stderr logger in the format --log-format
// names. Either way the servers put RedactingLogger in front of it, which
// replaces a secret before the handler encodes the record, so a secret is
// not written in JSON's escaped spellings either.
func newLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	options := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, options)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, options)), nil
	}
	return nil, FlagErrorf("log-format", "must be text or json; got %s. For example --log-format json", mcptool.QuoteUpTo(format, maxQuotedValue))
}
