// Package viewer is dvvd's browser viewer: an HTTP server on 127.0.0.1
// with a per-start secret, an index of every limb with live thumbnails,
// and a page per limb — a desktop drawn by noVNC from an RFB stream
// (pkg/rfbserver) over a WebSocket, a terminal in xterm.js fed from the
// limb's byte stream — with the lease banner, take over / hand back /
// pause, and the agent's acts drawn over the picture.
//
// It knows nothing of leases or attachments: the daemon gives it a Backend.
package viewer

import (
	"encoding/json"

	"github.com/dvvhq/dvv/pkg/fb"
	"github.com/dvvhq/dvv/pkg/rfbserver"
)

// Limb is one row of the index and the head of a limb page.
type Limb struct {
	ID        string   `json:"id"`
	Protocol  string   `json:"protocol"`
	Address   string   `json:"address"`
	Port      int      `json:"port"`
	Kind      string   `json:"kind"` // desktop or terminal
	State     string   `json:"state"`
	Width     int      `json:"width"`
	Height    int      `json:"height"`
	Lease     Lease    `json:"lease"`
	Paused    bool     `json:"paused"`            // agent input refused here, by this limb's pause or every limb's
	PausedAll bool     `json:"pausedAll"`         // by every limb's: only resuming all lifts it
	Preview   []string `json:"preview,omitempty"` // a terminal's last rows
	Cols      int      `json:"cols,omitempty"`
	Rows      int      `json:"rows,omitempty"`
}

// Lease is who holds a limb's control lease.
type Lease struct {
	Holder  string `json:"holder,omitempty"`
	SinceMs int64  `json:"sinceMs,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Human   bool   `json:"human"` // the holder is a person (also while paused, unlike the agents' view)
	Mine    bool   `json:"mine"`  // held by the person in this viewer
}

// Backend is what the daemon gives the viewer.
type Backend interface {
	Limbs() []Limb
	Limb(id string) (Limb, bool)
	// Thumbnail is a JPEG of a desktop limb at most maxW wide.
	Thumbnail(id string, maxW int) ([]byte, error)
	// Desktop is a desktop limb's mirror and an input that drives it as the
	// person in the browser. End must be called when the session ends.
	Desktop(id string) (*fb.Buffer, DesktopInput, error)
	// Terminal is a terminal limb's stream and an input that drives it as
	// the person in the browser, for one page; End must be called when the
	// page's socket closes.
	Terminal(id string) (Terminal, error)
	// Session is one page's hold on a limb, for its Take over button.
	Session(id string) (Session, error)
	// Control: takeover, handback, pause, resume on a limb; pause and
	// resume with id "" act on every limb.
	Control(id, action string) error
	// Acts returns the limb's agent acts after seq, as JSON objects.
	Acts(id string, since uint64) ([]json.RawMessage, uint64)
	// Changed is closed at the next lease, state or act change anywhere.
	Changed() <-chan struct{}
}

// DesktopInput is a browser session's input.
type DesktopInput interface {
	rfbserver.Input
	End()
}

// Terminal is a terminal limb's byte stream and one page's input.
type Terminal interface {
	Read(since uint64, max int) (data []byte, next uint64, lost int64, err error)
	Changed() <-chan struct{}
	// Send types as the person in the browser (taking the limb over).
	Send(b []byte) error
	Size() (cols, rows int)
	// End: the page left; if it was the last that drove, the limb is
	// handed back.
	End()
}

// Session is one page's hold on a limb. Every kind of limb follows one
// rule: a page that drove it (typed, clicked, pressed Take over) holds it
// as the person, and when the last such page closes the limb is handed
// back.
type Session interface {
	TakeOver()
	End()
}
