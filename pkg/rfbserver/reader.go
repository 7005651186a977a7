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
		switch t {
		case 0: // SetPixelFormat
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
		case 2: // SetEncodings
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
		case 3: // FramebufferUpdateRequest
			if _, err := io.ReadFull(s.r, buf[:9]); err != nil {
				return err
			}
			s.mu.Lock()
			s.want = true
			s.full = s.full || buf[0] == 0
			s.mu.Unlock()
			s.poke()
		case 4: // KeyEvent
			if _, err := io.ReadFull(s.r, buf[:7]); err != nil {
				return err
			}
			if !s.cfg.ViewOnly && s.cfg.Input != nil {
				s.cfg.Input.Key(binary.BigEndian.Uint32(buf[3:7]), buf[0] != 0)
			}
		case 5: // PointerEvent
			if _, err := io.ReadFull(s.r, buf[:5]); err != nil {
				return err
			}
			if !s.cfg.ViewOnly && s.cfg.Input != nil {
				x, y := int(binary.BigEndian.Uint16(buf[1:])), int(binary.BigEndian.Uint16(buf[3:]))
				w, h := s.cfg.Buffer.Size()
				s.cfg.Input.Pointer(min(x, max(w-1, 0)), min(y, max(h-1, 0)), buf[0])
			}
		case 6: // ClientCutText (Latin-1)
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
		case 251: // SetDesktopSize
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
		case 150: // EnableContinuousUpdates
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
		case 248: // ClientFence: the answer to one of ours
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
		default:
			return fmt.Errorf("rfbserver: viewer sent message type %d, which this server never offered", t)
		}
	}
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
