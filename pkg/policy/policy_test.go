package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestSpecCapsAreKnown holds every capability pkg/wire's op table names to
// policy's closed set, so a misspelt one cannot open an op by accident.
func TestSpecCapsAreKnown(t *testing.T) {
	for _, s := range wire.Ops() {
		for _, c := range s.AllCaps() {
			if _, err := ParseCapability(c); err != nil {
				t.Errorf("op %s needs %q, which is not a capability: %v", s.Name, c, err)
			}
		}
	}
}

// The attachments every row is checked against.
func grants(t *testing.T) []struct {
	name string
	g    Grant
} {
	mk := func(role string, extra ...Capability) Grant {
		g, err := NewGrant(role, extra, "tok-test")
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	return []struct {
		name string
		g    Grant
	}{
		{"observer", mk(RoleObserver)},
		{"operator", mk(RoleOperator)},
		{"owner", mk(RoleOwner)},
		{"operator+exec", mk(RoleOperator, Exec)},
		{"tokenless", Owner()},
	}
}

// Each row's allow column is one letter per attachment above, in order:
// y allowed, n denied.
var opTable = []struct {
	op, action string
	allow      string
}{
	{wire.OpHello, "", "yyyyy"},
	{wire.OpAttach, "", "yyyyy"},
	{wire.OpPing, "", "yyyyy"},
	{wire.OpSubscribe, "", "yyyyy"},
	{wire.OpShutdown, "", "nnyny"},
	{wire.OpLimbs, "", "yyyyy"},
	{wire.OpStatus, "", "yyyyy"},
	{wire.OpSignals, "", "yyyyy"},
	{wire.OpWait, "", "yyyyy"},
	{wire.OpTransfer, "status", "nyyyy"},
	{wire.OpTransfer, "cancel", "nyyyy"},
	{wire.OpOpen, "", "nyyyy"},
	{wire.OpClose, "", "nyyyy"},
	{wire.OpReconnect, "", "nyyyy"},
	{wire.OpControl, "acquire", "nyyyy"},
	{wire.OpControl, "release", "nyyyy"},
	{wire.OpControl, "yield", "nyyyy"},
	{wire.OpControl, "status", "yyyyy"},
	{wire.OpControl, "yield_status", "yyyyy"},
	{wire.OpControl, "bogus", "nyyyy"},
	{wire.OpClick, "click", "nyyyy"},
	{wire.OpType, "", "nyyyy"},
	{wire.OpKey, "", "nyyyy"},
	{wire.OpTermSend, "", "nnnyy"},
	{wire.OpTakeover, "", "nnyny"},
	{wire.OpShare, "", "nnyny"},
	{wire.OpViewer, "open", "nnyny"},
	{wire.OpViewer, "watch", "yyyyy"},
	{wire.OpHandback, "", "nnyny"},
	{wire.OpPause, "pause", "nnyny"},
	{wire.OpPause, "resume", "nnyny"},
	{wire.OpScreen, "", "yyyyy"},
	{wire.OpTermRead, "", "yyyyy"},
	{wire.OpFind, "", "yyyyy"},
	{wire.OpExpect, "", "yyyyy"},
	{wire.OpClipboard, "get", "nnyny"},
	{wire.OpClipboard, "set", "nyyyy"},
	{wire.OpClipboard, "bogus", "nnyny"},
	{wire.OpWindows, "", "yyyyy"},
	{wire.OpWindow, "activate", "nyyyy"},
	{wire.OpWindow, "close", "nyyyy"},
	{wire.OpWorkspaces, "list", "yyyyy"},
	{wire.OpWorkspaces, "switch", "nyyyy"},
	{wire.OpRun, "", "nnnyy"},
	{wire.OpFiles, "list", "nyyyy"},
	{wire.OpFiles, "get", "nyyyy"},
	{wire.OpFiles, "home", "nyyyy"},
	{wire.OpFiles, "put", "nnyny"},
	{wire.OpFiles, "mkdir", "nnyny"},
	{wire.OpFiles, "remove", "nnyny"},
	{wire.OpFiles, "rename", "nnyny"},
	{wire.OpFiles, "bogus", "nnyny"},
	{wire.OpHosts, "", "yyyyy"},
	{wire.OpHostAdd, "", "nnyny"},
	{wire.OpHostRemove, "", "nnyny"},
	{wire.OpHostTrust, "", "nnyny"},
	{wire.OpGroupOpen, "", "nyyyy"},
	{wire.OpGroupList, "", "yyyyy"},
	{wire.OpGroupGrow, "", "nyyyy"},
	{wire.OpGroupShrnk, "", "nyyyy"},
	{wire.OpGroupClose, "", "nyyyy"},
	{wire.OpGroupRun, "status", "yyyyy"},
	{wire.OpGroupRun, "screen", "yyyyy"},
	{wire.OpGroupRun, "wait", "yyyyy"},
	{wire.OpGroupRun, "signals", "yyyyy"},
	{wire.OpGroupRun, "click", "nyyyy"},
	{wire.OpGroupRun, "type", "nyyyy"},
	{wire.OpGroupRun, "key", "nyyyy"},
	{wire.OpGroupRun, "run", "nnnyy"},
	{wire.OpGroupRun, "term_send", "nnnyy"},
	{wire.OpGroupRun, "group_run", "nnyny"},
	{wire.OpGroupRun, "", "nnyny"},
	{wire.OpTokenNew, "", "nnyny"},
	{wire.OpTokenList, "", "nnyny"},
	{wire.OpTokenRevok, "", "nnyny"},
	{wire.OpHistory, "", "yyyyy"},
	{wire.OpCancel, "", "yyyyy"},
	{wire.OpHealth, "", "yyyyy"},
	{wire.OpRecord, "start", "yyyyy"},
	{wire.OpReport, "", "nnyny"},
	{wire.OpMachineState, "", "nnnny"},
	{wire.OpMachinePause, "", "nnnny"},
	{wire.OpMachineResume, "", "nnnny"},
	{wire.OpMachinePower, "", "nnnny"},
	{wire.OpMachineReset, "", "nnnny"},
	{wire.OpMachineStop, "", "nnnny"},
	{wire.OpMachineStart, "", "nnnny"},
	{wire.OpMachineSnapshotCreate, "", "nnnny"},
	{wire.OpMachineSnapshotList, "", "nnnny"},
	{wire.OpMachineSnapshotRestore, "", "nnnny"},
	{wire.OpMachineSnapshotDelete, "", "nnnny"},
	{"no_such_op", "", "nnyny"},
}

func TestEveryOpAgainstEveryRole(t *testing.T) {
	gs := grants(t)
	covered := map[string]bool{}
	for _, row := range opTable {
		covered[row.op] = true
		if len(row.allow) != len(gs) {
			t.Fatalf("row %s/%s has %d columns", row.op, row.action, len(row.allow))
		}
		for i, g := range gs {
			want := row.allow[i] == 'y'
			req := argsOf(row.op, "action", row.action)
			errReq := g.g.Allow(nil, req)
			errOp := g.g.AllowOp(nil, row.op, row.action)
			if (errReq == nil) != want || (errOp == nil) != want {
				t.Errorf("%s %s/%s: allowed=%v (Allow) %v (AllowOp), want %v", g.name, row.op, row.action, errReq == nil, errOp == nil, want)
			}
			if errReq != nil {
				if errReq.Code != wire.PolicyDenied {
					t.Errorf("%s %s: code %s", g.name, row.op, errReq.Code)
				}
				c, _ := g.g.Missing(RequiredFor(nil, req))
				if !strings.Contains(errReq.Message, string(c)) || !strings.Contains(errReq.Next, string(c)) {
					t.Errorf("%s %s: denial %q / %q does not name %q", g.name, row.op, errReq.Message, errReq.Next, c)
				}
			}
		}
	}
	for _, s := range wire.Ops() {
		op := s.Name
		if !covered[op] {
			t.Errorf("op %q has no row in the policy table test", op)
		}
		if !known(op) {
			t.Errorf("op %q is not in policy's op table", op)
		}
	}
}

func TestExecAndLocalFilesAreInNoBundle(t *testing.T) {
	for _, role := range Roles {
		b, ok := Bundle(role)
		if !ok {
			t.Fatalf("role %s has no bundle", role)
		}
		for _, c := range b {
			for _, u := range Unbundled {
				if c == u {
					t.Errorf("role %s bundles %s", role, c)
				}
			}
		}
	}
	if _, ok := Bundle("admin"); ok {
		t.Error("unknown role has a bundle")
	}
	g, _ := NewGrant(RoleOwner, []Capability{Exec}, "t")
	if !g.Has(Exec) {
		t.Error("a named exec is not granted")
	}
	for _, c := range All {
		if !Owner().Has(c) {
			t.Errorf("tokenless lacks %s", c)
		}
	}
}

// A machine's power and snapshots are in no role: even an owner-role token
// acts on a machine only when machine.control is named on it.
func TestMachineControlOnlyWhenNamed(t *testing.T) {
	named, err := NewGrant(RoleObserver, []Capability{MachineControl}, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range wire.Ops() {
		if !strings.HasPrefix(s.Name, "machine_") {
			continue
		}
		if e := named.AllowOp(nil, s.Name, ""); e != nil {
			t.Errorf("%s refused with machine.control named: %v", s.Name, e)
		}
		owner, _ := NewGrant(RoleOwner, nil, "t")
		if e := owner.AllowOp(nil, s.Name, ""); e == nil || !strings.Contains(e.Next, "--cap machine.control") {
			t.Errorf("%s: an owner-role token without machine.control: %v", s.Name, e)
		}
	}
}

func TestRolesNest(t *testing.T) {
	prev := map[Capability]bool{}
	for _, role := range Roles {
		b, _ := Bundle(role)
		cur := map[Capability]bool{}
		for _, c := range b {
			cur[c] = true
		}
		for c := range prev {
			if !cur[c] {
				t.Errorf("%s lacks %s, which a weaker role has", role, c)
			}
		}
		prev = cur
	}
}

func TestLocalPathsNeedLocalFiles(t *testing.T) {
	owner, _ := NewGrant(RoleOwner, nil, "tok-1")
	withLocal, _ := NewGrant(RoleOwner, []Capability{LocalFiles}, "tok-2")
	inner, _ := json.Marshal(map[string]any{"out": "/tmp/x.png"})
	for _, req := range []wire.Args{
		&wire.FilesArgs{Action: "get", Path: "/etc/hosts", To: "/home/u/.bashrc"},
		&wire.FilesArgs{Action: "put", Path: "/tmp/k", From: "/home/u/.ssh/id_ed25519"},
		&wire.ScreenArgs{Out: "/tmp/s.png"},
		&wire.GroupRunArgs{Action: "screen", OutDir: "/tmp/d"},
		&wire.GroupRunArgs{Action: "screen", Arguments: inner},
	} {
		e := owner.Allow(nil, req)
		if e == nil || !strings.Contains(e.Message, string(LocalFiles)) {
			t.Errorf("%s/%s with a local path allowed for an owner token: %v", req.Op(), wire.GistOf(req).Action, e)
		}
		if e := withLocal.Allow(nil, req); e != nil {
			t.Errorf("%s/%s refused with local.files named: %v", req.Op(), wire.GistOf(req).Action, e)
		}
		if e := Owner().Allow(nil, req); e != nil {
			t.Errorf("tokenless refused %s: %v", req.Op(), e)
		}
	}
	// Inline transfers need no local capability.
	if e := owner.Allow(nil, &wire.FilesArgs{Action: "put", Path: "/tmp/k", ContentBase64: "eA=="}); e != nil {
		t.Errorf("inline put refused: %v", e)
	}
	// A group_run cannot launder exec through its arguments.
	op, _ := NewGrant(RoleOperator, nil, "t")
	if op.Allow(nil, &wire.GroupRunArgs{Action: "run", Arguments: json.RawMessage(`{"command":"id"}`)}) == nil {
		t.Error("group_run run allowed without exec")
	}
	if op.Allow(nil, &wire.GroupRunArgs{Action: "click", Arguments: json.RawMessage(`{not json`)}) == nil {
		t.Error("group_run with malformed arguments allowed for an operator")
	}
	if RequiredFor(nil, nil)[0] != DaemonAdmin {
		t.Error("nil request")
	}
}

// A port given beside a saved host would send its credential elsewhere: it
// needs hosts.write, the capability that can change the host.
func TestPortOverrideOnSavedHostNeedsHostsWrite(t *testing.T) {
	port := 5973
	override := &wire.OpenArgs{HostID: "lab", Port: &port}
	for _, g := range grants(t) {
		e := g.g.Allow(nil, override)
		if g.g.Has(HostsWrite) != (e == nil) {
			t.Errorf("%s: open hostId+port allowed=%v", g.name, e == nil)
		}
		if e != nil && g.g.Has(LimbsOpen) && !strings.Contains(e.Message, string(HostsWrite)) {
			t.Errorf("%s: denial does not name hosts.write: %v", g.name, e)
		}
		if g.g.Has(LimbsOpen) && g.g.Allow(nil, &wire.OpenArgs{HostID: "lab"}) != nil {
			t.Errorf("%s: a saved host at its own endpoint refused", g.name)
		}
	}
}

func TestCheckDelegation(t *testing.T) {
	owner, _ := NewGrant(RoleOwner, nil, "tok-1")
	if e := CheckDelegation(owner, RoleOperator, nil); e != nil {
		t.Errorf("owner token cannot make an operator token: %v", e)
	}
	if e := CheckDelegation(owner, RoleObserver, []Capability{Exec}); e == nil || e.Code != wire.PolicyDenied || !strings.Contains(e.Message, "exec") {
		t.Errorf("owner token without exec made an exec token: %v", e)
	}
	if e := CheckDelegation(Owner(), RoleObserver, []Capability{Exec, LocalFiles}); e != nil {
		t.Errorf("tokenless refused: %v", e)
	}
	if e := CheckDelegation(Owner(), "root", nil); e == nil || e.Code != wire.BadRequest {
		t.Errorf("unknown role: %v", e)
	}
	if e := CheckDelegation(Owner(), RoleObserver, []Capability{"sudo"}); e == nil || e.Code != wire.BadRequest {
		t.Errorf("unknown cap: %v", e)
	}
}

func TestParseCapabilities(t *testing.T) {
	cs, err := ParseCapabilities([]string{"exec", "files.write"})
	if err != nil || len(cs) != 2 || cs[0] != Exec {
		t.Fatalf("%v %v", cs, err)
	}
	if _, err := ParseCapabilities([]string{"exec", "everything"}); err == nil || !strings.Contains(err.Error(), "everything") {
		t.Fatalf("unknown cap: %v", err)
	}
	g, _ := NewGrant(RoleObserver, []Capability{Exec}, "t")
	if got := strings.Join(g.List(), ","); got != "exec,history.read,hosts.read,screen.read" {
		t.Fatalf("List = %s", got)
	}
}

func FuzzRequiredFor(f *testing.F) {
	f.Add("group_run", "screen", []byte(`{"out":"/x"}`))
	f.Add("files", "get", []byte(`{}`))
	f.Add("group_run", "group_run", []byte(`{"action":"run"}`))
	f.Add("x", "", []byte(`[`))
	gs := []Grant{Owner()}
	for _, r := range Roles {
		g, _ := NewGrant(r, nil, "t")
		gs = append(gs, g)
	}
	f.Fuzz(func(t *testing.T, op, action string, args []byte) {
		req := argsOf(op, "action", action, "arguments", json.RawMessage(args))
		need := RequiredFor(nil, req)
		if !known(op) && len(need) == 0 {
			t.Fatalf("unknown op %q needs nothing", op)
		}
		for _, g := range gs {
			if e := g.Allow(nil, req); e != nil && e.Code != wire.PolicyDenied {
				t.Fatalf("code %s", e.Code)
			}
		}
	})
}

// known reports whether op is in dvv's op table.
func known(op string) bool {
	_, ok := wire.Spec(op)
	return ok
}
