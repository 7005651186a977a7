package keys

import (
	"errors"
	"slices"
	"testing"
	"unicode/utf8"
)

func TestTextStrokes(t *testing.T) {
	tests := []struct {
		in   string
		want []Stroke
	}{
		{"", []Stroke{}},
		{"aB", []Stroke{{'a', 'a', false}, {'B', 'B', true}}},
		{"a\r\nb", []Stroke{{'a', 'a', false}, {'\n', XK_Return, false}, {'b', 'b', false}}},
		{"\r", []Stroke{{'\n', XK_Return, false}}},
		{"\r\r\n", []Stroke{{'\n', XK_Return, false}, {'\n', XK_Return, false}}},
		{"\t!", []Stroke{{'\t', XK_Tab, false}, {'!', '!', true}}},
		{"é€", []Stroke{{'é', 0xe9, false}, {'€', 0x010020ac, false}}},
		{"\x1b\b", []Stroke{{0x1b, XK_Escape, false}, {'\b', XK_BackSpace, false}}},
		{"\uFFFD", []Stroke{{0xfffd, 0x0100fffd, false}}}, // a real U+FFFD is typeable
	}
	for _, tt := range tests {
		got, err := TextStrokes(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("TextStrokes(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestTextStrokesErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		r      rune
	}{
		{"ab\x00", 2, 0},
		{"\x07", 0, 7},
		{"é\x7f", 2, 0x7f},
		{"a\u0085", 1, 0x85},
		{"ok\xff", 2, utf8.RuneError},
		{"\xe2\x82", 0, utf8.RuneError},
	}
	for _, tt := range tests {
		_, err := TextStrokes(tt.in)
		var te *TextError
		if !errors.As(err, &te) || te.Offset != tt.offset || te.Rune != tt.r {
			t.Errorf("TextStrokes(%q) error = %#v, want offset %d rune %U", tt.in, err, tt.offset, tt.r)
			continue
		}
		_ = te.Error()
	}
}

func FuzzTextStrokes(f *testing.F) {
	for _, s := range []string{"hello", "a\r\nb", "\x00", "é€日😀", "\xff", "\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		strokes, err := TextStrokes(s)
		if err != nil {
			return
		}
		if len(strokes) > utf8.RuneCountInString(s) {
			t.Fatalf("%d strokes for %d runes", len(strokes), utf8.RuneCountInString(s))
		}
		for _, st := range strokes {
			if st.Sym == 0 {
				t.Fatalf("zero keysym for %U", st.Rune)
			}
		}
	})
}
