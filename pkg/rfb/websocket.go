package rfb

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"

	"github.com/coder/websocket"
)

// dialWebSocket opens a ws:// or wss:// endpoint (websockify, noVNC
// proxies, x11vnc's and QEMU's built-in WebSocket) as a byte stream.
func dialWebSocket(ctx context.Context, url string, cfg *Config) (net.Conn, error) {
	opts := &websocket.DialOptions{Subprotocols: []string{"binary"}}
	if cfg.Origin != "" {
		opts.HTTPHeader = http.Header{"Origin": []string{cfg.Origin}}
	}
	if pol := cfg.TLS; pol != nil && pol.Verify != nil {
		tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: true,
			VerifyConnection: func(cs tls.ConnectionState) error {
				if len(cs.PeerCertificates) == 0 {
					return protoErr("TLS server sent no certificate")
				}
				return pol.Verify(cs.PeerCertificates[0].Raw)
			}}
		opts.HTTPClient = &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	}
	ws, resp, err := websocket.Dial(ctx, url, opts)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(-1) // framing only; RFB messages are bounded by the decoder
	return websocket.NetConn(context.Background(), ws, websocket.MessageBinary), nil
}
