package daemon

import (
	"go/build"
	"testing"
)

// TestDaemonDoesNotImportTheClient: dvvd shares the socket rules with its
// clients through pkg/sock; importing pkg/client would let the daemon's
// core grow a dependency on the client's side of the wire.
func TestDaemonDoesNotImportTheClient(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if imp == "github.com/dvvhq/dvv/pkg/client" {
			t.Fatalf("pkg/daemon imports %s outside its tests", imp)
		}
	}
}
