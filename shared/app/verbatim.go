package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"sync"
)

// The go-sdk encodes a handler's result before its transport sees it:
// jsonrpc2.NewResponse gives it to an encoding/json Encoder, which calls
// the result's MarshalJSON, checks and compacts what it returns into a
// buffer of its own (reading it byte by byte, growing the buffer by
// doubling), and copies that into the response. For a result of many
// megabytes (hookmcp's requests resource holds up to 10,000 requests),
// that is two more copies of it in memory and most of the time between the
// handler's return and the answer's first byte.
//
// So over stdio a handler may hand its result's encoding to the transport
// instead, as something that writes it (an io.WriterTo: the pieces of a
// result need not be copied into one, nor held in their final form until
// written): Verbatim.Stand keeps it and returns a short
// stand-in for MarshalJSON to return; the SDK encodes the stand-in, and
// the connection's Write, finding it as a response's result, writes the
// encoding in its place, byte for byte what the SDK would have
// written had it encoded the result itself (TestVerbatimAsEncodeMessage).
// Transports without one (Streamable HTTP, in-memory) give handlers no
// Verbatim, and they encode as usual.

// Verbatim holds the encoded results a session's handlers hand to its
// stdio connection, until the connection writes them. A response the SDK
// does not write (it drops answers only once the session is ending) leaves
// its result here until the process exits, which is then.
type Verbatim struct {
	// prefix makes a stand-in this session's own: no other result can
	// be one by chance.
	prefix string

	mu   sync.Mutex
	next uint64
	kept map[string]io.WriterTo // encodings, by stand-in
}

func newVerbatim() *Verbatim {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	return &Verbatim{prefix: `"mcpforge verbatim result ` + hex.EncodeToString(nonce[:]) + " ", kept: map[string]io.WriterTo{}}
}

type verbatimKey struct{}

// withVerbatim gives the handlers of a session served with ctx the
// session's Verbatim.
func withVerbatim(ctx context.Context, v *Verbatim) context.Context {
	return context.WithValue(ctx, verbatimKey{}, v)
}

// VerbatimFrom returns the Verbatim of the session whose request ctx is a
// handler's, or nil when its transport writes none (then the result is
// encoded as usual).
func VerbatimFrom(ctx context.Context) *Verbatim {
	v, _ := ctx.Value(verbatimKey{}).(*Verbatim)
	return v
}

// Stand keeps encoded, which writes a result's encoding, and returns what
// the result's MarshalJSON returns in its place: a JSON string the
// connection replaces with what encoded writes when it writes the
// response, under the lock that keeps other messages out of the line.
// encoded's WriteTo is called once, and must write all of what
// encoding/json would write for the result, failing only when w fails:
// valid JSON, compact (no space between tokens), HTML characters as the
// result's own encoding left them, no newline. Nothing checks it again:
// that is what is saved. Should it fail or panic all the same, its call
// is answered with an internal error, after the line it began, cut where
// it failed (see lineConn.writeVerbatim). Call Stand last, once nothing
// else can fail: a stand-in whose response is never written holds its
// encoding for as long as the session lasts.
func (v *Verbatim) Stand(encoded io.WriterTo) json.RawMessage {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.next++
	stand := v.prefix + strconv.FormatUint(v.next, 10) + `"`
	v.kept[stand] = encoded
	return json.RawMessage(stand)
}

// maxStandBytes is longer than any stand-in: a result longer than that is
// not looked up.
const maxStandBytes = 128

// take returns the encoding a response's result stands for, and forgets
// it; ok is false for any other result.
func (v *Verbatim) take(result json.RawMessage) (encoded io.WriterTo, ok bool) {
	if v == nil || len(result) > maxStandBytes || len(result) <= len(v.prefix) || string(result[:len(v.prefix)]) != v.prefix {
		return nil, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	encoded, ok = v.kept[string(result)]
	delete(v.kept, string(result))
	return encoded, ok
}
