package daemon

import (
	"maps"
	"slices"
	"testing"

	"github.com/dvvhq/dvv/pkg/wire"
)

// TestEveryUntilHasAWaitFamily: wait serves each `until` of its spec by
// that family's own function; a variant added to the spec without one, or
// a family the spec does not name, is caught here rather than answered
// INTERNAL at run time.
func TestEveryUntilHasAWaitFamily(t *testing.T) {
	spec, ok := wire.Builtin().Spec(wire.OpWait)
	if !ok {
		t.Fatal("no wait op")
	}
	want := slices.Sorted(slices.Values(spec.Variants))
	got := slices.Sorted(maps.Keys(waitFamilies))
	if !slices.Equal(got, want) {
		t.Fatalf("wait families %v, the spec's until variants %v", got, want)
	}
}
