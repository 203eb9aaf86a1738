package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"
)

// File is an uploaded file of a multipart capture, its bytes downloaded.
type File struct {
	Field, Filename, ContentType string
	Data                         []byte
}

// Multipart rebuilds a multipart/form-data body from the fields the
// service parsed (PHP's $_POST: a name[] field became an array, a
// name[key] one an object, which are spelled back that way) and the files,
// fields first, with boundary when it is a valid one (the captured
// Content-Type's, so that header stays true), else a new one. It returns
// the body and its Content-Type. The original's part order, the parts'
// other headers and its byte layout are not kept by the service, so the
// bytes differ from the sender's: a signature over them will not match.
func Multipart(boundary string, fields map[string]any, files []File) ([]byte, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if boundary != "" {
		if err := w.SetBoundary(boundary); err != nil {
			w = multipart.NewWriter(&b)
		}
	}
	var parts [][2]string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		flatten(name, fields[name], &parts)
	}
	for _, p := range parts {
		if err := w.WriteField(p[0], p[1]); err != nil {
			return nil, "", err
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, escapeQuotes(f.Field), escapeQuotes(f.Filename)))
		ct := f.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		part, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := part.Write(f.Data); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), w.FormDataContentType(), nil
}

// flatten spells a parsed field back as the form fields PHP parsed it
// from.
func flatten(name string, v any, parts *[][2]string) {
	switch v := v.(type) {
	case []any:
		for _, item := range v {
			flatten(name+"[]", item, parts)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			flatten(name+"["+k+"]", v[k], parts)
		}
	case nil:
		*parts = append(*parts, [2]string{name, ""})
	case string:
		*parts = append(*parts, [2]string{name, v})
	case json.Number:
		*parts = append(*parts, [2]string{name, v.String()})
	default:
		*parts = append(*parts, [2]string{name, fmt.Sprint(v)})
	}
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", "%0D", "\n", "%0A")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }
