package rfb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"strings"
	"time"
	"unicode/utf8"
)

// Extended clipboard flags: formats in the low 16 bits, actions above.
const (
	clipText    = 1 << 0
	clipCaps    = 1 << 24
	clipRequest = 1 << 25
	clipPeek    = 1 << 26
	clipNotify  = 1 << 27
	clipProvide = 1 << 28
)

func (c *Client) serverCutText() error {
	r := c.r
	r.bytes(3)
	n := int32(r.u32())
	if r.err != nil {
		return r.err
	}
	if n < 0 {
		size := -int64(n)
		if size < 4 || size > MaxCutText+4096 {
			return protoErr("extended clipboard message of %d bytes", size)
		}
		msg := append([]byte(nil), r.bytes(int(size))...)
		if r.err != nil {
			return r.err
		}
		return c.extClipboard(msg)
	}
	if n > MaxCutText {
		return protoErr("clipboard text of %d bytes is over the %d-byte limit", n, MaxCutText)
	}
	text := latin1ToString(r.bytes(int(n)))
	if r.err != nil {
		return r.err
	}
	if c.cfg.OnCutText != nil {
		c.cfg.OnCutText(text, false)
	}
	return nil
}

func latin1ToString(b []byte) string {
	rs := make([]rune, len(b))
	for i, v := range b {
		rs[i] = rune(v)
	}
	return string(rs)
}

// parseExtClipboard splits an extended clipboard message into flags and,
// for a provide, the UTF-8 text (CRLF turned into LF, the NUL dropped).
// Caps messages return the server's text size limit.
func parseExtClipboard(msg []byte) (flags uint32, text string, hasText bool, limit int, err error) {
	flags = binary.BigEndian.Uint32(msg)
	body := msg[4:]
	switch {
	case flags&clipCaps != 0:
		for bit := 0; bit < 16; bit++ {
			if flags&(1<<bit) == 0 {
				continue
			}
			if len(body) < 4 {
				return 0, "", false, 0, protoErr("extended clipboard caps cut short")
			}
			if bit == 0 {
				limit = int(min(binary.BigEndian.Uint32(body), MaxCutText))
			}
			body = body[4:]
		}
	case flags&clipProvide != 0:
		var z zstream
		out, zerr := z.inflate(body, MaxCutText+64<<10)
		if zerr != nil {
			return 0, "", false, 0, zerr
		}
		for bit := 0; bit < 16; bit++ {
			if flags&(1<<bit) == 0 {
				continue
			}
			if len(out) < 4 {
				return 0, "", false, 0, protoErr("extended clipboard data cut short")
			}
			n := binary.BigEndian.Uint32(out)
			out = out[4:]
			if uint64(n) > uint64(len(out)) {
				return 0, "", false, 0, protoErr("extended clipboard item of %d bytes in %d", n, len(out))
			}
			if bit == 0 {
				t := out[:n]
				if i := bytes.IndexByte(t, 0); i >= 0 {
					t = t[:i]
				}
				text, hasText = strings.ReplaceAll(string(t), "\r\n", "\n"), true
				if !utf8.ValidString(text) {
					text = strings.ToValidUTF8(text, "\uFFFD")
				}
			}
			out = out[n:]
		}
	}
	return flags, text, hasText, limit, nil
}

func (c *Client) extClipboard(msg []byte) error {
	flags, text, hasText, limit, err := parseExtClipboard(msg)
	if err != nil {
		return err
	}
	switch {
	case flags&clipCaps != 0:
		c.mu.Lock()
		c.serverClip = flags
		if flags&clipText != 0 {
			c.caps.ExtendedClipboard, c.caps.ClipboardMax = true, limit
		}
		c.mu.Unlock()
		c.settleClip()
		// Our own caps: text only, every action, our size limit.
		reply := binary.BigEndian.AppendUint32(nil, clipCaps|clipRequest|clipPeek|clipNotify|clipProvide|clipText)
		reply = binary.BigEndian.AppendUint32(reply, MaxCutText)
		return c.sendExtClipboard(reply)
	case flags&clipRequest != 0:
		if flags&clipText == 0 {
			return nil
		}
		c.mu.Lock()
		t := c.clip
		c.mu.Unlock()
		return c.sendExtClipboard(provideMessage(t))
	case flags&clipPeek != 0:
		c.mu.Lock()
		have := c.clip != ""
		c.mu.Unlock()
		f := uint32(clipNotify)
		if have {
			f |= clipText
		}
		return c.sendExtClipboard(binary.BigEndian.AppendUint32(nil, f))
	case flags&clipNotify != 0:
		if flags&clipText != 0 {
			return c.sendExtClipboard(binary.BigEndian.AppendUint32(nil, clipRequest|clipText))
		}
		return nil
	case flags&clipProvide != 0:
		if hasText && c.cfg.OnCutText != nil {
			c.cfg.OnCutText(text, true)
		}
	}
	return nil
}

