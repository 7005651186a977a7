package rfbserver

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// readLoop reads the viewer's messages until it leaves or breaks the
// protocol. A message this server cannot parse ends the session: RFB
// messages carry no length, so there is no skipping one.
func (s *session) readLoop() error {
	buf := make([]byte, 20)
	for {
		t, err := s.r.ReadByte()
		if err != nil {
			return err
		}
		if err := s.readMessage(t, buf); err != nil {
			return err
		}
	}
}

// readMessage reads the rest of one message of type t (buf holds its
// fixed part) and acts on it.
func (s *session) readMessage(t byte, buf []byte) error {
	switch t {
	case 0:
		return s.readSetPixelFormat(buf)
	case 2:
		return s.readSetEncodings(buf)
	case 3:
		return s.readUpdateRequest(buf)
	case 4:
		return s.readKeyEvent(buf)
	case 5:
		return s.readPointerEvent(buf)
	case 6:
		return s.readCutText(buf)
	case 251:
		return s.readSetDesktopSize(buf)
	case 150:
		return s.readEnableContinuous(buf)
	case 248:
		return s.readClientFence(buf)
	}
	return fmt.Errorf("rfbserver: viewer sent message type %d, which this server never offered", t)
}

// readSetPixelFormat: message 0.
func (s *session) readSetPixelFormat(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:19]); err != nil {
		return err
	}
	pf, err := parsePixelFormat(buf[3:19])
	if err != nil {
		return fmt.Errorf("rfbserver: %w", err)
	}
	s.mu.Lock()
	s.pf, s.pfChanged = pf, true
	s.mu.Unlock()
	return nil
}

// readSetEncodings: message 2. A viewer that lists continuous updates and
// fences is told once that this server has them.
func (s *session) readSetEncodings(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:3]); err != nil {
		return err
	}
	n := int(binary.BigEndian.Uint16(buf[1:3]))
	raw := make([]byte, 4*n)
	if _, err := io.ReadFull(s.r, raw); err != nil {
		return err
	}
	encs := make([]int32, n)
	for i := range encs {
		encs[i] = int32(binary.BigEndian.Uint32(raw[4*i:]))
	}
	s.mu.Lock()
	s.encodings, s.cursorSent, s.extSent = encs, false, false
	if s.wants(encs, encContinuous) && s.wants(encs, encFence) && !s.cuAnnounced {
		s.cuAnnounced, s.cuOffered = true, true
	}
	s.mu.Unlock()
	s.poke()
	return nil
}

// readUpdateRequest: message 3, FramebufferUpdateRequest.
func (s *session) readUpdateRequest(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:9]); err != nil {
		return err
	}
	s.mu.Lock()
	s.want = true
	s.full = s.full || buf[0] == 0
	s.mu.Unlock()
	s.poke()
	return nil
}

// readKeyEvent: message 4, passed on unless the share is view-only.
func (s *session) readKeyEvent(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:7]); err != nil {
		return err
	}
	if !s.cfg.ViewOnly && s.cfg.Input != nil {
		s.cfg.Input.Key(binary.BigEndian.Uint32(buf[3:7]), buf[0] != 0)
	}
	return nil
}

// readPointerEvent: message 5, clamped to the desktop, passed on unless
// the share is view-only.
func (s *session) readPointerEvent(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:5]); err != nil {
		return err
	}
	if !s.cfg.ViewOnly && s.cfg.Input != nil {
		x, y := int(binary.BigEndian.Uint16(buf[1:])), int(binary.BigEndian.Uint16(buf[3:]))
		w, h := s.cfg.Buffer.Size()
		s.cfg.Input.Pointer(min(x, max(w-1, 0)), min(y, max(h-1, 0)), buf[0])
	}
	return nil
}

// readCutText: message 6, ClientCutText (Latin-1), bounded by maxCutText
// before anything is allocated.
func (s *session) readCutText(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:7]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(buf[3:7])
	if n > maxCutText {
		return fmt.Errorf("rfbserver: clipboard text of %d bytes is over the %d-byte limit", n, maxCutText)
	}
	text := make([]byte, n)
	if _, err := io.ReadFull(s.r, text); err != nil {
		return err
	}
	if !s.cfg.ViewOnly && s.cfg.Input != nil {
		s.cfg.Input.CutText(latin1(text))
	}
	return nil
}

// readSetDesktopSize: message 251. The desktop is not the viewer's to
// resize: each request is answered with a refusal in the next update.
func (s *session) readSetDesktopSize(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:7]); err != nil {
		return err
	}
	if _, err := io.ReadFull(s.r, make([]byte, 16*int(buf[5]))); err != nil {
		return err
	}
	s.mu.Lock()
	s.resizeAsked++
	s.want = true
	s.mu.Unlock()
	s.poke()
	return nil
}

// readEnableContinuous: message 150, EnableContinuousUpdates, only after
// this server offered them.
func (s *session) readEnableContinuous(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:9]); err != nil {
		return err
	}
	s.mu.Lock()
	if !s.cuAnnounced {
		s.mu.Unlock()
		return fmt.Errorf("rfbserver: viewer enabled continuous updates before asking for them")
	}
	on := buf[0] != 0
	s.cuEnded = s.cuEnded || (s.cont && !on)
	s.cont = on
	s.mu.Unlock()
	s.poke()
	return nil
}

// readClientFence: message 248, the answer to one of ours: one pushed
// update fewer in flight.
func (s *session) readClientFence(buf []byte) error {
	if _, err := io.ReadFull(s.r, buf[:8]); err != nil {
		return err
	}
	n := int(buf[7])
	if n > 64 {
		return fmt.Errorf("rfbserver: fence payload of %d bytes is over RFB's 64", n)
	}
	if _, err := io.ReadFull(s.r, make([]byte, n)); err != nil {
		return err
	}
	s.mu.Lock()
	s.inFlight = max(s.inFlight-1, 0)
	s.mu.Unlock()
	s.poke()
	return nil
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// wants reports whether the viewer listed encoding e.
func (s *session) wants(encs []int32, e int32) bool { return slices.Contains(encs, e) }
