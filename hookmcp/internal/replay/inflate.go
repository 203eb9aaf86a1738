package replay

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"strings"
)

// Inflated is body as the target reads it once it undoes the body's
// Content-Encoding (gzip, x-gzip, deflate; a list undone last first), at
// most limit bytes of it: a secret compressed is still sent. ok is false
// when there is no such encoding, or one Go cannot undo (br, zstd) or
// that does not decode; over when the inflated body is longer than
// limit, whose start it holds.
func Inflated(h http.Header, body []byte, limit int64) (inflated []byte, over, ok bool) {
	var codings []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) == 0 || len(body) == 0 {
		return nil, false, false
	}
	for i := len(codings) - 1; i >= 0; i-- {
		var r io.Reader
		switch codings[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				return nil, false, false
			}
			r = zr
		case "deflate":
			// HTTP's deflate is zlib-wrapped; some senders send it raw.
			if zr, err := zlib.NewReader(bytes.NewReader(body)); err == nil {
				r = zr
			} else {
				r = flate.NewReader(bytes.NewReader(body))
			}
		default:
			return nil, false, false
		}
		out, err := io.ReadAll(io.LimitReader(r, limit+1))
		if int64(len(out)) > limit {
			return out[:limit], true, true
		}
		if err != nil {
			return nil, false, false
		}
		body = out
	}
	return body, false, true
}
