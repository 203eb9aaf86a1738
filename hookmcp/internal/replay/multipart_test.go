package replay

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMultipart: fields (PHP's arrays and objects spelled back as name[]
// and name[key]) and files come back out of the rebuilt body through Go's
// multipart reader, under the captured boundary.
func TestMultipart(t *testing.T) {
	body, contentType, err := Multipart("captured-boundary-42", map[string]any{
		"event": "upload", "tags": []any{"a", "b"}, "meta": map[string]any{"k": "v"},
	}, []File{{Field: "report", Filename: `q"1.csv`, ContentType: "text/csv", Data: []byte("x,y\n\x00\xff")}})
	if err != nil {
		t.Fatal(err)
	}
	media, params, _ := mime.ParseMediaType(contentType)
	if media != "multipart/form-data" || params["boundary"] != "captured-boundary-42" {
		t.Fatalf("Content-Type %q", contentType)
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var got []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(p)
		got = append(got, p.FormName()+"|"+p.FileName()+"|"+p.Header.Get("Content-Type")+"|"+string(data))
	}
	want := []string{"event|||upload", "meta[k]|||v", "tags[]|||a", "tags[]|||b", "report|q\"1.csv|text/csv|x,y\n\x00\xff"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
}
