package rfbserver

// held is the bytes a session's encoder holds between updates: the
// hashes of what the viewer has and the buffers of one rectangle.
func (e *encoder) held() int {
	return 8*(cap(e.sums)+cap(e.newRows)+cap(e.oldRows)) + cap(e.band) + cap(e.out) + cap(e.raw) + e.zbuf.Cap()
}
