package keys

import (
	"fmt"
	"unicode/utf8"
)

// Stroke is one key press and release that types a character.
type Stroke struct {
	Rune  rune   // the character typed ('\n' for Return)
	Sym   uint32 // its keysym
	Shift bool   // whether a US keyboard needs Shift for it
}

// TextError reports text that cannot be typed: a control character with no
// key, or bytes that are not UTF-8. The daemon answers it with BAD_REQUEST.
type TextError struct {
	Offset int  // byte offset in the text
	Rune   rune // the character (utf8.RuneError for bad bytes)
}

func (e *TextError) Error() string {
	if e.Rune == utf8.RuneError {
		return fmt.Sprintf("text is not UTF-8 at byte %d: send UTF-8 text", e.Offset)
	}
	return fmt.Sprintf("text holds control character %U at byte %d, which no key types: remove it, or send keys such as Enter or Tab with the key operation", e.Rune, e.Offset)
}

// TextStrokes turns text into the strokes that type it, one per character,
// in order (see RuneKeysym). "\r\n" is one Return. It fails, typing
// nothing, on a control character without a key or on invalid UTF-8.
func TextStrokes(text string) ([]Stroke, error) {
	out := make([]Stroke, 0, len(text))
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size <= 1 {
			return nil, &TextError{Offset: i, Rune: utf8.RuneError}
		}
		if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++ // CR LF is one line break
			continue
		}
		sym, shift := RuneKeysym(r)
		if sym == 0 {
			return nil, &TextError{Offset: i, Rune: r}
		}
		if r == '\r' {
			r = '\n'
		}
		out = append(out, Stroke{Rune: r, Sym: sym, Shift: shift})
		i += size
	}
	return out, nil
}
