package socketio

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDecodeMsg(t *testing.T) {
	for _, tc := range []struct {
		in        string
		typ       byte
		namespace string
		id        int64
		event     string
		args      int
	}{
		{in: "0", typ: Connect, namespace: "/", id: -1},
		{in: "0/admin", typ: Connect, namespace: "/admin", id: -1},
		{in: "0/admin,", typ: Connect, namespace: "/admin", id: -1},
		{in: `2["request.created","private-token.x",{"request":{}}]`, typ: Event, namespace: "/", id: -1, event: "request.created", args: 2},
		{in: `2/chat,12["hi"]`, typ: Event, namespace: "/chat", id: 12, event: "hi"},
		{in: `27["ask",1]`, typ: Event, namespace: "/", id: 7, event: "ask", args: 1},
		{in: `3 7[]`, typ: Ack}, // not an id: data that is not JSON
		{in: `4"not allowed"`, typ: Error, namespace: "/", id: -1},
		{in: "1", typ: Disconnect, namespace: "/", id: -1},
	} {
		m, err := DecodeMsg(tc.in)
		if tc.in == `3 7[]` {
			if err == nil {
				t.Errorf("DecodeMsg(%q) = %+v, want an error", tc.in, m)
			}
			continue
		}
		if err != nil {
			t.Errorf("DecodeMsg(%q): %v", tc.in, err)
			continue
		}
		if m.Type != tc.typ || m.Namespace != tc.namespace || m.ID != tc.id || m.Event != tc.event || len(m.Args) != tc.args {
			t.Errorf("DecodeMsg(%q) = type %c ns %q id %d event %q %d args, want %c %q %d %q %d",
				tc.in, m.Type, m.Namespace, m.ID, m.Event, len(m.Args), tc.typ, tc.namespace, tc.id, tc.event, tc.args)
		}
	}
}

func TestDecodeMsgRefuses(t *testing.T) {
	for _, in := range []string{
		"", "9", "x", `2`, `2{}`, `2[]`, `2[1]`, `2["a"`, `5-1["bin",{"_placeholder":true,"num":0}]`,
		`299999999999999999999999["x"]`,
		"2/" + strings.Repeat("n", MaxNameBytes+1) + `,["x"]`,
		`2["` + strings.Repeat("e", MaxNameBytes+1) + `"]`,
		`2["x"` + strings.Repeat(",1", MaxEventArgs+1) + `]`,
	} {
		if m, err := DecodeMsg(in); err == nil {
			t.Errorf("DecodeMsg(%.60q) = %+v, want an error", in, m)
		}
	}
}

func TestHandshake(t *testing.T) {
	h, err := DecodeHandshake(`{"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}`)
	if err != nil || h.SID != "abc" || h.PingInterval != 25000 || h.PingTimeout != 5000 {
		t.Fatalf("DecodeHandshake = %+v, %v", h, err)
	}
	for _, in := range []string{``, `[]`, `{"sid":""}`, `{"sid":"a","pingInterval":0,"pingTimeout":1}`, `{"sid":"a","pingInterval":1,"pingTimeout":-1}`} {
		if _, err := DecodeHandshake(in); err == nil {
			t.Errorf("DecodeHandshake(%q): no error", in)
		}
	}
	// Past the cap, or past what time.Duration holds, the wait is the
	// cap, never a negative or wrapped one.
	for _, ms := range []int64{60_001, 1e13, 1<<63 - 1} {
		h := Handshake{SID: "s", PingInterval: ms, PingTimeout: ms}
		if i, o := h.Interval(time.Minute), h.Timeout(time.Minute); i != time.Minute || o != time.Minute {
			t.Errorf("%d ms: interval %s, timeout %s; want 1m0s each", ms, i, o)
		}
	}
	if got := (Handshake{PingInterval: 25000}).Interval(time.Minute); got != 25*time.Second {
		t.Errorf("25000 ms = %s", got)
	}
	if got := EncodeHandshake(Handshake{SID: "s", PingInterval: 1, PingTimeout: 2}); got != `0{"sid":"s","upgrades":[],"pingInterval":1,"pingTimeout":2}` {
		t.Errorf("EncodeHandshake = %s", got)
	}
}

