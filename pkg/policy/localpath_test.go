package policy

import (
	"reflect"
	"slices"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// probeArgs is a new op's arguments with one field that names a path on
// dvvd's machine, marked only by its tag.
type probeArgs struct {
	wire.Target
	Cwd     string `json:"cwd,omitempty" dvv:"localpath"`
	Command string `json:"command,omitempty"`
}

func (probeArgs) Op() string { return "probe_local" }

// TestLocalPathTagNeedsLocalFiles: an op whose Args tags a field
// `dvv:"localpath"` needs local.files when a request carries that field,
// with nothing else told about it; without the field it needs only its
// spec's capabilities.
func TestLocalPathTagNeedsLocalFiles(t *testing.T) {
	ops := wire.NewTable(append(slices.Clone(wire.Ops()), wire.OpSpec{Name: "probe_local", Limb: true, Caps: []string{string(ScreenRead)},
		Fields: []wire.Field{{Name: "limbId"}, {Name: "cwd"}, {Name: "command"}}, Args: reflect.TypeFor[probeArgs](), AnswerType: reflect.TypeFor[wire.PingAnswer]()}))
	with := RequiredFor(ops, &probeArgs{Target: wire.Target{LimbID: "l1"}, Cwd: "/etc"})
	if !slices.Contains(with, LocalFiles) || !slices.Contains(with, ScreenRead) {
		t.Fatalf("a request naming a local path needs %v", with)
	}
	without := RequiredFor(ops, &probeArgs{Target: wire.Target{LimbID: "l1"}, Command: "id"})
	if slices.Contains(without, LocalFiles) {
		t.Fatalf("a request naming no local path needs %v", without)
	}
	reader, _ := NewGrant(RoleObserver, []Capability{ScreenRead}, "t")
	if e := reader.Allow(ops, &probeArgs{Target: wire.Target{LimbID: "l1"}, Cwd: "/etc"}); e == nil || e.Code != wire.PolicyDenied {
		t.Fatalf("a grant without local.files was allowed a local path: %v", e)
	}
}

// TestLocalPathsOfTheTable: the fields dvv's own ops tag are the ones
// that name a file on dvvd's machine, in the variants they do.
func TestLocalPathsOfTheTable(t *testing.T) {
	got := map[string][]wire.LocalPath{}
	for _, s := range wire.Ops() {
		if ps := wire.LocalPaths(s.Args); len(ps) > 0 {
			got[s.Name] = ps
		}
	}
	want := map[string][]wire.LocalPath{
		wire.OpScreen:   {{Field: "out"}},
		wire.OpFiles:    {{Field: "to", Variants: []string{"get"}}, {Field: "from", Variants: []string{"put"}}},
		wire.OpGroupRun: {{Field: "outDir"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("local paths %v, want %v", got, want)
	}
}
