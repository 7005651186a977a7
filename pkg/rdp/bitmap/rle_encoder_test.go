package bitmap

import (
	"encoding/binary"
	"math/rand/v2"
)

// rleEncoder is a test-only interleaved RLE encoder. It models the decoder
// rules independently (first-scanline handling per order, the foreground
// pixel inserted between two background runs) and, with a random source,
// picks among every order and length form that reproduces the image, so
// round trips cover all of them. Without one it is greedy, for benchmarks.
type rleEncoder struct {
	w, bpp, size int
	px           []uint32 // native pixels, wire order (bottom scanline first)
	out          []byte
	fg           uint32
	lastBG       bool
	inFirst      bool
	rng          *rand.Rand
	used         map[string]int // order kinds emitted, for coverage checks
}

func encodeRLE(px []uint32, w, bpp int, rng *rand.Rand, used map[string]int) []byte {
	size := map[int]int{8: 1, 15: 2, 16: 2, 24: 3}[bpp]
	e := &rleEncoder{w: w, bpp: bpp, size: size, px: px, fg: whitePixel(bpp), inFirst: true, rng: rng, used: used}
	e.encode()
	return e.out
}

func (e *rleEncoder) note(kind string) {
	if e.used != nil {
		e.used[kind]++
	}
}

func (e *rleEncoder) bgVal(q int, first bool) uint32 {
	if first {
		return 0
	}
	return e.px[q-e.w]
}

func (e *rleEncoder) fgVal(q int, first bool, fg uint32) uint32 {
	if first {
		return fg
	}
	return e.px[q-e.w] ^ fg
}

const maxMega = 65535

type candidate struct {
	kind string
	n    int // pixels covered (pairs for dithered are counted as pixels here)
	fg   uint32
}

func (e *rleEncoder) encode() {
	N := len(e.px)
	white := whitePixel(e.bpp)
	var literal []uint32
	flush := func() {
		for len(literal) > 0 {
			n := min(len(literal), maxMega)
			if e.rng != nil && n > 1 {
				n = 1 + e.rng.IntN(n)
			}
			e.emitLength("image", n)
			for _, v := range literal[:n] {
				e.putPixel(v)
			}
			literal = literal[n:]
			e.lastBG = false
		}
	}
	for p := 0; p < N; {
		first := p < e.w
		if e.inFirst && !first {
			e.inFirst = false
			e.lastBG = false
		}
		cands := e.candidates(p, first, white)
		var c candidate
		if e.rng != nil {
			// Take literals now and then so colour images mix with runs.
			if len(cands) == 0 || e.rng.IntN(6) == 0 {
				flush()
				literal = append(literal, e.px[p])
				flush()
				p++
				continue
			}
			c = cands[e.rng.IntN(len(cands))]
			for _, k := range cands {
				// The special orders fit rarely; take them when they do.
				if (k.kind == "special1" || k.kind == "special2") && e.rng.IntN(2) == 0 {
					c = k
				}
			}
			if c.n > 1 && c.kind != "special1" && c.kind != "special2" {
				// Shorten the run now and then, to each length form's range.
				switch e.rng.IntN(5) {
				case 0:
					c.n = 1 + e.rng.IntN(min(c.n, 40))
				case 1:
					c.n = 1 + e.rng.IntN(min(c.n, 300))
				case 2:
					c.n = min(c.n, 8*(1+e.rng.IntN(31)))
				}
				if c.kind == "dither" {
					c.n &^= 1
					if c.n == 0 {
						c.n = 2
					}
				}
			}
		} else {
			best := 0
			for _, k := range cands {
				if k.n > best {
					best, c = k.n, k
				}
			}
			if best < 4 {
				// The literal goes out before the next order, so no
				// background run directly precedes that order any more.
				e.lastBG = false
				literal = append(literal, e.px[p])
				p++
				continue
			}
		}
		flush()
		e.emit(p, first, c)
		p += c.n
	}
	flush()
}

// candidates lists the orders that can start at p, each with its longest
// length.
func (e *rleEncoder) candidates(p int, first bool, white uint32) []candidate {
	N := len(e.px)
	limit := min(N, p+maxMega)
	var cs []candidate
	// Background run (after another one, it must start with a foreground pixel).
	{
		q := p
		ok := true
		if e.lastBG {
			if e.px[p] != e.fgVal(p, first, e.fg) {
				ok = false
			}
			q++
		}
		if ok {
			for q < limit && e.px[q] == e.bgVal(q, first) {
				q++
			}
			if q > p {
				cs = append(cs, candidate{kind: "bg", n: q - p})
			}
		}
	}
	countFG := func(fg uint32) int {
		q := p
		for q < limit && e.px[q] == e.fgVal(q, first, fg) {
			q++
		}
		return q - p
	}
	if n := countFG(e.fg); n > 0 {
		cs = append(cs, candidate{kind: "fg", n: n})
	}
	newFG := e.px[p]
	if !first {
		newFG ^= e.px[p-e.w]
	}
	cs = append(cs, candidate{kind: "setfg", n: countFG(newFG), fg: newFG})
	{
		q := p
		for q < limit && e.px[q] == e.px[p] {
			q++
		}
		cs = append(cs, candidate{kind: "color", n: q - p})
	}
	if p+1 < N {
		a, b := e.px[p], e.px[p+1]
		q := p
		for q+1 < N && q+2-p <= 2*maxMega && e.px[q] == a && e.px[q+1] == b {
			q += 2
		}
		if q > p {
			cs = append(cs, candidate{kind: "dither", n: q - p})
		}
	}
	countFGBG := func(fg uint32) int {
		q := p
		for q < limit && (e.px[q] == e.bgVal(q, first) || e.px[q] == e.fgVal(q, first, fg)) {
			q++
		}
		return q - p
	}
	if n := countFGBG(e.fg); n > 0 {
		cs = append(cs, candidate{kind: "fgbg", n: n})
		if n >= 8 {
			m := e.mask(p, 8, first, e.fg)
			if m == maskSpecialFGBG1 {
				cs = append(cs, candidate{kind: "special1", n: 8})
			}
			if m == maskSpecialFGBG2 {
				cs = append(cs, candidate{kind: "special2", n: 8})
			}
		}
	}
	if n := countFGBG(newFG); n > 0 {
		cs = append(cs, candidate{kind: "setfgbg", n: n, fg: newFG})
	}
	if e.px[p] == white {
		cs = append(cs, candidate{kind: "white", n: 1})
	}
	if e.px[p] == 0 {
		cs = append(cs, candidate{kind: "black", n: 1})
	}
	return cs
}

