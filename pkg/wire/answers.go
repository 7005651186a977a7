package wire

// Answer is one op's typed success: ClickAnswer, ScreenAnswer, …
// (answers_gen.go and answer_lines_gen.go, written by internal/gen/args
// from Ops and Response).
// Each carries exactly the answer fields its spec lists, under Response's
// Go names and JSON names, so a handler cannot fill a field its op does not
// declare, and the line on the socket is the one Response always gave.
type Answer interface {
	Op() string
	// Response is the line dvvd sends: result set to the op, the answer's
	// fields copied.
	Response() *Response
}
