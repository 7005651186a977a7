package fb

import "image"

// Fill is damage known to be one colour: rectangle R was painted C (R, G,
// B, A), as a protocol client learns from a server's solid-fill
// rectangle. A reader that forwards the picture (the RFB server) can send
// a fill on without reading or comparing R's pixels.
type Fill struct {
	R image.Rectangle
	C [4]byte
}

// maxFills bounds the fills a tracker keeps between two takes; older ones
// are kept as plain damage.
const maxFills = 32

// EndWriteFills is EndWrite for writes of which some rectangles are known
// fills (already painted into the pixels): damage holds the others.
func (b *Buffer) EndWriteFills(damage []image.Rectangle, fills []Fill) {
	b.endWrite(damage, fills)
}

// addFill records f after everything the tracker holds: fills it covers
// are dropped, and past maxFills the oldest becomes plain damage.
func (t *Tracker) addFill(f Fill) {
	kept := t.fills[:0]
	for _, old := range t.fills {
		if !old.R.In(f.R) {
			kept = append(kept, old)
		}
	}
	t.fills = kept
	if len(t.fills) == maxFills {
		t.other = t.other.Union(t.fills[0].R)
		t.fills = append(t.fills[:0], t.fills[1:]...)
	}
	t.fills = append(t.fills, f)
}
