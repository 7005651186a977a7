package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

func TestDecode(t *testing.T) {
	cases := []struct {
		tool, args string
		code       wire.Code // "" = accepted
		msg        string    // substring of the message
		check      func(t *testing.T, r *lineReq)
	}{
		{tool: "dvv_limbs", args: ``, check: func(t *testing.T, r *lineReq) {
			if r.Op != "limbs" {
				t.Errorf("op %q", r.Op)
			}
		}},
		{tool: "dvv_limbs", args: `null`},
		{tool: "dvv_limbs", args: `{}`},
		{tool: "dvv_limbs", args: `[]`, code: wire.BadRequest, msg: "must be a JSON object, not an array"},
		{tool: "dvv_limbs", args: `{"limbId":"a"}`, code: wire.BadRequest, msg: `unknown argument "limbId"`},
		{tool: "dvv_status", args: `{"limbID":"a"}`, code: wire.BadRequest, msg: `unknown argument "limbID"`},
		{tool: "dvv_status", args: `{"limbId":"vnc-1","member":null}`, check: func(t *testing.T, r *lineReq) {
			if r.LimbID != "vnc-1" || r.Member != nil {
				t.Errorf("%+v", r)
			}
		}},
		{tool: "dvv_status", args: `{"groupId":"g","member":2}`, check: func(t *testing.T, r *lineReq) {
			if r.GroupID != "g" || r.Member == nil || *r.Member != 2 {
				t.Errorf("%+v", r)
			}
		}},
		{tool: "dvv_status", args: `{"limbId":7}`, code: wire.BadRequest, msg: `"limbId" must be a string, not a number`},
		{tool: "dvv_click", args: `{"limbId":"a","x":1,"y":2}`, code: wire.BadRequest, msg: `missing required argument "action"`},
		{tool: "dvv_click", args: `{"action":"tap"}`, code: wire.BadRequest, msg: "not one of move, click"},
		{tool: "dvv_click", args: `{"action":"click","x":"10"}`, code: wire.BadRequest, msg: `"x" must be a number, not a string`},
		{tool: "dvv_click", args: `{"action":"click","x":10.5}`, code: wire.BadRequest, msg: "whole number"},
		{tool: "dvv_click", args: `{"action":"click","x":1e400}`, code: wire.BadRequest, msg: "not a usable number"},
		{tool: "dvv_click", args: `{"action":"click","generation":-1}`, code: wire.BadRequest, msg: "generation"},
		{tool: "dvv_click", args: `{"action":"click","modifiers":"ctrl"}`, code: wire.BadRequest, msg: "must be an array"},
		{tool: "dvv_click", args: `{"action":"click","modifiers":["ctrl",1]}`, code: wire.BadRequest, msg: `"modifiers[1]" must be a string`},
		{tool: "dvv_click", args: `{"limbId":"a","generation":3,"action":"drag","x":10.0,"y":2e1,"toX":30,"toY":40,"button":"left","modifiers":["shift"]}`,
			check: func(t *testing.T, r *lineReq) {
				if *r.Generation != 3 || *r.X != 10 || *r.Y != 20 || *r.ToX != 30 || r.Button != "left" || r.Modifiers[0] != "shift" || r.Action != "drag" {
					t.Errorf("%+v", r)
				}
			}},
		// What only dvvd can judge passes through: no generation is UNFENCED there.
		{tool: "dvv_click", args: `{"limbId":"a","action":"click","x":1,"y":1}`},
		{tool: "dvv_screen", args: `{"limbId":"a","form":"region","region":{"x":0,"y":0,"w":10,"h":10},"scale":0.5}`,
			check: func(t *testing.T, r *lineReq) {
				if r.Region == nil || r.Region.W != 10 || *r.Scale != 0.5 {
					t.Errorf("%+v", r)
				}
			}},
		{tool: "dvv_screen", args: `{"region":{"x":0,"y":0,"w":10}}`, code: wire.BadRequest, msg: `"region.h"`},
		{tool: "dvv_screen", args: `{"region":{"x":0,"y":0,"w":10,"h":1,"z":1}}`, code: wire.BadRequest, msg: `unknown argument "region.z"`},
		{tool: "dvv_screen", args: `{"region":[0,0,1,1]}`, code: wire.BadRequest, msg: "must be an object"},
		{tool: "dvv_close", args: `{}`, code: wire.BadRequest, msg: `missing required argument "limbId"`},
		{tool: "dvv_run", args: `{"limbId":"s","command":"true"}`, code: wire.BadRequest, msg: `"timeoutMs"`},
		{tool: "dvv_open", args: `{"address":"127.0.0.1","protocol":"vnc","port":5901,"perceive":true}`, check: func(t *testing.T, r *lineReq) {
			if *r.Port != 5901 || !*r.Perceive || r.Protocol != "vnc" {
				t.Errorf("%+v", r)
			}
		}},
		{tool: "dvv_open", args: `{"perceive":"yes"}`, code: wire.BadRequest, msg: "must be a boolean"},
		{tool: "dvv_type", args: `{"text":"` + strings.Repeat("a", MaxText+1) + `"}`, code: wire.TooLarge, msg: "the limit is"},
		{tool: "dvv_status", args: `{"limbId":"` + strings.Repeat("a", DefaultMaxString+1) + `"}`, code: wire.TooLarge},
		{tool: "dvv_group_open", args: `{"addresses":[` + strings.Repeat(`"a",`, MaxArrayItems) + `"a"]}`, code: wire.TooLarge, msg: "items"},
		{tool: "dvv_group_run", args: `{"groupId":"g","action":"click","arguments":{"generation":1,"action":"click","x":1,"y":2}}`,
			check: func(t *testing.T, r *lineReq) {
				var inner map[string]any
				if err := json.Unmarshal(r.Arguments, &inner); err != nil || inner["x"] != 1.0 || inner["action"] != "click" {
					t.Errorf("arguments %s (%v)", r.Arguments, err)
				}
			}},
		{tool: "dvv_group_run", args: `{"groupId":"g","action":"click","arguments":{"limbId":"a","action":"click"}}`, code: wire.BadRequest, msg: `unknown argument "arguments.limbId"`},
		{tool: "dvv_group_run", args: `{"groupId":"g","action":"type","arguments":{}}`, code: wire.BadRequest, msg: `"arguments.text"`},
		{tool: "dvv_group_run", args: `{"groupId":"g","action":"status"}`},
		{tool: "dvv_group_run", args: `{"groupId":"g","action":"status","arguments":"x"}`, code: wire.BadRequest, msg: "must be an object"},
		{tool: "dvv_files", args: `{"action":"put","path":"~/x","contentBase64":"aGk=","mode":420}`, check: func(t *testing.T, r *lineReq) {
			if *r.Mode != 420 || r.ContentBase64 != "aGk=" {
				t.Errorf("%+v", r)
			}
		}},
		{tool: "dvv_files", args: `{"action":"put"`, code: wire.BadRequest, msg: "not valid JSON"},
	}
	for _, c := range cases {
		tool, ok := Lookup(c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		name := c.tool + " " + clip(c.args)
		req, werr := tool.Decode(json.RawMessage(c.args))
		switch {
		case c.code == "" && werr != nil:
			t.Errorf("%s: refused: %v", name, werr)
		case c.code != "" && werr == nil:
			t.Errorf("%s: accepted, want %s", name, c.code)
		case werr != nil && werr.Code != c.code:
			t.Errorf("%s: %v, want %s", name, werr, c.code)
		case werr != nil && !strings.Contains(werr.Message, c.msg):
			t.Errorf("%s: message %q lacks %q", name, werr.Message, c.msg)
		case werr != nil && werr.Next == "":
			t.Errorf("%s: no next move", name)
		case werr == nil && c.check != nil:
			c.check(t, lineOf(t, req))
		}
	}
}

func TestDecodeOversizedWhole(t *testing.T) {
	tool, _ := Lookup("dvv_files")
	big := make([]byte, MaxArgumentBytes+1)
	_, werr := tool.Decode(big)
	if werr == nil || werr.Code != wire.TooLarge {
		t.Fatalf("got %v, want TOO_LARGE", werr)
	}
}

// FuzzDecode feeds hostile arguments to every tool: nothing may panic, and
// every refusal must carry a code and a next move.
func FuzzDecode(f *testing.F) {
	seeds := []string{``, `null`, `{}`, `[]`, `"x"`, `{"limbId":"a"}`, `{"action":"click","x":1e308}`,
		`{"region":{"x":-1,"y":0,"w":1,"h":1}}`, `{"arguments":{"arguments":{}}}`, `{"modifiers":[null]}`,
		`{"groupId":"g","action":"run","arguments":{"command":"x","timeoutMs":-0}}`, `{"x":9223372036854775808}`}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		tool := &Tools[int(which)%len(Tools)]
		req, werr := tool.Decode(raw)
		if werr != nil {
			if !werr.Code.Known() || werr.Next == "" || werr.Message == "" {
				t.Fatalf("bad refusal %+v", werr)
			}
			return
		}
		if req.Op() != tool.Op {
			t.Fatalf("op %q for %s", req.Op(), tool.Name)
		}
	})
}

// TestToolArgsAreTheOpsArgs: every argument a tool's schema offers is a
// field of its op's typed arguments, so Decode never refuses what the
// schema accepts.
func TestToolArgsAreTheOpsArgs(t *testing.T) {
	for _, tool := range Tools {
		spec, ok := wire.Spec(tool.Op)
		if !ok || spec.Args == nil {
			t.Errorf("%s: op %q has no typed arguments", tool.Name, tool.Op)
			continue
		}
		fields := argsFields(spec.Args)
		for _, a := range tool.Args {
			if _, ok := fields[a.Name]; !ok {
				t.Errorf("%s: argument %q is not a field of %v (%v)", tool.Name, a.Name, spec.Args, fields)
			}
		}
	}
}
