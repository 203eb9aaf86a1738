package app

import (
	"context"
	"log/slog"
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
