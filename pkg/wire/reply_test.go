package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestReadReply: a success keeps its line and decodes no failure field; a
// failure gives its *Error with the observation; the op's answer is read
// from the line, by type or by the result it names, and ignores fields
// its op does not declare.
func TestReadReply(t *testing.T) {
	line := []byte(`{"result":"status","id":7,"limbId":"vnc-1","observation":{"limbId":"vnc-1","state":"connected"},"later":1}`)
	r, err := ReadReply(line)
	if err != nil || r.Result != OpStatus || string(r.ID) != "7" || r.Err() != nil || r.Observation != nil || !bytes.Equal(r.Line, line) {
		t.Fatalf("success read as %+v (%v)", r, err)
	}
	st, err := DecodeAnswer[StatusAnswer](r)
	if err != nil || st.LimbID != "vnc-1" || st.Observation == nil || st.Observation.State != "connected" {
		t.Fatalf("status answer %+v (%v)", st, err)
	}
	a, err := AnswerOf(r)
	if got, ok := a.(*StatusAnswer); err != nil || !ok || got.LimbID != "vnc-1" {
		t.Fatalf("answer by result: %#v (%v)", a, err)
	}
	again, err := AnswerLine(r.ID, st)
	if err != nil || !bytes.Equal(again, []byte(`{"result":"status","id":7,"limbId":"vnc-1","observation":`+string(mustJSON(t, st.Observation))+`}`)) {
		t.Fatalf("written again: %s (%v)", again, err)
	}

	fail := []byte(`{"result":"error","id":"a","code":"GEOMETRY_CHANGED","message":"m","next":"n","cause":"AUTH_FAILED","observation":{"limbId":"vnc-1"}}`)
	r, err = ReadReply(fail)
	if err != nil {
		t.Fatal(err)
	}
	we := r.Err()
	if we == nil || we.Code != GeometryChanged || we.Message != "m" || we.Next != "n" || we.Cause != AuthFailed || we.Observation == nil || we.Observation.LimbID != "vnc-1" {
		t.Fatalf("failure read as %+v", we)
	}
	if a, err := AnswerOf(r); a != nil || err != nil {
		t.Fatalf("a failure has no answer: %v %v", a, err)
	}
	bare := []byte(`{"result":"error","id":"a","code":"BUSY","message":"m","next":"n"}`)
	if r, err = ReadReply(bare); err != nil {
		t.Fatal(err)
	}
	if b := mustJSON(t, ErrorReply(r.ID, r.Err())); !bytes.Equal(b, bare) {
		t.Fatalf("a failure written again:\n%s\nnot\n%s", b, bare)
	}

	if _, err := ReadReply([]byte(`{"result":`)); err == nil {
		t.Fatal("a broken line was read")
	}
	if _, err := AnswerOf(&Reply{Result: "no_such_op", Line: []byte(`{"result":"no_such_op"}`)}); err == nil {
		t.Fatal("an answer of no known op was decoded")
	}
}

// TestMemberReply: a group_run member's line reads as any line; a member
// with no answer says so.
func TestMemberReply(t *testing.T) {
	m := MemberResult{Index: 1, Response: json.RawMessage(`{"result":"wait","wait":{"until":"idle","settled":true,"elapsedMs":3}}`)}
	r, err := m.Reply()
	if err != nil || r.Result != OpWait {
		t.Fatalf("%+v (%v)", r, err)
	}
	w, err := DecodeAnswer[WaitAnswer](r)
	if err != nil || w.Wait == nil || !w.Wait.Settled {
		t.Fatalf("%+v (%v)", w, err)
	}
	for _, empty := range []json.RawMessage{nil, json.RawMessage(`null`)} {
		if _, err := (MemberResult{Response: empty}).Reply(); err == nil {
			t.Errorf("a member answering %q read as a line", empty)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
