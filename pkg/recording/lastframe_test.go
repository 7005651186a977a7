package recording

import (
	"bufio"
	"context"
	"io"

	"github.com/dvvhq/dvv/pkg/fb"
)

// lastFrame plays an FBS recording into dvv's RFB client and returns the
// frame it ends on (what a player shows at the end).
func lastFrame(ctx context.Context, r io.Reader) (*fb.Buffer, error) {
	var stream []byte
	if err := ReadFBS(bufio.NewReader(r), func(_ uint32, b []byte) error { stream = append(stream, b...); return nil }); err != nil {
		return nil, err
	}
	p, err := startPlayer(ctx, stream)
	if err != nil {
		return nil, err
	}
	defer p.close()
	if _, err := p.srv.Write(stream[p.hs:]); err != nil {
		return nil, err
	}
	settle(p.buf)
	return p.buf, nil
}
