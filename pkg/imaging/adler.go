package imaging

// adler32 helpers: each strip of a parallel PNG is checksummed on its own
// and the sums are combined, so no pass over the whole image is needed.

const adlerMod = 65521

// adlerCombine returns the Adler-32 of A||B given adler32(A), adler32(B) and
// len(B). With a = 1+ΣA and b = Σ of the running a's, appending B adds
// a(B)-1 to a and b(B) + len(B)*(a(A)-1) to b.
func adlerCombine(adlerA, adlerB uint32, lenB int64) uint32 {
	a1, b1 := uint64(adlerA&0xffff), uint64(adlerA>>16)
	a2, b2 := uint64(adlerB&0xffff), uint64(adlerB>>16)
	rem := uint64(lenB % adlerMod)
	a := (a1 + a2 + adlerMod - 1) % adlerMod
	b := (b1 + b2 + rem*((a1+adlerMod-1)%adlerMod)) % adlerMod
	return uint32(b<<16 | a)
}
