// Package imaging encodes framebuffer pixels into the pictures the daemon
// answers with: a fast parallel PNG encoder, JPEG, area-filtered downscaling,
// cropping, and a cache so an unchanged frame is encoded once.
//
// Pixels are RGBA, 4 bytes each, rows stride bytes apart (the layout of
// image.RGBA and of pkg/fb). Alpha is assumed opaque and is not encoded.
package imaging

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// PNGOptions tune EncodePNG. The zero value is the fast default.
type PNGOptions struct {
	// Level is the deflate level: 0 means DefaultPNGLevel, 1 (fastest) to 9
	// (smallest) as in compress/flate.
	Level int
	// Workers is how many strips are compressed at once; 0 means GOMAXPROCS.
	Workers int
}

// DefaultPNGLevel is the deflate level used when PNGOptions.Level is 0.
const DefaultPNGLevel = flate.BestSpeed

// MaxDim bounds either side of an image given to the encoders.
const MaxDim = 1 << 15

// minStripBytes is the least raw data worth a strip of its own: below it the
// goroutine and the lost deflate context cost more than parallelism gains.
const minStripBytes = 256 << 10

// maxStripBytes bounds one strip's raw data, keeping its IDAT chunk well
// inside the PNG chunk length limit.
const maxStripBytes = 256 << 20

// rowChunkBytes is how much filtered data a worker builds before handing it
// to deflate, small enough to stay in cache while it is checksummed too.
const rowChunkBytes = 64 << 10

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// checkImage validates the pixel geometry shared by every encoder here.
func checkImage(pix []byte, stride, width, height int) error {
	if width <= 0 || height <= 0 {
		return fmt.Errorf("imaging: empty image %dx%d: nothing to encode; read the screen once a frame has arrived", width, height)
	}
	if width > MaxDim || height > MaxDim {
		return fmt.Errorf("imaging: image %dx%d exceeds %d pixels a side", width, height, MaxDim)
	}
	if stride < 4*width {
		return fmt.Errorf("imaging: stride %d shorter than a %d-pixel row", stride, width)
	}
	// stride ≤ len(pix) (when there is a second row) keeps the product below
	// from overflowing for hostile strides.
	if need := (height-1)*stride + 4*width; (height > 1 && stride > len(pix)) || len(pix) < need {
		return fmt.Errorf("imaging: %d bytes of pixels, %dx%d at stride %d needs %d", len(pix), width, height, stride, need)
	}
	return nil
}

// EncodePNG writes the RGBA pixels as an 8-bit RGB PNG (colour type 2; the
// alpha channel is dropped). Rows are cut into horizontal strips that are
// filtered, checksummed and deflated in parallel; each strip but the last
// ends with a sync flush, so their outputs concatenate into one zlib stream
// whose Adler-32 is combined from the strips' own.
func EncodePNG(w io.Writer, pix []byte, stride, width, height int, o PNGOptions) error {
	return encodePNG(w, pix, stride, width, height, o, defaultFilter)
}

func encodePNG(w io.Writer, pix []byte, stride, width, height int, o PNGOptions, filter int) error {
	if err := checkImage(pix, stride, width, height); err != nil {
		return err
	}
	level := o.Level
	if level == 0 {
		level = DefaultPNGLevel
	}
	if level < 1 || level > 9 {
		return fmt.Errorf("imaging: PNG level %d out of range 1..9", o.Level)
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rowBytes := 1 + 3*width
	strips := stripCount(workers, rowBytes, height)

	hdr := make([]byte, 0, 8+25)
	hdr = append(hdr, pngSignature...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8] = 8 // bit depth
	ihdr[9] = 2 // colour type RGB
	hdr = appendChunk(hdr, "IHDR", ihdr[:])
	if _, err := w.Write(hdr); err != nil {
		return err
	}

	jobs := make([]*stripJob, strips)
	for i := range jobs {
		y0 := height * i / strips
		y1 := height * (i + 1) / strips
		jobs[i] = &stripJob{y0: y0, y1: y1, first: i == 0, last: i == strips-1, done: make(chan struct{})}
	}
	img := srcImage{pix: pix, stride: stride, width: width, height: height}
	if strips == 1 {
		jobs[0].run(img, level, filter)
	} else {
		next := make(chan *stripJob, strips)
		for _, j := range jobs {
			next <- j
		}
		close(next)
		for n := 0; n < min(workers, strips); n++ {
			go func() {
				for j := range next {
					j.run(img, level, filter)
				}
			}()
		}
	}

	var sum uint32 = 1
	var werr error
	for _, j := range jobs {
		<-j.done
		if werr == nil && j.err != nil {
			werr = j.err
		}
		if werr == nil {
			_, werr = w.Write(j.out.Bytes())
		}
		sum = adlerCombine(sum, j.adler, j.n)
		j.release()
	}
	if werr != nil {
		return werr
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], sum)
	end := appendChunk(make([]byte, 0, 24), "IDAT", tail[:])
	end = appendChunk(end, "IEND", nil)
	_, err := w.Write(end)
	return err
}