// mask returns bit i set where pixel p+i is foreground (which wins when a
// pixel is both, as the two are then equal).
func (e *rleEncoder) mask(p, n int, first bool, fg uint32) uint64 {
	var m uint64
	for i := 0; i < n; i++ {
		if e.px[p+i] == e.fgVal(p+i, first, fg) {
			m |= 1 << i
		}
	}
	return m
}

func (e *rleEncoder) emit(p int, first bool, c candidate) {
	switch c.kind {
	case "bg":
		e.emitLength("bg", c.n)
	case "fg":
		e.emitLength("fg", c.n)
	case "setfg":
		e.emitLength("setfg", c.n)
		e.putPixel(c.fg)
		e.fg = c.fg
	case "color":
		e.emitLength("color", c.n)
		e.putPixel(e.px[p])
	case "dither":
		e.emitLength("dither", c.n/2)
		e.putPixel(e.px[p])
		e.putPixel(e.px[p+1])
	case "fgbg", "setfgbg":
		fg := e.fg
		if c.kind == "setfgbg" {
			fg = c.fg
		}
		e.emitLength(c.kind, c.n)
		if c.kind == "setfgbg" {
			e.putPixel(fg)
			e.fg = fg
		}
		for i := 0; i < c.n; i += 8 {
			e.out = append(e.out, byte(e.mask(p+i, min(8, c.n-i), first, fg)))
		}
	case "special1":
		e.note("special1")
		e.out = append(e.out, codeSpecialFGBG1)
	case "special2":
		e.note("special2")
		e.out = append(e.out, codeSpecialFGBG2)
	case "white":
		e.note("white")
		e.out = append(e.out, codeWhite)
	case "black":
		e.note("black")
		e.out = append(e.out, codeBlack)
	}
	e.lastBG = c.kind == "bg"
}

func (e *rleEncoder) putPixel(v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	e.out = append(e.out, b[:e.size]...)
}

// emitLength writes the header and length of an order, in a form chosen at
// random among the valid ones (or the shortest when greedy).
func (e *rleEncoder) emitLength(kind string, n int) {
	type form struct {
		name  string
		bytes []byte
	}
	var forms []form
	mega := func(code byte) {
		forms = append(forms, form{"mega", []byte{code, byte(n), byte(n >> 8)}})
	}
	regular := func(code byte, megaCode byte) {
		if n >= 1 && n <= 31 {
			forms = append(forms, form{"short", []byte{code<<5 | byte(n)}})
		}
		if n >= regularLengthBias && n <= 255+regularLengthBias {
			forms = append(forms, form{"byte", []byte{code << 5, byte(n - regularLengthBias)}})
		}
		mega(megaCode)
	}
	lite := func(code byte, megaCode byte) {
		if n >= 1 && n <= 15 {
			forms = append(forms, form{"short", []byte{code<<4 | byte(n)}})
		}
		if n >= liteLengthBias && n <= 255+liteLengthBias {
			forms = append(forms, form{"byte", []byte{code << 4, byte(n - liteLengthBias)}})
		}
		mega(megaCode)
	}
	fgbg := func(code byte, shift uint, maxUnits int, megaCode byte) {
		if n%8 == 0 && n/8 >= 1 && n/8 <= maxUnits {
			forms = append(forms, form{"short", []byte{code<<shift | byte(n/8)}})
		}
		if n >= 1 && n <= 256 {
			forms = append(forms, form{"byte", []byte{code << shift, byte(n - 1)}})
		}
		mega(megaCode)
	}
	switch kind {
	case "bg":
		regular(codeBGRun, codeMegaBGRun)
	case "fg":
		regular(codeFGRun, codeMegaFGRun)
	case "color":
		regular(codeColorRun, codeMegaColorRun)
	case "image":
		regular(codeColorImage, codeMegaColorImg)
	case "setfg":
		lite(codeSetFGFGRun, codeMegaSetFGRun)
	case "dither":
		lite(codeDitheredRun, codeMegaDithered)
	case "fgbg":
		fgbg(codeFGBGImage, 5, 31, codeMegaFGBG)
	case "setfgbg":
		fgbg(codeSetFGFGBG, 4, 15, codeMegaSetFGBG)
	}
	f := forms[0]
	if e.rng != nil {
		f = forms[e.rng.IntN(len(forms))]
	}
	e.note(kind + "/" + f.name)
	e.out = append(e.out, f.bytes...)
}
