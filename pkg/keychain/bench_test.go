//go:build !darwin

package keychain

import (
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// BenchmarkSecretServiceGet reads one secret through dvv's client
// (one connection, searches and reads per call).
func BenchmarkSecretServiceGet(b *testing.B) {
	testbed.StartKeyring(b)
	kc, err := Open()
	if err != nil {
		b.Fatal(err)
	}
	if err := kc.Set("h-bench001", "", "bench-secret"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s, err := kc.Get("h-bench001"); err != nil || s != "bench-secret" {
			b.Fatal(s, err)
		}
	}
}

// BenchmarkSecretServiceHas is what `dvv hosts` pays per listed host.
func BenchmarkSecretServiceHas(b *testing.B) {
	testbed.StartKeyring(b)
	kc, _ := Open()
	kc.Set("h-bench001", "", "bench-secret")
	for b.Loop() {
		if !kc.Has("h-bench001") {
			b.Fatal("missing")
		}
	}
}

// BenchmarkSecretToolLookup is the same read with libsecret's secret-tool,
// what a script would otherwise run.
func BenchmarkSecretToolLookup(b *testing.B) {
	k := testbed.StartKeyring(b)
	kc, _ := Open()
	kc.Set("h-bench001", "", "bench-secret")
	for b.Loop() {
		out, err := k.SecretTool(b, "", "lookup", AttrApplication, Application, AttrHost, "h-bench001")
		if err != nil || out != "bench-secret" {
			b.Fatal(out, err)
		}
	}
}
