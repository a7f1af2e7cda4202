package goal

import "fmt"

// MaxEcho is the most of a token (a label, a number) an error message
// repeats: a schedule may hold a 100 MB token, which the message names by
// its start and its length.
const MaxEcho = 80

// Clip is s as an error message may quote it: s itself up to MaxEcho
// bytes, else its first bytes and its length, MaxEcho bytes in all.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	tail := fmt.Sprintf("...(%d bytes)", len(s))
	return s[:MaxEcho-len(tail)] + tail
}
