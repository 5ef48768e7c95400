package spec

import "testing"

// Guessable counts the texts of a value's length over the kinds of
// characters it uses, and warns under 10^12 of them.
func TestGuessable(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"", false},
		{"417", true},
		{"73914628105", true},   // 10^11
		{"739146281054", false}, // 10^12
		{"qwertyui", true},      // 26^8 = 2.1·10^11
		{"qwertyuio", false},    // 26^9 = 5.4·10^12
		{"abc1234", true},       // 36^7 = 7.8·10^10
		{"abc12345", false},     // 36^8 = 2.8·10^12
		{"aB3xY9", true},        // 62^6 = 5.7·10^10
		{"aB3xY9q", false},      // 62^7 = 3.5·10^12
		{"a+3x_9", true},        // 69^6 = 1.1·10^11
		{"密码三", true},           // 3,000^3 = 2.7·10^10
		{"北京密码", false},         // 3,000^4 = 8.1·10^13
		{"sk-live-Zx9+Qw/Er7_Ty5-Ui3", false},
	} {
		if got := Guessable(c.s); got != c.want {
			t.Errorf("Guessable(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}
