package socketio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxPayloadPackets bounds the packets one long-polling payload carries.
const MaxPayloadPackets = 64

// EncodePayload joins packets into an Engine.IO protocol 3 long-polling
// payload: each is written as <length>:<packet>, where the length counts
// UTF-16 code units, as JavaScript's String.length does.
func EncodePayload(packets ...Packet) string {
	var b strings.Builder
	for _, p := range packets {
		text := p.String()
		b.WriteString(strconv.Itoa(utf16Len(text)))
		b.WriteByte(':')
		b.WriteString(text)
	}
	return b.String()
}

// DecodePayload splits a long-polling payload into its packets. An empty
// packet ("0:") is skipped, as engine.io-parser's decodePayload skips it.
func DecodePayload(payload string) ([]Packet, error) {
	var packets []Packet
	for payload != "" {
		if len(packets) == MaxPayloadPackets {
			return nil, fmt.Errorf("Engine.IO payload has more than %d packets", MaxPayloadPackets)
		}
		colon := strings.IndexByte(payload, ':')
		if colon < 1 || colon > 9 {
			return nil, errors.New("Engine.IO payload packet does not start with <length>:")
		}
		n, err := strconv.Atoi(payload[:colon])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("Engine.IO payload packet length %q is not a number", payload[:colon])
		}
		payload = payload[colon+1:]
		if n == 0 {
			continue
		}
		end, ok := utf16Prefix(payload, n)
		if !ok {
			return nil, fmt.Errorf("Engine.IO payload packet of length %d is cut short", n)
		}
		p, err := DecodePacket(payload[:end])
		if err != nil {
			return nil, err
		}
		packets = append(packets, p)
		payload = payload[end:]
	}
	return packets, nil
}

// utf16Len is s's length in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		u := utf16.RuneLen(r)
		if u < 0 {
			u = 1 // invalid UTF-8: JavaScript would see U+FFFD, one unit
		}
		n += u
	}
	return n
}

// utf16Prefix is the byte length of s's first n UTF-16 code units, and
// whether s has them, ending on a character's boundary.
func utf16Prefix(s string, n int) (int, bool) {
	units := 0
	for i := 0; i < len(s); {
		if units == n {
			return i, true
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		u := utf16.RuneLen(r)
		if u < 0 {
			u = 1
		}
		units += u
		i += size
		if units > n {
			return 0, false
		}
	}
	return len(s), units == n
}
