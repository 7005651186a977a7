package wire

// Answer is one op's typed success: ClickAnswer, ScreenAnswer, …
// (each declared in its op_<name>.go; the spec's answer fields are read
// from it). Each carries exactly the answer fields its spec lists, so a
// handler cannot fill a field its op does not declare. dvvd writes the line straight from it (AnswerLine):
// result, id, then its fields; a client decodes it from the line
// (DecodeAnswer, AnswerOf).
type Answer interface {
	Op() string
}
