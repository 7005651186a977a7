package vnc

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/keys"
	"github.com/dvvhq/dvv/pkg/rfb"
)

type keyEvent struct {
	down    bool
	keysym  uint32
	keycode uint32
}

// recordingServer offers QEMU extended key events and records the ones the
// client sends. QEMU's own server gives no way to read back what a guest
// received without a guest OS, so the wire is checked here instead.
func recordingServer(t *testing.T) (addr string, events func() []keyEvent) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []keyEvent
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		read := func(n int) []byte {
			b := make([]byte, n)
			if _, err := io.ReadFull(c, b); err != nil {
				panic(err)
			}
			return b
		}
		defer func() { recover() }()
		c.Write([]byte("RFB 003.008\n"))
		read(12)
		c.Write([]byte{1, 1})
		read(1)
		c.Write([]byte{0, 0, 0, 0})
		read(1)
		init := []byte{0, 64, 0, 48, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0, 0, 0, 0, 4, 'q', 'e', 'm', 'u'}
		c.Write(init)
		for {
			switch t := read(1)[0]; t {
			case 0:
				read(19)
			case 2:
				n := binary.BigEndian.Uint16(read(3)[1:])
				read(4 * int(n))
				rect := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xfe, 0xfe} // -258
				c.Write(rect)
			case 3:
				read(9)
			case 4:
				read(7)
			case 5:
				read(5)
			case 6:
				n := binary.BigEndian.Uint32(read(7)[3:])
				read(int(n))
			case 255:
				b := read(11)
				mu.Lock()
				got = append(got, keyEvent{binary.BigEndian.Uint16(b[1:]) == 1, binary.BigEndian.Uint32(b[3:]), binary.BigEndian.Uint32(b[7:])})
				mu.Unlock()
			default:
				return
			}
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), func() []keyEvent {
		mu.Lock()
		defer mu.Unlock()
		return append([]keyEvent(nil), got...)
	}
}

// usLayout turns XT scan codes back into characters as a US keyboard
// would, to check that the scan codes alone type the text.
var usLayout = map[uint32][2]rune{
	0x02: {'1', '!'}, 0x03: {'2', '@'}, 0x04: {'3', '#'}, 0x05: {'4', '$'}, 0x06: {'5', '%'}, 0x07: {'6', '^'},
	0x08: {'7', '&'}, 0x09: {'8', '*'}, 0x0a: {'9', '('}, 0x0b: {'0', ')'}, 0x0c: {'-', '_'}, 0x0d: {'=', '+'},
	0x10: {'q', 'Q'}, 0x11: {'w', 'W'}, 0x12: {'e', 'E'}, 0x13: {'r', 'R'}, 0x14: {'t', 'T'}, 0x15: {'y', 'Y'},
	0x16: {'u', 'U'}, 0x17: {'i', 'I'}, 0x18: {'o', 'O'}, 0x19: {'p', 'P'}, 0x1e: {'a', 'A'}, 0x1f: {'s', 'S'},
	0x20: {'d', 'D'}, 0x21: {'f', 'F'}, 0x22: {'g', 'G'}, 0x23: {'h', 'H'}, 0x24: {'j', 'J'}, 0x25: {'k', 'K'},
	0x26: {'l', 'L'}, 0x2c: {'z', 'Z'}, 0x2d: {'x', 'X'}, 0x2e: {'c', 'C'}, 0x2f: {'v', 'V'}, 0x30: {'b', 'B'},
	0x31: {'n', 'N'}, 0x32: {'m', 'M'}, 0x33: {',', '<'}, 0x34: {'.', '>'}, 0x39: {' ', ' '},
}

func TestQEMUScancodesTypeExactly(t *testing.T) {
	t.Parallel()
	addr, events := recordingServer(t)
	host, port, _ := net.SplitHostPort(addr)
	tg := target(0, "")
	tg.Address = host
	tg.Port = atoi(port)
	d, err := Dial(context.Background(), tg, fb.New())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	testbed.Eventually(t, 5*time.Second, "QEMU key support", func() bool { return d.(*desktop).c.SupportsQEMUKeys() })
	const text = "Hello_World-42 (a>b)"
	for _, r := range text {
		if err := d.TypeRune(r); err != nil {
			t.Fatal(err)
		}
	}
	var typed []rune
	testbed.Eventually(t, 5*time.Second, "all key events", func() bool {
		typed = typed[:0]
		shift := false
		for _, e := range events() {
			if e.keycode == 0x2a {
				shift = e.down
				continue
			}
			if !e.down {
				continue
			}
			k, ok := usLayout[e.keycode]
			if !ok {
				typed = append(typed, '?')
				continue
			}
			if shift {
				typed = append(typed, k[1])
			} else {
				typed = append(typed, k[0])
			}
		}
		return string(typed) == text
	})
	if sc, _, _ := keys.Scancode(keys.XK_Shift_L); sc != 0x2a {
		t.Fatalf("Shift_L scan code %#x", sc)
	}
	_ = rfb.EncQEMUExtendedKey
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
