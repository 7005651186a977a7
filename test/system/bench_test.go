package system_test

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// The cost of one `status` of a live VNC limb, side by side: the dvv
// binary (process start, dial, attach, request, human output), the same
// through --json, the raw socket through OpenBSD nc (what a shell script
// could do by hand), and pkg/client in process (dial per request, and one
// held connection).

func benchLimb(b *testing.B) (*daemon, string) {
	b.Helper()
	d := startDaemon(b, "")
	_, limb := openVNC(b, d)
	return d, limb
}

func BenchmarkStatusDvvBinary(b *testing.B) {
	d, limb := benchLimb(b)
	b.ResetTimer()
	for b.Loop() {
		if r := d.dvv("status", limb); r.code != 0 {
			b.Fatal(r)
		}
	}
}

func BenchmarkStatusDvvBinaryJSON(b *testing.B) {
	d, limb := benchLimb(b)
	b.ResetTimer()
	for b.Loop() {
		if r := d.dvv("status", limb, "--json"); r.code != 0 {
			b.Fatal(r)
		}
	}
}

func BenchmarkStatusNetcat(b *testing.B) {
	testbed.Need(b, "nc")
	d, limb := benchLimb(b)
	line := `{"op":"status","limbId":"` + limb + `"}` + "\n"
	b.ResetTimer()
	for b.Loop() {
		// The answer is read before stdin closes: dvvd treats end of input
		// as the client leaving, so `nc -N` can lose the answer.
		cmd := exec.Command("nc", "-U", d.socket)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.WriteString(in, line)
		answer, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.Contains(answer, `"result":"status"`) {
			b.Fatalf("nc: %v %s", err, answer)
		}
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}
}

func BenchmarkStatusClientDialEach(b *testing.B) {
	d, limb := benchLimb(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		c, err := client.Dial(ctx, d.socket, client.Options{Name: "shell", Session: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Status(ctx, wire.StatusArgs{Target: wire.Target{LimbID: limb}}); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

func BenchmarkStatusClientHeld(b *testing.B) {
	d, limb := benchLimb(b)
	ctx := context.Background()
	c, err := client.Dial(ctx, d.socket, client.Options{Name: "shell", Session: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Status(ctx, wire.StatusArgs{Target: wire.Target{LimbID: limb}}); err != nil {
			b.Fatal(err)
		}
	}
}
