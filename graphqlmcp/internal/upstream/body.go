package upstream

import "bytes"

// formSafe rewrites the JSON payload so that it holds none of the bytes a
// form or query-string parser reads as structure: & and ; (which separate
// fields), = (which ends a name), + (a space) and % (an escape). Inside
// strings each is written as its \u00XX escape, which every JSON parser
// reads back as the same character; outside strings only a number's
// exponent can hold one (1e+21), and its + is dropped (1e21, the same
// number). A server that reads the body as a form, whatever made it do so,
// then finds one field whose name is the whole document, and no operation
// the guard did not judge: a string literal "&query=mutation{wipe}&" is
// data to the guard and stays data.
//
// payload must be valid JSON, as the encoder writes it.
func formSafe(payload []byte) []byte {
	if !bytes.ContainsAny(payload, "&;=+%") {
		return payload
	}
	out := make([]byte, 0, len(payload)+64)
	inString, escaped := false, false
	for _, b := range payload {
		switch {
		case escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case b == '"':
			inString = !inString
		case inString && (b == '&' || b == ';' || b == '=' || b == '+' || b == '%'):
			out = append(out, '\\', 'u', '0', '0', hexDigit(b>>4), hexDigit(b&0xf))
			continue
		case !inString && b == '+':
			continue
		}
		out = append(out, b)
	}
	return out
}

func hexDigit(n byte) byte { return "0123456789abcdef"[n] }
