package httpx

import "context"

// Observer hears of each answer a Caller reads for a context: its status
// and how many bytes its body held. It learns nothing else (no URL, no
// header, no body), so what it records cannot hold a secret. A tool call
// may make several requests, from several goroutines at once.
type Observer func(status, bytes int)

type observerKey struct{}

// WithObserver returns ctx with observe called for each answer read under
// it. The process's telemetry sets one per tool call; without one, Do
// does nothing more.
func WithObserver(ctx context.Context, observe Observer) context.Context {
	return context.WithValue(ctx, observerKey{}, observe)
}

func observe(ctx context.Context, status, bytes int) {
	if o, ok := ctx.Value(observerKey{}).(Observer); ok {
		o(status, bytes)
	}
}
