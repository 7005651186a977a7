package main

import (
	"encoding/json"

	"github.com/dvvhq/dvv/pkg/wire"
)

// catalog is every field an op may take, by its JSON name: the Go name,
// type and tag each op's Args struct declares it with. It is not a message:
// no request is built of it (dvvd decodes a line straight into its op's
// Args, a client encodes the Args). A field the op table names must be
// here; a new kind of field is added here first.
type catalog struct {
	// selector trio
	LimbID  string `json:"limbId,omitempty"`
	GroupID string `json:"groupId,omitempty"`
	Member  *int   `json:"member,omitempty"`

	// open
	HostID   string `json:"hostId,omitempty"`
	Address  string `json:"address,omitempty"`
	Port     *int   `json:"port,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Slot     *int   `json:"slot,omitempty"`
	Perceive *bool  `json:"perceive,omitempty"`
	// Machine names the limb's hypervisor side (pkg/machine): qmp:PATH,
	// qmp+ssh://user@host/PATH or libvirt:DOMAIN[?uri=…].
	Machine string `json:"machine,omitempty"`
	// Snapshot names a machine snapshot (machine_snapshot_*).
	Snapshot string `json:"snapshot,omitempty"`

	// control
	Action string `json:"action,omitempty"`
	Reason string `json:"reason,omitempty"`
	WaitMs *int   `json:"waitMs,omitempty"`

	// click
	Generation *uint64 `json:"generation,omitempty"`
	// GenerationFrom "last-read" fences a coordinate with the generation of
	// this attachment's last pixel read (what the dvv CLI sends when no
	// --generation is given). Not an MCP tool argument.
	GenerationFrom string   `json:"generationFrom,omitempty"`
	X              *int     `json:"x,omitempty"`
	Y              *int     `json:"y,omitempty"`
	ToX            *int     `json:"toX,omitempty"`
	ToY            *int     `json:"toY,omitempty"`
	Button         string   `json:"button,omitempty"`
	Direction      string   `json:"direction,omitempty"`
	Clicks         *int     `json:"clicks,omitempty"`
	Modifiers      []string `json:"modifiers,omitempty"`

	// click / type / key / term_send: how long the answer waits for
	// evidence of the act's effect (nil: DefaultVerifyMs, 0: none).
	VerifyMs *int `json:"verifyMs,omitempty"`

	// type / key / term_send / clipboard / wait
	Text     *string `json:"text,omitempty"`
	Wpm      *int    `json:"wpm,omitempty"`
	Keys     string  `json:"keys,omitempty"`
	BytesHex string  `json:"bytesHex,omitempty"`

	// screen
	Form   string       `json:"form,omitempty"`
	Region *wire.Region `json:"region,omitempty"`
	Scale  *float64     `json:"scale,omitempty"`
	Format string       `json:"format,omitempty"` // png (default), jpeg, or auto (the smaller of the two)
	Out    string       `json:"out,omitempty"`    // absolute local path: write the image there instead of inline
	// MaxEdge and MaxPixels are an image budget for a full screen read
	// without scale: dvvd picks the largest of scale 1, 1/2, 1/4, 1/8 whose
	// image fits both (dvvmcp sends the limits MCP clients resize beyond).
	MaxEdge   *int `json:"maxEdge,omitempty"`
	MaxPixels *int `json:"maxPixels,omitempty"`

	// find / wait on a desktop: recognition languages, e.g. "eng" or "eng+deu"
	Lang string `json:"lang,omitempty"`

	// expect: the picture to wait for (PNG, base64) and the least
	// similarity that counts as found, 0..1
	TemplateBase64 string   `json:"templateBase64,omitempty"`
	Threshold      *float64 `json:"threshold,omitempty"`

	// wait / reconnect / run
	Until     string `json:"until,omitempty"`
	QuietMs   *int   `json:"quietMs,omitempty"`
	TimeoutMs *int   `json:"timeoutMs,omitempty"`

	// run
	Command        string `json:"command,omitempty"`
	Cwd            string `json:"cwd,omitempty"`
	MaxOutputBytes *int   `json:"maxOutputBytes,omitempty"`
	// StdinBase64 is fed to the command as its standard input, then end
	// of file; never kept in history, acts or recordings.
	StdinBase64 string `json:"stdinBase64,omitempty"`
	// Env are NAME=VALUE pairs the command sees.
	Env []string `json:"env,omitempty"`
	// Sudo runs the command as root through sudo -n.
	Sudo bool `json:"sudo,omitempty"`

	// term_read
	Since string `json:"since,omitempty"`

	// files / transfer
	Path          string `json:"path,omitempty"`
	To            string `json:"to,omitempty"`
	From          string `json:"from,omitempty"`
	ContentBase64 string `json:"contentBase64,omitempty"`
	Mode          *int   `json:"mode,omitempty"`
	Recursive     bool   `json:"recursive,omitempty"`
	TransferID    string `json:"transferId,omitempty"`
	// Offset and Length make a get read a range of the file.
	Offset *int64 `json:"offset,omitempty"`
	Length *int64 `json:"length,omitempty"`
	// Append makes a put add to the end of the file instead of replacing it.
	Append bool `json:"append,omitempty"`
	// Progress asks a files get or put sent with an id for interim
	// "progress" lines while it runs (wire.ProgressLine).
	Progress bool `json:"progress,omitempty"`

	// hosts
	Discovered bool           `json:"discovered,omitempty"`
	Host       *wire.HostSpec `json:"host,omitempty"`
	Password   string         `json:"password,omitempty"` // host_add: to the keychain (else the credentials file); open: the limb's memory only
	// Fingerprint is the SSH host key or TLS certificate fingerprint the
	// user checked; host_trust writes the key only when the server presents
	// exactly it (as a HOSTKEY_UNKNOWN answer showed it).
	Fingerprint string `json:"fingerprint,omitempty"`
	// AcceptNew lets host_trust write a key it has not been given the
	// fingerprint of, when none is recorded (OpenSSH's
	// StrictHostKeyChecking=accept-new); a changed key is still refused.
	AcceptNew bool `json:"acceptNew,omitempty"`

	// groups
	HostIDs   []string        `json:"hostIds,omitempty"`
	Addresses []string        `json:"addresses,omitempty"`
	N         *int            `json:"n,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	OutDir    string          `json:"outDir,omitempty"`

	// tokens
	Role    string   `json:"role,omitempty"`
	Caps    []string `json:"caps,omitempty"`
	TokenID string   `json:"tokenId,omitempty"`

	// inspect / element / wait: accessibility elements (window is
	// below: an X window id, or for inspect also an accessible window's id
	// or part of its title)
	NameContains string   `json:"nameContains,omitempty"`
	States       []string `json:"states,omitempty"`
	Element      string   `json:"element,omitempty"`
	Invoke       string   `json:"invoke,omitempty"`
	State        string   `json:"state,omitempty"`
	Value        *float64 `json:"value,omitempty"`

	// subscribe
	Events []string `json:"events,omitempty"`

	// share
	ViewOnly bool `json:"viewOnly,omitempty"`
	TCP      bool `json:"tcp,omitempty"`
	// pause: every limb instead of the one named
	All bool `json:"all,omitempty"`
	// window: the X window id windows answered ("0x1a00007"), and a
	// client area's size
	Window string `json:"window,omitempty"`
	// screen: the window layout beside the picture
	Windows bool `json:"windows,omitempty"`
	Width   *int `json:"width,omitempty"`
	Height  *int `json:"height,omitempty"`
	// cancel: the id of a request this connection sent that is still in
	// flight; its work is withdrawn (it is still answered, with what the
	// cancelled work returned).
	Cancels json.RawMessage `json:"cancels,omitempty"`
}
