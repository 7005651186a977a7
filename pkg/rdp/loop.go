package rdp

import (
	"errors"
	"io"
	"net"
	"time"
)

// loop reads PDUs until the connection ends. It owns the framebuffer
// writes, the reassembly buffer and the activation state.
func (c *Client) loop() {
	err := c.readLoop()
	if c.closed.Load() {
		err = ErrClosed
	} else {
		err = c.finalError(err)
	}
	c.finish(err)
}

func (c *Client) finish(err error) {
	c.doneOnce.Do(func() {
		c.err = err
		c.raw.Close()
		close(c.done)
	})
}

// finalError explains why the read loop stopped.
func (c *Client) finalError(err error) error {
	c.mu.Lock()
	info := c.errInfo
	c.mu.Unlock()
	var de *DisconnectError
	if info != 0 && (errors.As(err, &de) || !isTyped(err)) {
		// The server said why before it hung up: that is the reason.
		return &DisconnectError{Info: info, Reason: errorInfoText(info)}
	}
	if isTyped(err) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err) {
		if c.activated.Load() == 0 {
			return &UnreachableError{Addr: c.cfg.Addr, Err: errors.New("the server closed the connection before the session was active")}
		}
		return &UnreachableError{Addr: c.cfg.Addr, Err: errors.New("the connection was lost (server gone or network down)")}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return &UnreachableError{Addr: c.cfg.Addr, Err: err}
	}
	return c.classify(err)
}

func (c *Client) readLoop() error {
	for {
		kind, hdr, body, err := readPDU(c.br, c.readBuf)
		if err != nil {
			return err
		}
		if cap(body) <= 64<<10 {
			c.readBuf = body[:0]
		}
		if c.cfg.tap != nil {
			writeFramed(c.cfg.tap, kind, hdr, body)
		}
		if kind == pduFastPath {
			if err := c.ra.parseFastPath(hdr, body, c.fastPathUpdate); err != nil {
				return err
			}
			continue
		}
		p, err := x224Payload(body)
		if err != nil {
			return err
		}
		ch, data, err := parseSendDataIndication(p)
		if err != nil {
			return err
		}
		if err := c.channelData(ch, data); err != nil {
			return err
		}
	}
}

func (c *Client) channelData(ch uint16, data []byte) error {
	if ch == c.clip.channel && ch != 0 {
		return c.clipboardData(data)
	}
	if ch != c.io {
		return nil // message channel (auto-detect, multitransport) and virtual channels: unused
	}
	if !c.licDone && c.activated.Load() == 0 && isLicensePDU(data) {
		// Before activation the server may send licensing PDUs, which carry
		// a basic security header; some servers skip the final alert and
		// go straight to the Demand Active.
		reply, done, err := c.lic.handle(data[4:])
		if err == nil && reply != nil {
			err = c.sendIO(reply)
		}
		c.licDone = done
		return err
	}
	for len(data) > 0 {
		sc, rest, err := parseShareControl(data)
		if err != nil {
			return err
		}
		data = rest
		switch sc.Type {
		case pduDemandActive:
			if err := c.activate(sc.Body); err != nil {
				return err
			}
		case pduDeactivateAll:
			c.logf("rdp: deactivate all")
			// The server will send a new Demand Active; until then nothing
			// is drawn. Input sent meanwhile is dropped by the server.
		case pduData:
			if err := c.dataPDU(sc.Body); err != nil {
				return err
			}
		case pduServerRedir:
			return &UnsupportedError{Msg: "the server redirects to another host (load balancing), which this client does not follow; connect to the target host directly"}
		}
	}
	return nil
}