func TestEncodeEvent(t *testing.T) {
	got, err := EncodeEvent("subscribe", map[string]any{"channel": "private-token.<x>&", "auth": map[string]any{"headers": map[string]string{}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `42["subscribe",{"auth":{"headers":{}},"channel":"private-token.<x>&"}]`
	if got != want {
		t.Errorf("EncodeEvent = %s, want %s", got, want)
	}
	p, _ := DecodePacket(got)
	m, err := DecodeMsg(p.Data)
	if err != nil || m.Event != "subscribe" || len(m.Args) != 1 {
		t.Errorf("round trip: %+v, %v", m, err)
	}
}

// The payload's lengths count UTF-16 code units, as socket.io-client's
// String.length does: an emoji is two, an é one.
func TestPayload(t *testing.T) {
	packets := []Packet{{Type: Open, Data: `{"sid":"x"}`}, {Type: Message, Data: `2["é😀"]`}, {Type: Noop}}
	got := EncodePayload(packets...)
	want := `12:0{"sid":"x"}9:42["é😀"]1:6`
	if got != want {
		t.Fatalf("EncodePayload = %q, want %q", got, want)
	}
	back, err := DecodePayload(got)
	if err != nil || len(back) != 3 || back[1] != packets[1] || back[2] != packets[2] {
		t.Fatalf("DecodePayload = %+v, %v", back, err)
	}
	// An empty packet is skipped, as engine.io-parser skips it.
	for in, want := range map[string]int{"0:": 0, "0:1:6": 1, "1:60:1:6": 2} {
		if p, err := DecodePayload(in); err != nil || len(p) != want {
			t.Errorf("DecodePayload(%q) = %v, %v; want %d packets", in, p, err, want)
		}
	}
	for _, in := range []string{"x", "-1:", ":4", "3:4", "2:4", "10000000000:4", "1:9", "2:4😀", strings.Repeat("1:6", MaxPayloadPackets+1)} {
		if p, err := DecodePayload(in); err == nil {
			t.Errorf("DecodePayload(%.40q) = %v, want an error", in, p)
		}
	}
}

// FuzzDecode feeds one frame to every decoder a peer's bytes reach: none
// may panic, and what they accept must keep its bounds and encode back.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`0{"sid":"abc","upgrades":[],"pingInterval":25000,"pingTimeout":5000}`,
		"40", "3", "2probe", "6",
		`42["request.created","private-token.1",{"request":{"uuid":"x"},"variables":{},"runtime_variables":{}}]`,
		`42["subscription_error","private-token.1",403]`,
		`42/ns,7["x",1,2]`, `451-["b",{"_placeholder":true,"num":0}]`,
		`97:0{"sid":"a","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":5000}2:40`,
		"2:4😀", "0:1:6",
		// A hostile server's intervals, past what time.Duration holds in
		// nanoseconds.
		`0{"sid":"s","upgrades":[],"pingInterval":10000000000000,"pingTimeout":9223372036854775807}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		if p, err := DecodePacket(frame); err == nil {
			if p.String() != frame {
				t.Fatalf("packet %q re-encodes as %q", frame, p.String())
			}
			switch p.Type {
			case Open:
				if h, err := DecodeHandshake(p.Data); err == nil {
					if h.SID == "" || h.PingInterval <= 0 || h.PingTimeout <= 0 {
						t.Fatalf("handshake %q accepted with %+v", p.Data, h)
					}
					if i, o := h.Interval(time.Minute), h.Timeout(time.Minute); i <= 0 || i > time.Minute || o <= 0 || o > time.Minute {
						t.Fatalf("handshake %q gives ping interval %s and timeout %s; want each within (0, 1m]", p.Data, i, o)
					}
				}
			case Message:
				if m, err := DecodeMsg(p.Data); err == nil {
					if len(m.Namespace) > MaxNameBytes || len(m.Event) > MaxNameBytes || len(m.Args) > MaxEventArgs {
						t.Fatalf("message %q out of bounds: %+v", p.Data, m)
					}
					if m.Data != nil && !json.Valid(m.Data) {
						t.Fatalf("message %q kept data that is not JSON", p.Data)
					}
				}
			}
		}
		if packets, err := DecodePayload(frame); err == nil {
			if len(packets) > MaxPayloadPackets {
				t.Fatalf("payload %q gave %d packets", frame, len(packets))
			}
			again, err := DecodePayload(EncodePayload(packets...))
			if err != nil || len(again) != len(packets) {
				t.Fatalf("payload %q does not survive a round trip: %v", frame, err)
			}
		}
	})
}