// stripCount splits the image into at most one strip per worker, each with
// at least minStripBytes of raw data (very large images get more strips).
func stripCount(workers, rowBytes, height int) int {
	total := rowBytes * height
	n := min(workers, max(1, total/minStripBytes), height)
	// Keep every strip far below PNG's 2^31-1 chunk length limit.
	n = max(n, (total+maxStripBytes-1)/maxStripBytes)
	return max(n, 1)
}

type srcImage struct {
	pix                   []byte
	stride, width, height int
}

// stripJob is one strip's work and result: an IDAT chunk holding its part of
// the zlib stream, and the Adler-32 and length of its filtered data.
type stripJob struct {
	y0, y1      int
	first, last bool
	done        chan struct{}

	out   *stripBuf
	adler uint32
	n     int64
	err   error
}

// stripBuf is a chunk under construction: 8 bytes reserved for the chunk
// length and type, then the deflate output.
type stripBuf struct{ b []byte }

func (s *stripBuf) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stripBuf) Bytes() []byte               { return s.b }

var (
	stripBufs  sync.Pool // *stripBuf
	rowBufs    sync.Pool // *[]byte
	flaters    [10]sync.Pool
	errNoFlate = errors.New("imaging: deflate writer unavailable")
)

func (j *stripJob) run(img srcImage, level, filter int) {
	defer close(j.done)
	sb, _ := stripBufs.Get().(*stripBuf)
	if sb == nil {
		sb = &stripBuf{}
	}
	sb.b = append(sb.b[:0], 0, 0, 0, 0, 'I', 'D', 'A', 'T')
	if j.first {
		sb.b = append(sb.b, zlibHeader(level)...)
	}
	j.out = sb

	fw, _ := flaters[level].Get().(*flate.Writer)
	if fw == nil {
		var err error
		if fw, err = flate.NewWriter(sb, level); err != nil || fw == nil {
			j.err = errNoFlate
			return
		}
	} else {
		fw.Reset(sb)
	}
	defer flaters[level].Put(fw)

	rowBytes := 1 + 3*img.width
	chunkRows := max(1, rowChunkBytes/rowBytes)
	bp, _ := rowBufs.Get().(*[]byte)
	if bp == nil || cap(*bp) < chunkRows*rowBytes {
		b := make([]byte, chunkRows*rowBytes)
		bp = &b
	}
	defer rowBufs.Put(bp)
	buf := (*bp)[:chunkRows*rowBytes]

	sum := adler32.New()
	for y := j.y0; y < j.y1; {
		rows := min(chunkRows, j.y1-y)
		for r := 0; r < rows; r++ {
			cur := img.pix[(y+r)*img.stride:]
			var prev []byte
			if y+r > 0 {
				prev = img.pix[(y+r-1)*img.stride:]
			}
			filterRow(buf[r*rowBytes:], cur, prev, img.width, filter)
		}
		chunk := buf[:rows*rowBytes]
		sum.Write(chunk)
		if _, err := fw.Write(chunk); err != nil {
			j.err = err
			return
		}
		y += rows
	}
	var err error
	if j.last {
		err = fw.Close()
	} else {
		err = fw.Flush()
	}
	if err != nil {
		j.err = err
		return
	}
	j.adler = sum.Sum32()
	j.n = int64(j.y1-j.y0) * int64(rowBytes)
	sb.b = finishChunk(sb.b)
}

func (j *stripJob) release() {
	if j.out != nil && cap(j.out.b) <= 64<<20 {
		stripBufs.Put(j.out)
	}
	j.out = nil
}

// zlibHeader is the two-byte zlib header (deflate, 32 KiB window) with the
// level hint PNG decoders ignore but tools display.
func zlibHeader(level int) []byte {
	var flevel byte
	switch {
	case level <= 1:
		flevel = 0
	case level <= 5:
		flevel = 1
	case level == 6:
		flevel = 2
	default:
		flevel = 3
	}
	cmf := byte(0x78)
	flg := flevel << 6
	flg += byte((31 - (uint16(cmf)<<8|uint16(flg))%31) % 31)
	return []byte{cmf, flg}
}

// appendChunk appends a whole PNG chunk: length, type, data, CRC.
func appendChunk(dst []byte, typ string, data []byte) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(data)))
	dst = append(dst, typ...)
	dst = append(dst, data...)
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start+4:]))
}

// finishChunk fills in the length of a chunk built in place (8 reserved
// bytes, then data) and appends its CRC.
func finishChunk(b []byte) []byte {
	binary.BigEndian.PutUint32(b[0:], uint32(len(b)-8))
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}