// activate answers a Demand Active: adopt the server's desktop size, confirm
// our capabilities and run the finalization sequence.
func (c *Client) activate(b []byte) error {
	da, err := parseDemandActive(b)
	if err != nil {
		return err
	}
	c.logf("rdp: demand active: share 0x%X, %dx%d at %d bpp, input flags 0x%X", da.ShareID, da.Caps.Width, da.Caps.Height, da.Caps.BPP, da.Caps.InputFlags)
	c.shareID.Store(da.ShareID)
	c.caps.Store(da.Caps)
	w, h := da.Caps.Width, da.Caps.Height
	if fw, fh := c.cfg.Framebuffer.Size(); fw != w || fh != h {
		// Only the read loop activates, so the guard needs no lock.
		now := time.Now
		if c.cfg.clock != nil {
			now = c.cfg.clock
		}
		if err := c.storm.Resize(now()); err != nil {
			return protoErr("demand active", "desktop size %dx%d: %v", w, h, err)
		}
		if err := c.cfg.Framebuffer.Resize(w, h); err != nil {
			return protoErr("demand active", "desktop size %dx%d: %v", w, h, err)
		}
	}
	bpp := da.Caps.BPP
	if bpp == 0 || bpp > c.cfg.ColorDepth {
		bpp = c.cfg.ColorDepth
	}
	if err := c.sendIO(confirmActive(da.ShareID, c.user, w, h, bpp)); err != nil {
		return err
	}
	for _, pdu := range [][]byte{
		shareDataPDU(da.ShareID, c.user, pdu2Synchronize, synchronizeBody()),
		shareDataPDU(da.ShareID, c.user, pdu2Control, controlBody(4)), // cooperate
		shareDataPDU(da.ShareID, c.user, pdu2Control, controlBody(1)), // request control
		shareDataPDU(da.ShareID, c.user, pdu2FontList, fontListBody()),
	} {
		if err := c.sendIO(pdu); err != nil {
			return err
		}
	}
	c.activated.Add(1)
	return nil
}

func (c *Client) dataPDU(b []byte) error {
	sd, err := parseShareData(b)
	if err != nil {
		return err
	}
	if sd.Type2 != pdu2Update && sd.Type2 != pdu2Pointer {
		c.logf("rdp: data PDU type 0x%02X (%d bytes)", sd.Type2, len(sd.Body))
	}
	switch sd.Type2 {
	case pdu2Update:
		return c.slowUpdate(sd.Body)
	case pdu2Pointer:
		c.mu.Lock()
		err := c.ptr.slowPath(sd.Body)
		c.cursorSeq++
		c.mu.Unlock()
		return err
	case pdu2FontMap:
		c.markReady()
	case pdu2PlaySound:
		c.mu.Lock()
		c.bells++
		c.mu.Unlock()
	case pdu2SetErrorInfo:
		r := newReader("set error info", sd.Body)
		v := r.u32()
		if r.err != nil {
			return r.err
		}
		c.mu.Lock()
		c.errInfo = v
		c.mu.Unlock()
	case pdu2KbdIndicators:
		r := newReader("keyboard indicators", sd.Body)
		r.u16()
		v := r.u16()
		if r.err != nil {
			return r.err
		}
		c.mu.Lock()
		c.leds, c.ledsKnown = v, true
		c.mu.Unlock()
	}
	return nil
}

// drawing notes that the server paints: a session it draws in is active
// even if its font map has not come (yet).
func (c *Client) drawing() {
	if c.activated.Load() > 0 {
		c.readyOnce.Do(func() { close(c.ready) })
	}
}

// markReady ends Dial's wait and asks for a full frame.
func (c *Client) markReady() {
	c.readyOnce.Do(func() { close(c.ready) })
	w, h := c.cfg.Framebuffer.Size()
	if w > 0 && h > 0 {
		// Best effort: the server repaints everything, so coverage reaches
		// 100% without waiting for the screen to change.
		c.sendIO(shareDataPDU(c.shareID.Load(), c.user, pdu2RefreshRect, refreshRectBody(w, h)))
	}
}

func (c *Client) slowUpdate(b []byte) error {
	r := newReader("update PDU", b)
	t := r.u16()
	if r.err != nil {
		return r.err
	}
	switch t {
	case updateBitmap:
		c.drawing()
		return c.paintBudgeted(b)
	case updatePalette:
		return parsePalette(b, &c.paint.pal)
	}
	return nil // orders (never asked for) and synchronize
}

