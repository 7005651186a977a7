package daemon

import (
	"context"
	"image"
	"sync"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// fakeDesktop stands in for a protocol session in tests of the daemon's own
// logic (leases, fences, groups, dispatch). Protocol behaviour is tested
// against real servers elsewhere.
type fakeDesktop struct {
	buf  *fb.Buffer
	mu   sync.Mutex
	evts []string
	done chan struct{}
	once sync.Once
}

var fakes struct {
	sync.Mutex
	last map[string]*fakeDesktop
}

func fakeDialers() map[string]limb.DesktopDialer {
	return map[string]limb.DesktopDialer{wire.ProtoVNC: fakeDial}
}

func fakeDial(ctx context.Context, t limb.Target, buf *fb.Buffer) (limb.Desktop, error) {
	switch t.Address {
	case "unreachable":
		return nil, wire.Errorf(wire.Unreachable, "connection refused")
	case "badpass":
		return nil, wire.Errorf(wire.AuthFailed, "wrong password")
	}
	w, h := 640, 480
	if t.Port > 10000 {
		w, h = t.Port-10000, 100
	}
	if buf.Resizes() == 0 {
		buf.Resize(w, h)
	} else {
		bw, bh := buf.Size()
		buf.Resize(bw, bh)
	}
	paint(buf, image.Rect(0, 0, w, h))
	f := &fakeDesktop{buf: buf, done: make(chan struct{})}
	fakes.Lock()
	if fakes.last == nil {
		fakes.last = map[string]*fakeDesktop{}
	}
	fakes.last[t.Address] = f
	fakes.Unlock()
	return f, nil
}

func lastFake(addr string) *fakeDesktop {
	fakes.Lock()
	defer fakes.Unlock()
	return fakes.last[addr]
}

func paint(buf *fb.Buffer, r image.Rectangle) {
	pix, stride, _, _ := buf.BeginWrite()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := y*stride + x*4
			pix[i], pix[i+1], pix[i+2] = byte(x), byte(y), 0x80
		}
	}
	buf.EndWrite(r)
}

func (f *fakeDesktop) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.done:
		return context.Canceled
	default:
	}
	f.evts = append(f.evts, s)
	return nil
}

func (f *fakeDesktop) events() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.evts...)
}

func (f *fakeDesktop) drop() { f.once.Do(func() { close(f.done) }) }

func (f *fakeDesktop) Done() <-chan struct{} { return f.done }
func (f *fakeDesktop) Err() error            { return wire.Errorf(wire.NotConnected, "dropped") }
func (f *fakeDesktop) Close() error          { f.drop(); return nil }
func (f *fakeDesktop) Signals() wire.Signals {
	return wire.Signals{wire.SigLEDState: {State: wire.SignalAbsent, Reason: "fake"}}
}
func (f *fakeDesktop) Pointer(x, y int, b limb.Buttons) error {
	return f.record("p" + itoa(x) + "," + itoa(y) + "," + itoa(int(b)))
}
func (f *fakeDesktop) Key(sym uint32, down bool) error {
	d := "u"
	if down {
		d = "d"
	}
	return f.record("k" + itoa(int(sym)) + d)
}
func (f *fakeDesktop) TypeRune(r rune) error { return f.record("t" + string(r)) }
func (f *fakeDesktop) SetClipboard(text string) (limb.ClipboardInfo, error) {
	return limb.ClipboardInfo{Via: "fake"}, f.record("c" + text)
}
func (f *fakeDesktop) Clipboard() (string, limb.ClipboardInfo, bool) {
	return "", limb.ClipboardInfo{}, false
}
func (f *fakeDesktop) DesktopName() string { return "fake" }

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}
