package mcp

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-qemu/qmp"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// qemuStatus is QEMU's run state as its own QMP socket says.
func qemuStatus(t *testing.T, sock string) string {
	t.Helper()
	mon, err := qmp.NewSocketMonitor("unix", sock, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := mon.Connect(); err != nil {
		t.Fatal(err)
	}
	defer mon.Disconnect()
	out, err := mon.Run([]byte(`{"execute":"query-status"}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Return struct{ Status string } `json:"return"`
	}
	json.Unmarshal(out, &r)
	return r.Return.Status
}

// TestMachineToolSet: with --tools machine an agent whose token names
// machine.control pauses, resumes and snapshots a real QEMU through the
// bridge (QEMU's own QMP and qemu-img agree); an operator token without
// it is POLICY_DENIED and QEMU keeps running.
func TestMachineToolSet(t *testing.T) {
	t.Parallel()
	vm := testbed.StartQEMUMachine(t, 64)
	d := startDvvd(t)
	admin, err := client.Dial(context.Background(), d.Socket, client.Options{Name: "owner"})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	port, perceive := vm.Port, true
	open, err := admin.Open(context.Background(), wire.OpenArgs{Address: "127.0.0.1", Port: &port, Protocol: "vnc", Perceive: &perceive, Machine: "qmp:" + vm.QMP})
	if err != nil {
		t.Fatal(err)
	}
	limb := open.LimbID
	sets, _ := ParseSets("machine")

	plain, err := admin.TokenCreate(context.Background(), wire.TokenCreateArgs{Role: "operator"})
	if err != nil {
		t.Fatal(err)
	}
	_, cs := connectBridge(t, Options{Socket: d.Socket, Token: plain.Token, Sets: sets}, "operator-agent")
	if code := errorCode(t, call(t, cs, "dvv_machine_pause", map[string]any{"limbId": limb})); code != string(wire.PolicyDenied) {
		t.Errorf("dvv_machine_pause without machine.control: %s, want POLICY_DENIED", code)
	}
	if st := qemuStatus(t, vm.QMP); st != "running" {
		t.Fatalf("a denied pause left QEMU %q", st)
	}

	named, err := admin.TokenCreate(context.Background(), wire.TokenCreateArgs{Role: "operator", Caps: []string{"machine.control"}})
	if err != nil {
		t.Fatal(err)
	}
	_, ms := connectBridge(t, Options{Socket: d.Socket, Token: named.Token, Sets: sets}, "machine-agent")
	if r := call(t, ms, "dvv_machine_pause", map[string]any{"limbId": limb}); r.IsError {
		t.Fatalf("dvv_machine_pause: %s", texts(r))
	}
	if st := qemuStatus(t, vm.QMP); st != "paused" {
		t.Fatalf("QEMU is %q after dvv_machine_pause", st)
	}
	if r := call(t, ms, "dvv_machine_state", map[string]any{"limbId": limb}); r.IsError || !strings.Contains(texts(r), "paused") {
		t.Fatalf("dvv_machine_state: %s", texts(r))
	}
	if r := call(t, ms, "dvv_machine_resume", map[string]any{"limbId": limb}); r.IsError {
		t.Fatalf("dvv_machine_resume: %s", texts(r))
	}
	if st := qemuStatus(t, vm.QMP); st != "running" {
		t.Fatalf("QEMU is %q after dvv_machine_resume", st)
	}
	if r := call(t, ms, "dvv_machine_snapshot_create", map[string]any{"limbId": limb, "snapshot": "agent-1"}); r.IsError {
		t.Fatalf("dvv_machine_snapshot_create: %s", texts(r))
	}
	if out, err := exec.Command("qemu-img", "snapshot", "-U", "-l", vm.Disk).CombinedOutput(); err != nil || !strings.Contains(string(out), "agent-1") {
		t.Fatalf("qemu-img does not list the agent's snapshot: %v: %s", err, out)
	}
	if r := call(t, ms, "dvv_machine_snapshot_restore", map[string]any{"limbId": limb, "snapshot": "agent-1"}); r.IsError || !strings.Contains(texts(r), `"machine":{"act":"restore","snapshot":"agent-1"`) {
		t.Fatalf("dvv_machine_snapshot_restore: %s", texts(r))
	}
}
