package rdp

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"time"
)

// Clipboard over the "cliprdr" static virtual channel (MS-RDPECLIP), text
// only: we offer CF_UNICODETEXT when the caller sets the clipboard and
// answer the server's data requests; when the remote side copies text we
// fetch it at once, so Clipboard() is what the remote last copied.

const (
	cbMonitorReady       = 0x0001
	cbFormatList         = 0x0002
	cbFormatListResponse = 0x0003
	cbFormatDataRequest  = 0x0004
	cbFormatDataResponse = 0x0005
	cbClipCaps           = 0x0007

	cbResponseOK   = 0x0001
	cbResponseFail = 0x0002

	cbUseLongFormatNames = 0x00000002

	cfText        = 1
	cfUnicodeText = 13

	channelFlagFirst        = 0x01
	channelFlagLast         = 0x02
	channelFlagShowProtocol = 0x10
	channelChunk            = 1600

	// maxClipboardBytes bounds one reassembled clipboard message.
	maxClipboardBytes = 8 << 20
	// maxClipboardFormats bounds the formats parsed from one format list.
	maxClipboardFormats = 1024
)

// ErrNoClipboard means the session has no clipboard channel (not asked
// for, or the server did not open it).
var ErrNoClipboard = errors.New("rdp: the server did not open the clipboard channel (cliprdr)")

type clipboard struct {
	channel uint16 // MCS channel id; 0 when the server gave none

	mu        sync.Mutex
	ready     bool   // the server sent Monitor Ready
	longNames bool   // both sides use long format names
	local     string // what we offer
	haveLocal bool
	remote    string // what the remote side last copied
	haveRem   bool
	remoteSeq uint64
	pendingRq uint32 // format we asked the server for, 0 when none
	// Format lists sent and answered OK, and a channel closed (and
	// replaced) at every OK answer: how a set learns the server took it.
	listsSent, listsAcked uint64
	ackCh                 chan struct{}

	in    []byte // reassembly of channel chunks
	inLen int
}

// channelChunks splits a virtual channel message into chunks with
// CHANNEL_PDU_HEADERs.
func channelChunks(msg []byte) [][]byte {
	var out [][]byte
	for off := 0; off < len(msg) || off == 0; {
		n := min(channelChunk, len(msg)-off)
		flags := uint32(channelFlagShowProtocol)
		if off == 0 {
			flags |= channelFlagFirst
		}
		if off+n == len(msg) {
			flags |= channelFlagLast
		}
		var w writer
		w.u32(uint32(len(msg)))
		w.u32(flags)
		w.bytes(msg[off : off+n])
		out = append(out, w.b)
		off += n
		if n == 0 {
			break
		}
	}
	return out
}

func cliprdrPDU(typ, flags uint16, body []byte) []byte {
	var w writer
	w.u16(typ)
	w.u16(flags)
	w.u32(uint32(len(body)))
	w.bytes(body)
	return w.b
}

// receive reassembles one channel chunk; it returns a complete message or nil.
func (cb *clipboard) receive(b []byte) ([]byte, error) {
	const where = "clipboard channel PDU"
	r := newReader(where, b)
	total := int(r.u32())
	flags := r.u32()
	data := r.rest()
	if r.err != nil {
		return nil, r.err
	}
	if total > maxClipboardBytes {
		return nil, protoErr(where, "message of %d bytes is over the %d limit", total, maxClipboardBytes)
	}
	if flags&channelFlagFirst != 0 {
		cb.in, cb.inLen = cb.in[:0], total
	}
	if len(cb.in)+len(data) > cb.inLen {
		return nil, protoErr(where, "chunks exceed the announced %d bytes", cb.inLen)
	}
	cb.in = append(cb.in, data...)
	if flags&channelFlagLast == 0 {
		return nil, nil
	}
	msg := cb.in
	cb.in = nil
	return msg, nil
}

