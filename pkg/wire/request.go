// Package wire holds dvv's socket protocol: op names, the request and answer
// shapes, the observation schema and the error codes. It has no logic.
//
// Framing: one JSON object per line, UTF-8, both ways. Requests are tagged
// "op", answers "result" (the op's name on success, "error" on failure, "event"
// for subscription events). A request's optional "id" is echoed.
package wire

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
