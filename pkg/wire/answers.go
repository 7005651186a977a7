package wire

// Answer is one op's typed success: ClickAnswer, ScreenAnswer, …
// (each in its op_<name>_gen.go, written by internal/gen/args from the
// op's spec and its answer catalog).
// Each carries exactly the answer fields its spec lists, under the
// catalog's Go names and JSON names, so a handler cannot fill a field its op does
// not declare. dvvd writes the line straight from it (AnswerLine):
// result, id, then its fields; a client decodes it from the line
// (DecodeAnswer, AnswerOf).
type Answer interface {
	Op() string
}
