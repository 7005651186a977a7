// Package wire holds dvv's socket protocol: op names, the request and answer
// shapes, the observation schema and the error codes. It has no logic.
//
// Framing: one JSON object per line, UTF-8, both ways. Requests are tagged
// "op", answers "result" (the op's name on success, "error" on failure, "event"
// for subscription events). A request's optional "id" is echoed.
package wire

import "encoding/json"

// MaxLine is the longest request line dvvd reads (a files put with inline
// content must fit). Longer lines are answered BAD_REQUEST and skipped.
const MaxLine = 32 << 20

// ProtocolVersion is reported by hello.
const ProtocolVersion = 1

// Op names. Limb ops are the MCP tool names without "dvv_".
const (
	OpHello      = "hello"
	OpAttach     = "attach"
	OpPing       = "ping"
	OpShutdown   = "shutdown"
	OpSubscribe  = "subscribe"
	OpLimbs      = "limbs"
	OpOpen       = "open"
	OpClose      = "close"
	OpReconnect  = "reconnect"
	OpStatus     = "status"
	OpControl    = "control"
	OpClick      = "click"
	OpType       = "type"
	OpKey        = "key"
	OpScreen     = "screen"
	OpWait       = "wait"
	OpSignals    = "signals"
	OpClipboard  = "clipboard"
	OpRun        = "run"
	OpTermRead   = "term_read"
	OpTermSend   = "term_send"
	OpFiles      = "files"
	OpTransfer   = "transfer"
	OpHosts      = "hosts"
	OpHostAdd    = "host_add"
	OpHostRemove = "host_remove"
	OpHostTrust  = "host_trust"
	OpGroupOpen  = "group_open"
	OpGroupList  = "group_list"
	OpGroupGrow  = "group_grow"
	OpGroupShrnk = "group_shrink"
	OpGroupClose = "group_close"
	OpGroupRun   = "group_run"
	OpTokenNew   = "token_create"
	OpTokenList  = "token_list"
	OpTokenRevok = "token_revoke"
	OpHistory    = "history"
	OpTakeover   = "takeover"
	OpShare      = "share"
	OpHandback   = "handback"
	OpPause      = "pause"
	OpViewer     = "viewer"
	OpCancel     = "cancel"
	OpFind       = "find"
	OpHealth     = "health"
	OpRecord     = "record"
	OpReport     = "report"
	OpExpect     = "expect"
)

// Region is a rectangle in native framebuffer pixels.
type Region struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Request is every op's request: the op, an optional id, and the tools'
// argument names. Fields an op does not use must be absent.
type Request struct {
	Op string          `json:"op"`
	ID json.RawMessage `json:"id,omitempty"`

	// attach / hello
	Name  string `json:"name,omitempty"`  // attachment name (e.g. the MCP client's)
	Token string `json:"token,omitempty"` // policy token; never echoed or logged
	// Session names a shell session, so one shell's dvv commands share an
	// attachment and its lease (see docs/protocol.md "Attachments").
	Session string `json:"session,omitempty"`

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
	Form   string   `json:"form,omitempty"`
	Region *Region  `json:"region,omitempty"`
	Scale  *float64 `json:"scale,omitempty"`
	Format string   `json:"format,omitempty"` // png (default) or jpeg
	Out    string   `json:"out,omitempty"`    // absolute local path: write the image there instead of inline
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
	// Progress asks a files get or put sent with an id for interim
	// "progress" lines while it runs (see Response.Progress).
	Progress bool `json:"progress,omitempty"`

	// hosts
	Discovered bool      `json:"discovered,omitempty"`
	Host       *HostSpec `json:"host,omitempty"`
	Password   string    `json:"password,omitempty"` // host_add only; goes to the keychain, never stored elsewhere
	// Fingerprint is the certificate fingerprint host_trust pins for a VNC
	// (VeNCrypt) or RDP endpoint, as a HOSTKEY_UNKNOWN answer showed it.
	Fingerprint string `json:"fingerprint,omitempty"`

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

	// subscribe
	Events []string `json:"events,omitempty"`

	// share
	ViewOnly bool `json:"viewOnly,omitempty"`
	TCP      bool `json:"tcp,omitempty"`
	// pause: every limb instead of the one named
	All bool `json:"all,omitempty"`
	// cancel: the id of a request this connection sent that is still in
	// flight; its work is withdrawn (it is still answered, with what the
	// cancelled work returned).
	Cancels json.RawMessage `json:"cancels,omitempty"`
}

// HostSpec describes a saved machine (host_add).
type HostSpec struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol"`
	Address  string `json:"address"`
	Port     int    `json:"port,omitempty"`
	User     string `json:"user,omitempty"`
	Domain   string `json:"domain,omitempty"`
	SSHPort  int    `json:"sshPort,omitempty"`
	SSHUser  string `json:"sshUser,omitempty"`
	// Record: every session opened by this host is recorded (record op).
	Record bool `json:"record,omitempty"`
}
