package httpx

import (
	"context"
	"time"
)

// Sleep waits d between two attempts of a request, or less when ctx ends
// first (its error then), so that a retry never holds a shutdown or a
// cancelled call past its deadline.
func Sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