func (c *Client) fastPathUpdate(u fastPathUpdate) error {
	switch u.Code {
	case fpUpdateBitmap:
		c.drawing()
		return c.paintBudgeted(u.Data)
	case fpUpdatePalette:
		return parsePalette(u.Data, &c.paint.pal)
	case fpUpdateOrders, fpUpdateSync, fpUpdateSurfCmds:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cursorSeq++
	switch u.Code {
	case fpUpdatePtrNull:
		c.ptr.system(sysPtrNull)
	case fpUpdatePtrDefault:
		c.ptr.system(sysPtrDefault)
	case fpUpdatePtrPosition:
		return c.ptr.position(u.Data)
	case fpUpdateColorPointer:
		return c.ptr.colorPointer(u.Data, 24, false)
	case fpUpdateCachedPtr:
		return c.ptr.cached(u.Data)
	case fpUpdatePointer, fpUpdateLargePointer:
		r := newReader("pointer update", u.Data)
		bpp := int(r.u16())
		if r.err != nil {
			return r.err
		}
		return c.ptr.colorPointer(u.Data[2:], bpp, u.Code == fpUpdateLargePointer)
	}
	return nil
}

// InfoTakenOver is the Set Error Info code a server sends when another
// connection took the session over (ERRINFO_DISCONNECTED_BY_OTHERCONNECTION).
const InfoTakenOver = 0x5

// paintBudgeted paints a bitmap update, then spends its decoding work
// from the framebuffer's budget: past it, reading pauses (see
// fb.Buffer.SpendDecode), so cheap run-length floods cannot take a core.
func (c *Client) paintBudgeted(b []byte) error {
	start := time.Now()
	work, err := c.paint.paint(b)
	if err == nil {
		// The PDU is in memory: painting it is all decoding time.
		c.cfg.Framebuffer.SpendDecode(work, time.Since(start), c.closing)
	}
	return err
}

// errorInfoText explains the commonest Set Error Info codes.
func errorInfoText(v uint32) string {
	switch v {
	case 0x1:
		return "an administrator disconnected the session"
	case 0x2:
		return "an administrator logged the session off"
	case 0x3:
		return "the session was idle too long"
	case 0x4:
		return "the logon timed out"
	case 0x5:
		return "another connection took over the session"
	case 0x6:
		return "the server ran out of memory"
	case 0x7:
		return "the server denied the connection"
	case 0x9:
		return "the user lacks the right to log on remotely"
	case 0xC:
		return "the user logged off"
	case 0x10C:
		return "the server closed the session (SSL/credential failure)"
	}
	if v >= 0x1000 && v < 0x2000 {
		return "the server found our protocol data invalid"
	}
	return "see MS-RDPBCGR 2.2.5.1.1 for the code"
}

// isLicensePDU tells a licensing PDU (security header with the licence
// flag, then a known message type and preamble version) from a share
// control PDU, whose leading length field may happen to carry that flag.
func isLicensePDU(b []byte) bool {
	if len(b) < 8 || b[0]&secLicensePkt == 0 {
		return false
	}
	switch b[4] {
	case licenseRequest, licensePlatformChal, licenseNewLicense, licenseUpgrade, licenseErrorAlert:
	default:
		return false
	}
	v := b[5] & 0x0F
	return v == 2 || v == 3
}

// writeFramed writes a PDU as it came off the wire.
func writeFramed(w io.Writer, kind pduKind, hdr byte, body []byte) {
	if kind == pduX224 {
		n := len(body) + 4
		w.Write([]byte{tpktVersion, 0, byte(n >> 8), byte(n)})
	} else {
		n := len(body) + 3
		w.Write([]byte{hdr, byte(n>>8) | 0x80, byte(n)})
	}
	w.Write(body)
}
