package transport

import "encoding/json"

// validJSON reports whether b is valid JSON, as json.Valid does. A
// response is nearly always valid and small, and json.Valid's scanner
// (a function call per byte) cost as much per call as building the
// request: quickValid proves most documents valid in one pass, and
// whatever it cannot (invalid, or nested deeper than it tracks) goes to
// json.Valid, which decides. TestQuickValidNeverAcceptsWhatValidRejects.
func validJSON(b []byte) bool {
	return quickValid(b) || json.Valid(b)
}

// quickDepth is how deep quickValid follows arrays and objects.
const quickDepth = 64

// quickValid reports true only for valid JSON (RFC 8259 as
// encoding/json reads it: any byte from 0x20 in a string, invalid UTF-8
// included); false means "not shown valid", not "invalid".
func quickValid(b []byte) bool {
	var stack [quickDepth]byte // '{' or '[' of each open container
	depth := 0
	i := skipSpace(b, 0)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == quickDepth {
				return false
			}
			stack[depth] = c
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']': empty
				depth--
				i++
				break
			}
			if c == '{' {
				if i = quickKey(b, i); i < 0 {
					return false
				}
			}
			continue
		default:
			if i = quickScalar(b, i); i < 0 {
				return false
			}
		}
		// A value ended before i: close containers, or go on to the next.
		for {
			i = skipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			open := stack[depth-1]
			if b[i] == open+2 {
				depth--
				i++
				continue
			}
			if b[i] != ',' {
				return false
			}
			i = skipSpace(b, i+1)
			if open == '{' {
				if i = quickKey(b, i); i < 0 {
					return false
				}
			}
			break
		}
	}
}

// quickScalar reads the string, number or literal at b[i] and returns
// the index after it, or -1.
func quickScalar(b []byte, i int) int {
	switch c := b[i]; {
	case c == '"':
		return quickString(b, i)
	case c == '-' || c >= '0' && c <= '9':
		return quickNumber(b, i)
	case c == 't':
		return quickWord(b, i, "true")
	case c == 'f':
		return quickWord(b, i, "false")
	case c == 'n':
		return quickWord(b, i, "null")
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// quickKey reads `"key" :` at i and returns where the value starts, or -1.
func quickKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = quickString(b, i); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipSpace(b, i+1)
}

// quickString reads the string opening at b[i] and returns the index after
// its closing quote, or -1.
func quickString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

// quickNumber reads the number at b[i] and returns the index after it, or -1.
func quickNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return -1
	}
	if b[i] == '0' {
		i++
	} else if j := digits(b, i); j > i {
		i = j
	} else {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// quickWord reads word at b[i] and returns the index after it, or -1.
func quickWord(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}
