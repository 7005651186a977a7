package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Every dvv call loads the whole binary, so what it links is part of its
// start-up time (docs/benchmarks.md, "CLI start-up"). The protocol
// clients, the daemon, the MCP bridge, codecs and TLS belong to dvvd and
// dvvmcp; `dvv record export` runs dvvd for the RFB decoder. A name ending
// in $ is that package alone (pkg/sshx/sshconfig, a parser, is fine).
var notInDvv = []string{
	"net/http", "crypto/tls", "crypto/x509", "image", "html/template", "log/slog",
	"github.com/dvvhq/dvv/pkg/rfb", "github.com/dvvhq/dvv/pkg/rfbserver", "github.com/dvvhq/dvv/pkg/rdp",
	"github.com/dvvhq/dvv/pkg/sshx$", "github.com/dvvhq/dvv/pkg/fb", "github.com/dvvhq/dvv/pkg/recording",
	"github.com/dvvhq/dvv/pkg/daemon", "github.com/dvvhq/dvv/pkg/limb", "github.com/dvvhq/dvv/pkg/mcp",
	"github.com/dvvhq/dvv/pkg/keychain", "github.com/dvvhq/dvv/pkg/policy",
	"github.com/coder/websocket", "github.com/modelcontextprotocol", "github.com/chromedp", "golang.org/x/crypto",
}

func TestDvvLinksNoHeavyPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list named only %q", deps)
	}
	for _, dep := range deps {
		for _, heavy := range notInDvv {
			exact, only := strings.CutSuffix(heavy, "$")
			if dep == exact || !only && strings.HasPrefix(dep, heavy+"/") {
				t.Errorf("dvv links %s (under %s): see who imports it with go list -deps -f '{{.ImportPath}}: {{.Imports}}' ./cmd/dvv", dep, heavy)
			}
		}
	}
}
