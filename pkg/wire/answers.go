package wire

import (
	"fmt"
	"reflect"
	"sync"
)

// Answer is one op's typed success: ClickAnswer, ScreenAnswer, …
// (each in its op_<name>_gen.go, written by internal/gen/args from the
// op's spec and Response).
// Each carries exactly the answer fields its spec lists, under Response's
// Go names and JSON names, so a handler cannot fill a field its op does
// not declare. dvvd writes the line straight from it: result, id, then
// its fields, the bytes a Response with those fields makes.
type Answer interface {
	Op() string
}

// answerPlan pairs an answer type's fields with Response's, by Go name.
type answerPlan struct{ ans, resp []int }

var answerPlans sync.Map // reflect.Type → *answerPlan

func planOfAnswer(t reflect.Type) *answerPlan {
	if p, ok := answerPlans.Load(t); ok {
		return p.(*answerPlan)
	}
	rt := reflect.TypeFor[Response]()
	p := &answerPlan{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		rf, ok := rt.FieldByName(f.Name)
		if !ok || rf.Type != f.Type || len(rf.Index) != 1 {
			panic(fmt.Sprintf("wire: %v.%s is not Response's %s", t, f.Name, f.Name)) // TestAnswersMatchSpec catches it first
		}
		p.ans, p.resp = append(p.ans, i), append(p.resp, rf.Index[0])
	}
	answerPlans.Store(t, p)
	return p
}

// ResponseOf is an answer as a Response: result set to its op, its
// fields copied. A group_run member carries its answer so.
func ResponseOf(a Answer) *Response {
	v := reflect.ValueOf(a)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	r := &Response{Result: a.Op()}
	rv := reflect.ValueOf(r).Elem()
	p := planOfAnswer(v.Type())
	for i := range p.ans {
		rv.Field(p.resp[i]).Set(v.Field(p.ans[i]))
	}
	return r
}

// AnswerFrom reads op R's answer from a line a generic client read: the
// fields R declares, and nothing a newer dvvd added.
func AnswerFrom[R any](r *Response) *R {
	a := new(R)
	v := reflect.ValueOf(a).Elem()
	rv := reflect.ValueOf(r).Elem()
	p := planOfAnswer(v.Type())
	for i := range p.ans {
		v.Field(p.ans[i]).Set(rv.Field(p.resp[i]))
	}
	return a
}
