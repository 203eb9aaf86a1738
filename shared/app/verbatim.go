package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
// So over stdio a handler may hand its result, already encoded (in pieces,
// so that it need not be copied into one), to the transport instead:
// Verbatim.Stand keeps the encoding and returns a short
// stand-in for MarshalJSON to return; the SDK encodes the stand-in, and
// the connection's Write, finding it as a response's result, writes the
// kept encoding in its place, byte for byte what the SDK would have
// written had it encoded the result itself (TestVerbatimAsEncodeMessage).
// Transports without one (Streamable HTTP, in-memory) give handlers no
// Verbatim, and they encode as usual.

// Verbatim holds the encoded results a session's handlers hand to its
// stdio connection, until the connection writes them.
type Verbatim struct {
	// prefix makes a stand-in this session's own: no other result can
	// be one by chance.
	prefix string

	mu   sync.Mutex
	next uint64
	kept map[string][][]byte // encodings, in pieces, by stand-in
}

func newVerbatim() *Verbatim {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	return &Verbatim{prefix: `"mcpforge verbatim result ` + hex.EncodeToString(nonce[:]) + " ", kept: map[string][][]byte{}}
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

// Stand keeps encoded, a result's encoding in pieces written one after the
// other, and returns what the result's MarshalJSON returns in its place: a
// JSON string the connection replaces with encoded when it writes the
// response. The pieces must not change after. Together they must be what
// encoding/json would write for the result: valid JSON, compact (no space
// between tokens), HTML characters as the result's own encoding left them.
// Nothing checks it again: that is what is saved.
func (v *Verbatim) Stand(encoded ...[]byte) json.RawMessage {
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
func (v *Verbatim) take(result json.RawMessage) (encoded [][]byte, ok bool) {
	if v == nil || len(result) > maxStandBytes || len(result) <= len(v.prefix) || string(result[:len(v.prefix)]) != v.prefix {
		return nil, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	encoded, ok = v.kept[string(result)]
	delete(v.kept, string(result))
	return encoded, ok
}