// provideMessage is a provide of text. The zlib stream is sync-flushed,
// not finished, as TigerVNC's viewer sends it: libvncserver 0.9.14 (under
// x11vnc on Debian 12) drops a client whose stream ends with the data.
func provideMessage(text string) []byte {
	t := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n") + "\x00"
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	binary.Write(zw, binary.BigEndian, uint32(len(t)))
	zw.Write([]byte(t))
	zw.Flush()
	return append(binary.BigEndian.AppendUint32(nil, clipProvide|clipText), z.Bytes()...)
}

// settleClip records that the server's extended clipboard support is known.
func (c *Client) settleClip() { c.clipKnownOnce.Do(func() { close(c.clipKnown) }) }

// ClipboardSettleWait bounds how long CutText waits for the server's
// extended clipboard caps on a fresh connection.
const ClipboardSettleWait = 3 * time.Second

func (c *Client) sendExtClipboard(body []byte) error {
	msg := []byte{cmsgClientCutText, 0, 0, 0}
	msg = binary.BigEndian.AppendUint32(msg, uint32(-int32(len(body))))
	return c.send(append(msg, body...))
}

// CutText puts text on the server's clipboard. With the extended clipboard
// the text travels as UTF-8 (viaUTF8); otherwise as Latin-1, and every
// character Latin-1 cannot carry is left out and listed in dropped (never
// silently replaced).
func (c *Client) CutText(text string) (dropped []string, viaUTF8 bool, err error) {
	if len(text) > MaxCutText {
		return nil, false, &ProtocolError{Msg: "clipboard text over the 10 MiB limit"}
	}
	// Right after connect the caps may still be on their way: choosing
	// Latin-1 then would lose text the server could take as UTF-8.
	t := time.NewTimer(ClipboardSettleWait)
	select {
	case <-c.clipKnown:
	case <-t.C:
	}
	t.Stop()
	c.mu.Lock()
	ext := c.caps.ExtendedClipboard
	server, max := c.serverClip, c.caps.ClipboardMax
	if ext {
		c.clip = text
	}
	c.mu.Unlock()
	provide := provideMessage(text)
	// The caps' limit is on the text as sent (CR LF line ends and a NUL);
	// libvncserver drops a client that goes over it.
	fits := max <= 0 || len(text)+strings.Count(text, "\n")+1 <= max
	if ext && server&clipNotify != 0 {
		// TigerVNC: announce, so it asks for the text on paste, and
		// provide at once when the text is within its unsolicited limit
		// (an unrequested provide is otherwise ignored).
		if err := c.sendExtClipboard(binary.BigEndian.AppendUint32(nil, clipNotify|clipText)); err != nil {
			return nil, true, err
		}
		if !fits {
			return nil, true, nil
		}
		return nil, true, c.sendExtClipboard(provide)
	}
	// No notify: libvncserver, whose 0.9.14 advertises the extended
	// clipboard even under applications that take no UTF-8 (x11vnc 0.9.16
	// drops such text). The Latin-1 cut text goes first, so it always
	// arrives; a UTF-8 provide follows for servers that do take it. The
	// answer reports the Latin-1 route, the one known to arrive.
	dropped, err = c.latin1CutText(text)
	if err != nil || !ext || !fits {
		return dropped, false, err
	}
	return dropped, false, c.sendExtClipboard(provide)
}

// latin1CutText sends text as a plain ClientCutText, leaving out (and
// listing) the characters Latin-1 cannot carry.
func (c *Client) latin1CutText(text string) (dropped []string, err error) {
	latin := make([]byte, 0, len(text))
	seen := map[rune]bool{}
	for _, r := range text {
		if r <= 0xff {
			latin = append(latin, byte(r))
			continue
		}
		if !seen[r] {
			seen[r] = true
			dropped = append(dropped, string(r))
		}
	}
	msg := []byte{cmsgClientCutText, 0, 0, 0}
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(latin)))
	return dropped, c.send(append(msg, latin...))
}
