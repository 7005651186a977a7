package rdp

import (
	"errors"
	"image"
	"unicode/utf16"
)

// Done closes when the session ends; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the session ended (ErrClosed after Close), nil while live.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close ends the session.
func (c *Client) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		close(c.closing)
		c.raw.Close()
	}
	<-c.done
	return nil
}

// Size is the session's desktop size.
func (c *Client) Size() (w, h int) {
	if sc := c.caps.Load(); sc != nil {
		return sc.Width, sc.Height
	}
	return 0, 0
}

// Activations counts Demand Active PDUs answered (1 after connecting; more
// after the server reactivated the session, e.g. to change its size).
func (c *Client) Activations() int { return int(c.activated.Load()) }

// LEDs reports the lock-key indicators from the server's last keyboard
// indicators PDU (SyncCapsLock etc.); known is false until one arrived.
func (c *Client) LEDs() (flags uint16, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leds, c.ledsKnown
}

// Bells counts the server's play-sound PDUs (the remote bell).
func (c *Client) Bells() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bells
}

// Cursor is the current pointer shape (nil before the server set one) and
// a counter that rises on every pointer update.
func (c *Client) Cursor() (*Cursor, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ptr.current, c.cursorSeq
}

// PointerPosition is where the server last moved the pointer itself, if it did.
func (c *Client) PointerPosition() (image.Point, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return image.Pt(c.ptr.x, c.ptr.y), c.ptr.moved
}

// UnicodeInput reports whether the server accepts Unicode keyboard events.
func (c *Client) UnicodeInput() bool {
	sc := c.caps.Load()
	return sc != nil && sc.InputFlags&inputFlagUnicode != 0
}

// HorizontalWheel reports whether the server accepts horizontal wheel events.
func (c *Client) HorizontalWheel() bool {
	sc := c.caps.Load()
	return sc != nil && sc.InputFlags&inputFlagMouseHWheel != 0
}

func (c *Client) sendInput(events ...inputEvent) error {
	if c.activated.Load() == 0 {
		return errors.New("rdp: session not active yet")
	}
	sc := c.caps.Load()
	var err error
	if sc != nil && sc.InputFlags&(inputFlagFastPath|inputFlagFastPath2) != 0 {
		for len(events) > 0 && err == nil {
			n := min(len(events), 255)
			err = c.write(fastPathInputPDU(events[:n]))
			events = events[n:]
		}
	} else {
		for len(events) > 0 && err == nil {
			n := min(len(events), 255)
			err = c.sendIO(shareDataPDU(c.shareID.Load(), c.user, pdu2Input, slowPathInputBody(events[:n])))
			events = events[n:]
		}
	}
	if err != nil {
		select {
		case <-c.done:
			if c.err != nil {
				return c.err
			}
		default:
		}
		return c.classify(err)
	}
	return nil
}

// MouseEvent sends one pointer event with raw MS-RDPBCGR pointer flags
// (PtrFlags*), for callers that build their own.
func (c *Client) MouseEvent(flags uint16, x, y int) error {
	return c.sendInput(mouseEvent(flags, x, y))
}

func mouseEvent(flags uint16, x, y int) inputEvent {
	return inputEvent{kind: fpInputMouse, ptrFlg: flags, x: clampU16(x), y: clampU16(y)}
}

func clampU16(v int) uint16 { return uint16(max(0, min(v, 0xFFFF))) }

// Buttons is a pointer button state.
type Buttons uint8

const (
	ButtonLeft Buttons = 1 << iota
	ButtonMiddle
	ButtonRight
)

// Pointer moves the pointer to (x, y) and presses or releases buttons so
// that exactly `down` are held afterwards; prev is what was held before.
func (c *Client) Pointer(x, y int, prev, down Buttons) error {
	ev := []inputEvent{mouseEvent(PtrFlagsMove, x, y)}
	for _, b := range []struct {
		bit  Buttons
		flag uint16
	}{{ButtonLeft, PtrFlagsButton1}, {ButtonMiddle, PtrFlagsButton3}, {ButtonRight, PtrFlagsButton2}} {
		switch {
		case down&b.bit != 0 && prev&b.bit == 0:
			ev = append(ev, mouseEvent(b.flag|PtrFlagsDown, x, y))
		case down&b.bit == 0 && prev&b.bit != 0:
			ev = append(ev, mouseEvent(b.flag, x, y))
		}
	}
	return c.sendInput(ev...)
}

// Wheel scrolls by notches at (x, y): dy > 0 scrolls up (away from the
// user), dx > 0 scrolls right.
func (c *Client) Wheel(x, y, dx, dy int) error {
	var ev []inputEvent
	for ; dy != 0; dy -= sign(dy) {
		ev = append(ev, mouseEvent(wheelFlags(PtrFlagsWheel, dy > 0), x, y))
	}
	for ; dx != 0; dx -= sign(dx) {
		ev = append(ev, mouseEvent(wheelFlags(PtrFlagsHWheel, dx > 0), x, y))
	}
	return c.sendInput(ev...)
}

func sign(v int) int {
	if v < 0 {
		return -1
	}
	return 1
}

// wheelFlags encodes one notch: the rotation is a 9-bit two's complement
// value in the low bits, its sign bit being PtrFlagsWheelNegative.
func wheelFlags(kind uint16, positive bool) uint16 {
	if positive {
		return kind | wheelStep
	}
	return kind | (0x200-wheelStep)&0x1FF
}

// Scancode presses or releases a key by its XT set-1 scancode; codes with
// an 0xE0 prefix (0xE0xx) are extended keys.
func (c *Client) Scancode(code uint16, down bool) error {
	return c.sendInput(scancodeEvent(code, down))
}

func scancodeEvent(code uint16, down bool) inputEvent {
	e := inputEvent{kind: fpInputScancode, code: code & 0xFF}
	if code>>8 == 0xE0 {
		e.flags |= kbdFlagsExtended
	}
	if !down {
		e.flags |= kbdFlagsRelease
	}
	return e
}

// TypeUnicode types r as Unicode keyboard events (press and release of each
// UTF-16 unit), independent of the remote keyboard layout.
func (c *Client) TypeUnicode(r rune) error {
	var ev []inputEvent
	for _, u := range utf16.Encode([]rune{r}) {
		ev = append(ev, inputEvent{kind: fpInputUnicode, code: u})
	}
	for _, u := range utf16.Encode([]rune{r}) {
		ev = append(ev, inputEvent{kind: fpInputUnicode, code: u, flags: kbdFlagsRelease})
	}
	return c.sendInput(ev...)
}

// Synchronize sets the server's lock keys (SyncCapsLock etc.).
func (c *Client) Synchronize(locks uint8) error {
	return c.sendInput(inputEvent{kind: fpInputSync, flags: locks & 0xF})
}