// handle processes one clipboard PDU and returns PDUs to send back.
func (cb *clipboard) handle(msg []byte) ([][]byte, error) {
	const where = "clipboard PDU"
	r := newReader(where, msg)
	typ := r.u16()
	flags := r.u16()
	n := int(r.u32())
	body := r.bytes(min(n, r.left()))
	if r.err != nil {
		return nil, r.err
	}
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch typ {
	case cbClipCaps:
		cr := newReader(where, body)
		count := int(cr.u16())
		cr.u16()
		for i := 0; i < count && cr.left() >= 4 && cr.err == nil; i++ {
			t, l := cr.u16(), int(cr.u16())
			caps := cr.bytes(max(l-4, 0))
			if t == 1 && len(caps) >= 8 {
				cb.longNames = binary.LittleEndian.Uint32(caps[4:])&cbUseLongFormatNames != 0
			}
		}
		return nil, cr.err
	case cbMonitorReady:
		cb.ready = true
		var caps writer
		caps.u16(1)
		caps.u16(0)
		caps.u16(1) // general capability set
		caps.u16(12)
		caps.u32(2) // version 2
		caps.u32(cbUseLongFormatNames)
		return [][]byte{cliprdrPDU(cbClipCaps, 0, caps.b), cb.formatListLocked()}, nil
	case cbFormatList:
		formats, err := cb.parseFormatList(body, flags)
		if err != nil {
			return nil, err
		}
		out := [][]byte{cliprdrPDU(cbFormatListResponse, cbResponseOK, nil)}
		want := uint32(0)
		for _, f := range formats {
			if f == cfUnicodeText {
				want = cfUnicodeText
			} else if f == cfText && want == 0 {
				want = cfText
			}
		}
		if want != 0 {
			cb.pendingRq = want
			out = append(out, cliprdrPDU(cbFormatDataRequest, 0, binary.LittleEndian.AppendUint32(nil, want)))
		}
		return out, nil
	case cbFormatListResponse:
		if flags&cbResponseOK != 0 {
			cb.listsAcked++
			if cb.ackCh != nil {
				close(cb.ackCh)
				cb.ackCh = nil
			}
		}
		return nil, nil
	case cbFormatDataRequest:
		dr := newReader(where, body)
		f := dr.u32()
		if dr.err != nil {
			return nil, dr.err
		}
		if f != cfUnicodeText || !cb.haveLocal {
			return [][]byte{cliprdrPDU(cbFormatDataResponse, cbResponseFail, nil)}, nil
		}
		return [][]byte{cliprdrPDU(cbFormatDataResponse, cbResponseOK, append(utf16le(cb.local), 0, 0))}, nil
	case cbFormatDataResponse:
		f := cb.pendingRq
		cb.pendingRq = 0
		if flags&cbResponseOK == 0 || f == 0 {
			return nil, nil
		}
		var text string
		if f == cfUnicodeText {
			text = decodeUTF16(body[:len(body)&^1])
		} else {
			text = latin1(body)
		}
		cb.remote, cb.haveRem = strings.TrimRight(text, "\x00"), true
		cb.remoteSeq++
	}
	return nil, nil
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

func (cb *clipboard) parseFormatList(b []byte, flags uint16) ([]uint32, error) {
	const where = "clipboard format list"
	var ids []uint32
	r := newReader(where, b)
	for r.left() > 0 {
		if len(ids) >= maxClipboardFormats {
			return nil, protoErr(where, "more than %d formats", maxClipboardFormats)
		}
		ids = append(ids, r.u32())
		if cb.longNames {
			// A null-terminated UTF-16 name.
			for {
				c := r.u16()
				if r.err != nil || c == 0 {
					break
				}
			}
		} else {
			r.skip(32)
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	return ids, nil
}

// formatListLocked announces our formats: CF_UNICODETEXT when we hold text.
func (cb *clipboard) formatListLocked() []byte {
	cb.listsSent++ // every list gets a Format List Response, in order
	var w writer
	if cb.haveLocal {
		w.u32(cfUnicodeText)
		if cb.longNames {
			w.u16(0)
		} else {
			w.zeros(32)
		}
	}
	return cliprdrPDU(cbFormatList, 0, w.b)
}

// SetClipboard offers text on the remote clipboard. The server fetches it
// when a remote application pastes.
func (c *Client) SetClipboard(text string) error {
	_, err := c.SetClipboardAcked(context.Background(), text, 0)
	return err
}

// SetClipboardAcked offers text like SetClipboard and waits up to wait for
// the server's Format List Response: acked reports whether the server
// answered OK to this offer (or a later one) in time.
func (c *Client) SetClipboardAcked(ctx context.Context, text string, wait time.Duration) (acked bool, err error) {
	cb := &c.clip
	cb.mu.Lock()
	if cb.channel == 0 || !cb.ready {
		cb.mu.Unlock()
		return false, ErrNoClipboard
	}
	cb.local, cb.haveLocal = text, true
	pdu := cb.formatListLocked()
	mine := cb.listsSent
	cb.mu.Unlock()
	if err := c.sendChannel(cb.channel, pdu); err != nil {
		return false, err
	}
	if wait <= 0 {
		return false, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		cb.mu.Lock()
		if cb.listsAcked >= mine {
			cb.mu.Unlock()
			return true, nil
		}
		if cb.ackCh == nil {
			cb.ackCh = make(chan struct{})
		}
		ch := cb.ackCh
		cb.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, nil
		}
	}
}

// Clipboard is the text the remote side last copied; seq rises with each
// new copy.
func (c *Client) Clipboard() (text string, seq uint64, ok bool) {
	c.clip.mu.Lock()
	defer c.clip.mu.Unlock()
	return c.clip.remote, c.clip.remoteSeq, c.clip.haveRem
}

// ClipboardState says whether the clipboard channel exists and is ready.
func (c *Client) ClipboardState() (channel, ready bool) {
	c.clip.mu.Lock()
	defer c.clip.mu.Unlock()
	return c.clip.channel != 0, c.clip.ready
}

func (c *Client) sendChannel(ch uint16, msg []byte) error {
	for _, chunk := range channelChunks(msg) {
		if err := c.sendMCS(mcsSendData(c.user, ch, chunk)); err != nil {
			return err
		}
	}
	return nil
}

// clipboardData handles data on the clipboard channel.
func (c *Client) clipboardData(b []byte) error {
	msg, err := c.clip.receive(b)
	if err != nil || msg == nil {
		return err
	}
	replies, err := c.clip.handle(msg)
	if err != nil {
		return err
	}
	for _, r := range replies {
		if err := c.sendChannel(c.clip.channel, r); err != nil {
			return err
		}
	}
	return nil
}
