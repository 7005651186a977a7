package rfbserver

import "unsafe"

// held is the bytes a session's encoder holds between updates: the
// hashes of what the viewer has and the buffers of one rectangle.
func (e *encoder) held() int {
	n := 0
	if e.colours != nil {
		n = int(unsafe.Sizeof(*e.colours)) + 4*cap(e.colours.list)
	}
	if e.jpeg != nil {
		n += int(unsafe.Sizeof(*e.jpeg))
	}
	return n + 8*(cap(e.sums)+cap(e.newRows)+cap(e.oldRows)) + cap(e.band) + cap(e.out) + cap(e.raw) + e.zbuf.Cap() + cap(e.jbuf) + e.tightZ.buf.Cap()
}
