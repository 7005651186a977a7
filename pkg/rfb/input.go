package rfb

import "encoding/binary"

// PointerEvent moves the pointer to (x, y) with the buttons in mask down
// (bit 0 left, 1 middle, 2 right, 3/4 wheel up/down, 5/6 wheel left/right).
func (c *Client) PointerEvent(mask uint8, x, y uint16) error {
	return c.send([]byte{cmsgPointerEvent, mask, byte(x >> 8), byte(x), byte(y >> 8), byte(y)})
}

// KeyEvent presses or releases an X11 keysym.
func (c *Client) KeyEvent(keysym uint32, down bool) error {
	d := byte(0)
	if down {
		d = 1
	}
	return c.send(binary.BigEndian.AppendUint32([]byte{cmsgKeyEvent, d, 0, 0}, keysym))
}

// SupportsQEMUKeys reports whether the server accepts QEMUKeyEvent.
func (c *Client) SupportsQEMUKeys() bool { return c.Capabilities().QEMUKeys }

// QEMUKeyEvent sends a key with its XT scan code as well as its keysym, so
// the server needs no keymap. scancode is XT set 1; 0xE0-prefixed codes
// are given as 0xE0xx (they travel as 0x80|xx, as the extension defines).
func (c *Client) QEMUKeyEvent(keysym uint32, scancode uint32, down bool) error {
	if scancode&0xff00 == 0xe000 {
		scancode = 0x80 | scancode&0x7f
	}
	d := uint16(0)
	if down {
		d = 1
	}
	msg := []byte{cmsgQEMUClient, qemuExtendedKeyEvent}
	msg = binary.BigEndian.AppendUint16(msg, d)
	msg = binary.BigEndian.AppendUint32(msg, keysym)
	msg = binary.BigEndian.AppendUint32(msg, scancode)
	return c.send(msg)
}

// RequestUpdate asks for an update of a region (incremental: only what
// changed). Run already keeps updates flowing; this forces a full repaint.
func (c *Client) RequestUpdate(incremental bool, x, y, w, h int) error {
	return c.send(updateRequest(incremental, x, y, w, h))
}
