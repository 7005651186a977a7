//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestScriptStepOverhead: the same acts as one `dvv script` and as
// separate `dvv` commands, on one Xvnc limb in one session. A move of the
// pointer with --verify 0s is the cheapest act, so what is left is the
// cost of a step: for a command, a process, a dial and an attach; for a
// script step, one request over the script's attachment. Nothing is
// asserted; it prints a table for docs/benchmarks.md.
func TestScriptStepOverhead(t *testing.T) {
	x := testbed.StartXvnc(t, testbed.XvncOptions{Width: 1024, Height: 768})
	d := startDvvd(t)
	dvv := filepath.Join(binDir, "dvv")
	if _, err := os.Stat(dvv); err != nil {
		if out, err := exec.Command("go", "build", "-o", dvv, "../../cmd/dvv").CombinedOutput(); err != nil {
			t.Fatalf("build dvv: %v\n%s", err, out)
		}
	}
	env := append(os.Environ(), "DVV_SOCKET="+d.socket, "DVV_SESSION=bench-script")
	run := func(args ...string) string {
		cmd := exec.Command(dvv, args...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("dvv %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	limb := run("open", x.Addr, "--protocol", "vnc", "--perceive")
	run("wait", limb, "--until", "connected", "--timeout-ms", "20000")
	run("control", "acquire", limb)
	run("screen", limb, "--out", filepath.Join(t.TempDir(), "s.png"))

	const steps = 50
	var src strings.Builder
	for i := range steps {
		fmt.Fprintf(&src, "click %d 100 --action move\n", 10+i)
	}
	file := filepath.Join(t.TempDir(), "moves.dvv")
	os.WriteFile(file, []byte(src.String()), 0o600)

	start := time.Now()
	run("--verify", "0s", "script", "--limb", limb, file)
	script := time.Since(start)

	start = time.Now()
	for i := range steps {
		run("--verify", "0s", "click", limb, fmt.Sprint(10+i), "100", "--action", "move")
	}
	separate := time.Since(start)

	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }
	fmt.Printf("\n### A script's steps against separate dvv commands (%d pointer moves, --verify 0s, one Xvnc limb)\n\n", steps)
	fmt.Println("| way | total ms | ms a step |")
	fmt.Println("| --- | ---: | ---: |")
	fmt.Printf("| `dvv script` (one process, one attachment, its lease and first read included) | %s | %s |\n", ms(script), ms(script/steps))
	fmt.Printf("| `dvv click` %d times | %s | %s |\n", steps, ms(separate), ms(separate/steps))
}
