package cli

import (
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

func TestTypoSuggestions(t *testing.T) {
	for args, want := range map[string]string{
		"opne":      "did you mean `dvv open`?",
		"files lst": "did you mean `dvv files ls`?",
		"grup":      "did you mean `dvv group`?",
	} {
		_, code, _, errs := sent(t, strings.Fields(args)...)
		if code != wire.ExitUsage || !strings.Contains(errs, want) {
			t.Errorf("dvv %s: exit %d %q", args, code, errs)
		}
	}
}

// list works wherever ls does (the hints print `files list`), and
// control status is the one help shows: yield-status (and the op's
// yield_status) still work, hidden, as they answer the same.
func TestAliasesAndDashes(t *testing.T) {
	for _, args := range [][]string{{"files", "list", "ssh-1"}, {"group", "list"}, {"token", "list"}} {
		if req, code, _, errs := sent(t, args...); code != 0 || req == nil {
			t.Errorf("dvv %s: exit %d %q", strings.Join(args, " "), code, errs)
		}
	}
	for _, name := range []string{"yield-status", "yield_status"} {
		req, code, _, errs := sent(t, "control", name, "vnc-1")
		if code != 0 || req.Action != "yield_status" {
			t.Errorf("control %s: exit %d %q %s", name, code, errs, requestJSON(t, req))
		}
	}
	_, _, out, _ := sent(t, "control", "--help")
	if !strings.Contains(out, "status") || strings.Contains(out, "yield-status") || strings.Contains(out, "yield_status") {
		t.Errorf("control --help lists %q", out)
	}
	_, _, out, _ = sent(t, "open", "--help")
	if !strings.Contains(out, "--perceive  ") && !strings.Contains(out, "--perceive    ") {
		t.Errorf("--perceive takes a value name in help: %q", out)
	}
}

func TestCompletion(t *testing.T) {
	answer := func(r *sentReq) (wire.Answer, error) {
		switch r.Op {
		case wire.OpLimbs:
			return &wire.LimbsAnswer{Limbs: []wire.LimbSummary{{LimbID: "vnc-1a2b", Protocol: "vnc", Address: "10.0.0.5", Port: 5900}},
				Available: []wire.LimbSummary{{LimbID: "ssh-9f8e", Protocol: "ssh", Address: "lab", Port: 22}}}, nil
		case wire.OpGroupList:
			return &wire.GroupListAnswer{Groups: []wire.Group{{GroupID: "grp-7", Size: 3}}}, nil
		case wire.OpHosts:
			return &wire.HostsAnswer{Hosts: []wire.Host{{ID: "h-1", Name: "lab", Protocol: "vnc", Address: "10.0.0.5", Port: 5900}}}, nil
		}
		return nil, nil
	}
	for args, want := range map[string][]string{
		"screen ":              {"vnc-1a2b\tvnc 10.0.0.5:5900", "ssh-9f8e\tssh lab:22"},
		"group close ":         {"grp-7\t3 members"},
		"open ":                {"lab\tvnc 10.0.0.5:5900"},
		"open x --protocol ":   {"vnc", "rdp", "ssh"},
		"wait vnc-1 --until ":  {"connected", "screen-stable", "screen-changed", "text", "text-gone", "idle", "exit", "window", "window-gone", "window-active", "element", "element-gone", "text-equals", "text-contains"},
		"screen vnc-1 --form ": {"full", "region", "damage-crop"},
		"token create --role ": {"observer", "operator", "owner"},
	} {
		fields := append([]string{"__complete"}, strings.Fields(args)...)
		fields = append(fields, "")
		_, code, out, errs := answered(t, "", answer, fields...)
		got := strings.Split(strings.TrimSpace(out), "\n")
		got = got[:len(got)-1] // the directive line
		if code != 0 || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("complete %q: exit %d %q %q", args, code, got, errs)
		}
	}
}

// Hints are worded as dvv commands, not as MCP tool calls; a hint dvvd
// wrote for this failure is kept.
func TestCLIHints(t *testing.T) {
	for code, want := range map[wire.Code]string{
		wire.LeaseNotHeld: "next: run `dvv control acquire LIMB`",
		wire.NotFound:     "`dvv files ls LIMB PATH`",
	} {
		_, _, _, errs := answered(t, "", func(r *sentReq) (wire.Answer, error) { return nil, wire.Errorf(code, "no") }, "status", "vnc-1")
		if !strings.Contains(errs, want) || strings.Contains(errs, "Call `") {
			t.Errorf("%s: %q", code, errs)
		}
	}
	_, _, _, errs := answered(t, "", func(r *sentReq) (wire.Answer, error) {
		return nil, &wire.Error{Code: wire.HostKeyUnknown, Message: "unknown key", Next: "dvv hosts trust 10.0.0.5:22 --fingerprint SHA256:x"}
	}, "status", "vnc-1")
	if !strings.Contains(errs, "next: dvv hosts trust 10.0.0.5:22") {
		t.Errorf("a specific hint was replaced: %q", errs)
	}
}
