package jsonx

import "testing"

func TestMarshalKeepsHTML(t *testing.T) {
	got, err := Marshal(map[string]string{"sdl": "a <b> & c"})
	if err != nil || string(got) != `{"sdl":"a <b> & c"}` {
		t.Errorf("Marshal = %s, %v", got, err)
	}
}
