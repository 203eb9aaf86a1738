package mcptool

import (
	"net/url"
	"strings"
	"testing"
)

// TestSVGIcon: the characters a data: URI may not hold as they are are
// percent-encoded, nothing else is, and decoding gives the SVG back.
func TestSVGIcon(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox='0 0 4 4'><path fill='#0F0' d='M0 0h4'/><!-- 100% --></svg>`
	icon := SVGIcon(svg)
	data, ok := strings.CutPrefix(icon.Source, "data:image/svg+xml,")
	if !ok || icon.MIMEType != "image/svg+xml" || len(icon.Sizes) != 1 || icon.Sizes[0] != "any" {
		t.Fatalf("icon %+v", icon)
	}
	if strings.ContainsAny(data, `<># "`) || !strings.Contains(data, "viewBox='0%200%204%204'") || !strings.Contains(data, "%23") {
		t.Errorf("data %q", data)
	}
	if back, err := url.PathUnescape(data); err != nil || back != svg {
		t.Errorf("decoded: %q, %v", back, err)
	}
}
