package ssh

import (
	"context"
	"fmt"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/xwin"
)

// What a windows list costs over the sidecar, split: a fresh X
// connection (an SSH channel and the X setup), and reading ten windows on
// a held one (every request sent before the first reply is read).
func benchStructure(b *testing.B) (*xwin.Conn, func() *xwin.Conn) {
	s := testbed.StartDesktopSession(b, testbed.DesktopSessionOptions{Cookie: true})
	for i := range 10 {
		title := fmt.Sprintf("bench-%d", i)
		s.Program(b, title, "zenity", "--info", "--title", title, "--text", title)
	}
	st, err := testOpts(s.SSHD).DialStructure(context.Background(), sessionTarget(s))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	open := func() *xwin.Conn {
		nc, err := st.DialX11(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		x, err := xwin.Open(nc, st.Info().XCookie)
		if err != nil {
			b.Fatal(err)
		}
		return x
	}
	x := open()
	b.Cleanup(x.Close)
	return x, open
}

func BenchmarkSidecarXConnect(b *testing.B) {
	_, open := benchStructure(b)
	for b.Loop() {
		open().Close()
	}
}

func BenchmarkSidecarWindowsHeld(b *testing.B) {
	x, _ := benchStructure(b)
	for b.Loop() {
		ws, err := x.Windows()
		if err != nil || len(ws) != 10 {
			b.Fatal(err, len(ws))
		}
	}
}
