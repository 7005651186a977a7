package daemon

// lineOp reads the value of a request line's top-level "op" without
// decoding the line, so the line can then be decoded once, straight into
// that op's Args. ok is false when the line is not an object, has no "op",
// or keys or op use escapes: the envelope is then decoded the slow way,
// which also says what is wrong with a malformed line.
func lineOp(line []byte) (op []byte, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != '"' {
			return nil, false
		}
		key, next, plain := plainString(line, i)
		if !plain {
			return nil, false
		}
		i = skipSpace(line, next)
		if i >= len(line) || line[i] != ':' {
			return nil, false
		}
		i = skipSpace(line, i+1)
		if string(key) == "op" {
			if i >= len(line) || line[i] != '"' {
				return nil, false
			}
			v, _, plain := plainString(line, i)
			return v, plain && len(v) > 0
		}
		if i = skipValue(line, i); i < 0 {
			return nil, false
		}
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != ',' {
			return nil, false
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads the string starting at b[i] (a quote), without
// copying it; plain is false when it holds an escape, a byte outside
// printable ASCII (the decoder would change invalid UTF-8; op names and
// keys are ASCII) or is not closed.
func plainString(b []byte, i int) (s []byte, next int, plain bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, 0, false
		case c == '"':
			return b[i+1 : j], j + 1, true
		}
	}
	return nil, 0, false
}

// skipValue passes over the value starting at b[i]; -1 when it is not
// closed.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of the enclosing object
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		if depth == 0 && (b[i] == '"' || b[i] == '}' || b[i] == ']') {
			return i + 1
		}
	}
	return -1
}
