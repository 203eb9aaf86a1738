// Package socketio speaks the part of Socket.IO protocol 2 (over Engine.IO
// protocol 3) that webhook.site's live push uses: the open packet, the
// default namespace's connect, events, and the client's ping answered by
// the server's pong. It has the framing (this file), the HTTP long-polling
// payload format a browser or Node client starts with (payload.go), and a
// client over github.com/coder/websocket that subscribes to channels
// (client.go).
//
// No maintained Go client of protocol 2 exists (the Go libraries that are
// kept up speak protocol 4 and 5), so this is the smallest framing that
// talks to a protocol 2 server; its decoders are fuzzed.
package socketio

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Engine.IO packet types, the first character of every frame.
const (
	Open    = '0'
	Close   = '1'
	Ping    = '2'
	Pong    = '3'
	Message = '4'
	Upgrade = '5'
	Noop    = '6'
)

// Socket.IO packet types, the character after an Engine.IO Message's.
const (
	Connect     = '0'
	Disconnect  = '1'
	Event       = '2'
	Ack         = '3'
	Error       = '4'
	BinaryEvent = '5'
	BinaryAck   = '6'
)

// Bounds on what is decoded: a frame past them is refused, not parsed.
const (
	// MaxEventArgs bounds the arguments of one event.
	MaxEventArgs = 16
	// MaxNameBytes bounds a namespace's or an event's name.
	MaxNameBytes = 256
)

// Packet is one Engine.IO packet: its type and what follows it.
type Packet struct {
	Type byte
	Data string
}

// String is the packet as a text frame carries it.
func (p Packet) String() string { return string(p.Type) + p.Data }

// DecodePacket reads an Engine.IO packet from a text frame.
func DecodePacket(frame string) (Packet, error) {
	if frame == "" {
		return Packet{}, errors.New("empty Engine.IO packet")
	}
	if frame[0] < Open || frame[0] > Noop {
		return Packet{}, fmt.Errorf("unknown Engine.IO packet type %q", frame[0])
	}
	return Packet{Type: frame[0], Data: frame[1:]}, nil
}

// Handshake is the open packet's content.
type Handshake struct {
	SID          string   `json:"sid"`
	Upgrades     []string `json:"upgrades"`
	PingInterval int64    `json:"pingInterval"` // milliseconds
	PingTimeout  int64    `json:"pingTimeout"`  // milliseconds
}

// Interval is how long the client waits between a pong and its next ping:
// the server's pingInterval, at most limit.
func (h Handshake) Interval(limit time.Duration) time.Duration {
	return millis(h.PingInterval, limit)
}

// Timeout is how long the client waits for a pong: the server's
// pingTimeout, at most limit.
func (h Handshake) Timeout(limit time.Duration) time.Duration {
	return millis(h.PingTimeout, limit)
}

// millis is ms milliseconds, at most limit. It compares in milliseconds
// before converting: a peer's 1e13 ms would overflow time.Duration into a
// negative wait, which no min() can catch afterwards.
func millis(ms int64, limit time.Duration) time.Duration {
	if ms <= 0 {
		return 0
	}
	if ms >= limit.Milliseconds() {
		return limit
	}
	return time.Duration(ms) * time.Millisecond
}

// DecodeHandshake reads an open packet's data. The intervals must be
// positive: a client paces its pings by them. Large ones are accepted and
// capped where they are used (Interval, Timeout).
func DecodeHandshake(data string) (Handshake, error) {
	var h Handshake
	if err := json.Unmarshal([]byte(data), &h); err != nil {
		return Handshake{}, fmt.Errorf("Engine.IO open packet is not a JSON object: %w", err)
	}
	if h.SID == "" || len(h.SID) > MaxNameBytes {
		return Handshake{}, errors.New("Engine.IO open packet has no usable sid")
	}
	if h.PingInterval <= 0 || h.PingTimeout <= 0 {
		return Handshake{}, fmt.Errorf("Engine.IO open packet has pingInterval %d and pingTimeout %d; both must be positive", h.PingInterval, h.PingTimeout)
	}
	return h, nil
}

// EncodeHandshake is an open packet.
func EncodeHandshake(h Handshake) string {
	if h.Upgrades == nil {
		h.Upgrades = []string{}
	}
	b, _ := jsonx.Marshal(h)
	return string(Open) + string(b)
}

// Msg is one Socket.IO packet, the data of an Engine.IO Message.
type Msg struct {
	Type      byte
	Namespace string // "/" when the packet names none
	ID        int64  // the acknowledgement id; -1 when none
	Data      json.RawMessage
	// For an Event: its name and arguments.
	Event string
	Args  []json.RawMessage
}

// DecodeMsg reads a Socket.IO packet from a Message's data. Binary
// packets are refused: their attachments follow as separate frames, and
// the push sends none.
func DecodeMsg(data string) (Msg, error) {
	if data == "" {
		return Msg{}, errors.New("empty Socket.IO packet")
	}
	m := Msg{Type: data[0], Namespace: "/", ID: -1}
	if m.Type < Connect || m.Type > BinaryAck {
		return Msg{}, fmt.Errorf("unknown Socket.IO packet type %q", m.Type)
	}
	if m.Type == BinaryEvent || m.Type == BinaryAck {
		return Msg{}, errors.New("binary Socket.IO packets are not supported")
	}
	rest := data[1:]
	if strings.HasPrefix(rest, "/") {
		end := strings.IndexByte(rest, ',')
		if end < 0 {
			// A namespace with nothing after it: "40/admin".
			end = len(rest)
		}
		if end > MaxNameBytes {
			return Msg{}, fmt.Errorf("Socket.IO namespace longer than %d bytes", MaxNameBytes)
		}
		m.Namespace = rest[:end]
		rest = strings.TrimPrefix(rest[end:], ",")
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits > 0 {
		id, err := strconv.ParseInt(rest[:digits], 10, 64)
		if err != nil {
			return Msg{}, fmt.Errorf("Socket.IO acknowledgement id %q is out of range", truncate(rest[:digits]))
		}
		m.ID, rest = id, rest[digits:]
	}
	if rest != "" {
		if !json.Valid([]byte(rest)) {
			return Msg{}, errors.New("Socket.IO packet data is not JSON")
		}
		m.Data = json.RawMessage(rest)
	}
	if m.Type == Event {
		if err := m.decodeEvent(); err != nil {
			return Msg{}, err
		}
	}
	return m, nil
}

func (m *Msg) decodeEvent() error {
	var args []json.RawMessage
	if err := json.Unmarshal(m.Data, &args); err != nil || len(args) == 0 {
		return errors.New("Socket.IO event data must be a JSON array that starts with the event's name")
	}
	if len(args) > MaxEventArgs+1 {
		return fmt.Errorf("Socket.IO event has more than %d arguments", MaxEventArgs)
	}
	if err := json.Unmarshal(args[0], &m.Event); err != nil {
		return errors.New("Socket.IO event name must be a string")
	}
	if len(m.Event) > MaxNameBytes {
		return fmt.Errorf("Socket.IO event name longer than %d bytes", MaxNameBytes)
	}
	m.Args = args[1:]
	return nil
}

// EncodeEvent is an Engine.IO Message frame carrying a Socket.IO event on
// the default namespace: 42["name",arg...].
func EncodeEvent(name string, args ...any) (string, error) {
	b, err := jsonx.Marshal(append([]any{name}, args...))
	if err != nil {
		return "", err
	}
	return string(Message) + string(Event) + string(b), nil
}

// truncate keeps a peer's text short enough for an error.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
