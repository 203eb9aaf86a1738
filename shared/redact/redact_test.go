package redact

import "testing"

func TestRedactor(t *testing.T) {
	r := New("s3cr3t-key", `quote"d-secret`, "short", "")
	tests := []struct{ in, want string }{
		{"key=s3cr3t-key;", "key=[REDACTED];"},
		{`{"echo":"quote\"d-secret"}`, `{"echo":"[REDACTED]"}`},
		{"short stays", "short stays"},
		{"nothing here", "nothing here"},
	}
	for _, tt := range tests {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := (Redactor{}).String("s3cr3t-key"); got != "s3cr3t-key" {
		t.Errorf("zero Redactor changed the text: %q", got)
	}
}
