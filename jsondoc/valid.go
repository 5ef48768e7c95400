package jsondoc

// ProvedDepth is how deep ProvedValid follows arrays and objects.
const ProvedDepth = 64

// ProvedValid reports true only for valid JSON (RFC 8259 as encoding/json
// reads it: any byte from 0x20 in a string, invalid UTF-8 included), in
// one pass with the parser's own string and number scanners and nothing
// allocated; false means "not shown valid" — invalid, or nested deeper
// than ProvedDepth — and a caller that needs the answer asks json.Valid
// then. A response is nearly always valid and small, and json.Valid's
// scanner (a call per byte) costs several times as much.
func ProvedValid(b []byte) bool {
	var stack [ProvedDepth]byte // '{' or '[' of each open container
	depth := 0
	i := skip(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		if c := b[i]; c == '{' || c == '[' {
			if depth == ProvedDepth {
				return false
			}
			stack[depth] = c
			depth++
			i = skip(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']': empty
				depth--
				i++
			} else {
				if c == '{' {
					if i = provedKey(b, i); i < 0 {
						return false
					}
				}
				continue
			}
		} else if i = provedScalar(b, i); i < 0 {
			return false
		}
		// A value ended before i: close containers, or go on to the next.
		if i, depth = provedNext(b, i, &stack, depth); i < 0 {
			return false
		}
		if depth == 0 {
			return true
		}
	}
}

// provedNext closes the containers a value ends at i, and returns where
// the next value starts with the depth left; i == len(b) with depth 0 when
// the document ends there, -1 when what follows is not shown valid.
func provedNext(b []byte, i int, stack *[ProvedDepth]byte, depth int) (int, int) {
	for {
		i = skip(b, i)
		if depth == 0 {
			if i != len(b) {
				return -1, 0
			}
			return i, 0
		}
		if i >= len(b) {
			return -1, depth
		}
		open := stack[depth-1]
		if b[i] == open+2 {
			depth--
			i++
			continue
		}
		if b[i] != ',' {
			return -1, depth
		}
		i = skip(b, i+1)
		if open == '{' {
			i = provedKey(b, i)
		}
		return i, depth
	}
}

// provedScalar reads the string, number or literal at b[i] with the
// parser's scanners and returns the index after it, or -1.
func provedScalar(b []byte, i int) int {
	var err error
	switch c := b[i]; {
	case c == '"':
		i, _, err = scanString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		i, _, err = scanNumber(b, i)
	case c == 't' && hasWord(b, i, "true"):
		return i + 4
	case c == 'f' && hasWord(b, i, "false"):
		return i + 5
	case c == 'n' && hasWord(b, i, "null"):
		return i + 4
	default:
		return -1
	}
	if err != nil {
		return -1
	}
	return i
}

// provedKey reads `"key" :` at i and returns where the value starts, or -1.
func provedKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	i, _, err := scanString(b, i)
	if err != nil {
		return -1
	}
	if i = skip(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return skip(b, i+1)
}
