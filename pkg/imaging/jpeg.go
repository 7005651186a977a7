package imaging

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"runtime"
	"sync"

	"github.com/dvvhq/dvv/pkg/jpegenc"
)

// DefaultJPEGQuality is used when quality is 0.
const DefaultJPEGQuality = 80

// jpegMCU is the height of one MCU row: screens are JPEG with 4:2:0 chroma
// subsampling, so blocks cover 16×16 pixels.
const jpegMCU = 16

// EncodeJPEG writes the RGBA pixels as a baseline JPEG. quality is 1..100;
// 0 means DefaultJPEGQuality.
//
// The encoder is pkg/jpegenc (about twice image/jpeg's speed at 4:2:0).
// Large images are cut into horizontal strips a whole number of MCU rows
// high, encoded in parallel, and joined into one picture with restart
// markers: every strip starts its DC prediction afresh, which is exactly
// what a restart interval asks of a decoder. The decoded pixels equal
// those of a single encoding.
func EncodeJPEG(w io.Writer, pix []byte, stride, width, height int, quality int) error {
	if err := checkImage(pix, stride, width, height); err != nil {
		return err
	}
	if quality == 0 {
		quality = DefaultJPEGQuality
	}
	if quality < 1 || quality > 100 {
		return fmt.Errorf("imaging: JPEG quality %d out of range 1..100", quality)
	}
	img := &image.RGBA{Pix: pix[:(height-1)*stride+4*width], Stride: stride, Rect: image.Rect(0, 0, width, height)}
	strips := jpegStrips(width, height, runtime.GOMAXPROCS(0))
	if strips <= 1 {
		out, err := encodeJPEG(nil, img, quality)
		if err == nil {
			_, err = w.Write(out)
		}
		return err
	}
	return encodeJPEGStrips(w, img, quality, strips)
}

// jpegEncoders keeps encoders (their blocks and tables) between pictures.
var jpegEncoders = sync.Pool{New: func() any { return new(jpegenc.Encoder) }}

// encodeJPEG appends img as one 4:2:0 JPEG to dst.
func encodeJPEG(dst []byte, img *image.RGBA, quality int) ([]byte, error) {
	e := jpegEncoders.Get().(*jpegenc.Encoder)
	defer jpegEncoders.Put(e)
	return e.EncodeImage(dst, img, quality, jpegenc.Sub420)
}

// jpegStrips picks how many strips to encode: one per core, each at least
// minStripBytes of pixels and whole MCU rows, and few enough MCUs per strip
// for the 16-bit restart interval.
func jpegStrips(width, height, workers int) int {
	mcuRows := (height + jpegMCU - 1) / jpegMCU
	n := min(workers, max(1, width*height*4/minStripBytes), mcuRows)
	if n <= 1 {
		return 1
	}
	mcusPerRow := (width + jpegMCU - 1) / jpegMCU
	rowsPerStrip := (mcuRows + n - 1) / n
	if mcusPerRow*rowsPerStrip > 0xffff {
		rowsPerStrip = 0xffff / mcusPerRow
		if rowsPerStrip == 0 {
			return 1
		}
	}
	return (mcuRows + rowsPerStrip - 1) / rowsPerStrip
}

func encodeJPEGStrips(w io.Writer, img *image.RGBA, quality, strips int) error {
	width, height := img.Rect.Dx(), img.Rect.Dy()
	mcuRows := (height + jpegMCU - 1) / jpegMCU
	rowsPerStrip := (mcuRows + strips - 1) / strips
	stripH := rowsPerStrip * jpegMCU
	strips = (height + stripH - 1) / stripH

	outs := make([][]byte, strips)
	errs := make([]error, strips)
	var wg sync.WaitGroup
	for i := 0; i < strips; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := image.Rect(0, i*stripH, width, min(height, (i+1)*stripH))
			outs[i], errs[i] = encodeJPEG(nil, img.SubImage(r).(*image.RGBA), quality)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}

	header, _, err := splitJPEG(outs[0])
	if err != nil {
		return err
	}
	interval := (width + jpegMCU - 1) / jpegMCU * rowsPerStrip
	out, err := jpegHeaderFor(header, height, interval)
	if err != nil {
		return err
	}
	for i := range outs {
		_, scan, err := splitJPEG(outs[i])
		if err != nil {
			return err
		}
		if i > 0 {
			out = append(out, 0xff, byte(0xd0+(i-1)%8)) // RSTn between intervals
		}
		out = append(out, scan...)
	}
	out = append(out, 0xff, 0xd9) // EOI
	_, err = w.Write(out)
	return err
}

var errJPEGLayout = errors.New("imaging: unexpected JPEG encoder output layout")

// splitJPEG cuts a single-scan JPEG into its header (SOI up to and including
// the SOS segment) and its entropy-coded data (up to EOI, exclusive).
func splitJPEG(b []byte) (header, scan []byte, err error) {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 || b[len(b)-2] != 0xff || b[len(b)-1] != 0xd9 {
		return nil, nil, errJPEGLayout
	}
	for p := 2; p+4 <= len(b); {
		if b[p] != 0xff {
			return nil, nil, errJPEGLayout
		}
		marker := b[p+1]
		end := p + 2 + int(binary.BigEndian.Uint16(b[p+2:]))
		if end > len(b)-2 {
			return nil, nil, errJPEGLayout
		}
		if marker == 0xda { // SOS
			return b[:end], b[end : len(b)-2], nil
		}
		p = end
	}
	return nil, nil, errJPEGLayout
}

// jpegHeaderFor rewrites a strip's header for the whole picture: the frame
// height in SOF0 becomes height, and a DRI segment with the restart interval
// goes in before SOS.
func jpegHeaderFor(header []byte, height, interval int) ([]byte, error) {
	out := make([]byte, 0, len(header)+6+64<<10)
	out = append(out, header[:2]...)
	sawSOF := false
	for p := 2; p < len(header); {
		marker := header[p+1]
		end := p + 2 + int(binary.BigEndian.Uint16(header[p+2:]))
		seg := header[p:end]
		switch marker {
		case 0xc0: // SOF0: FF C0, length, precision, height, width, ...
			if len(seg) < 9 {
				return nil, errJPEGLayout
			}
			start := len(out)
			out = append(out, seg...)
			binary.BigEndian.PutUint16(out[start+5:], uint16(height))
			sawSOF = true
		case 0xda:
			out = append(out, 0xff, 0xdd, 0, 4, byte(interval>>8), byte(interval))
			out = append(out, seg...)
		default:
			out = append(out, seg...)
		}
		p = end
	}
	if !sawSOF {
		return nil, errJPEGLayout
	}
	return out, nil
}
