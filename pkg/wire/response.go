package wire

import (
	"encoding/json"
	"fmt"
)

// Result tags that are not op names.
const (
	ResultError = "error"
	ResultEvent = "event"
	// ResultProgress tags an interim line of a request that asked for
	// progress (files get/put with progress): same id, the answer follows.
	ResultProgress = "progress"
)

// EventLine is a line pushed to subscribers: result "event".
type EventLine struct {
	Result string `json:"result"`
	Event  *Event `json:"event"`
}

// ProgressLine is an interim line of a files get or put that asked for
// progress: result "progress", the request's id, the transfer's state.
type ProgressLine struct {
	Result   string          `json:"result"`
	ID       json.RawMessage `json:"id,omitempty"`
	Progress *TransferInfo   `json:"progress"`
}

// ViewerInfo answers viewer: the browser viewer's address, carrying the
// secret that lets a browser in (shown to the person who asked, never
// logged).
type ViewerInfo struct {
	URL      string `json:"url"`
	ReadOnly bool   `json:"readOnly"`
}

// Share is a limb's RFB re-share (op share): where a VNC viewer connects.
type Share struct {
	Socket     string `json:"socket"`              // Unix socket, interactive (this user only)
	ViewSocket string `json:"viewSocket"`          // Unix socket, view-only
	TCP        string `json:"tcp,omitempty"`       // 127.0.0.1:port, when asked with tcp
	Password   string `json:"password,omitempty"`  // one-time VNC password for TCP: one connection, shown once
	ExpiresMs  int64  `json:"expiresMs,omitempty"` // unix ms after which an unused password is void
	ViewOnly   bool   `json:"viewOnly"`            // the password gives a view-only session
	Viewers    int    `json:"viewers"`             // viewer sessions connected now
}

// PauseResult answers pause: which limbs refuse agent input now.
type PauseResult struct {
	All   bool     `json:"all"`            // every limb, including ones opened later
	Limbs []string `json:"limbs,omitzero"` // limbs paused one by one
}

// DaemonInfo answers hello/attach.
type DaemonInfo struct {
	Version    string   `json:"version"`
	Protocol   int      `json:"protocol"`
	ID         string   `json:"id"` // instance name
	PID        int      `json:"pid"`
	Attachment string   `json:"attachment"` // this connection's attachment name
	Role       string   `json:"role"`
	Caps       []string `json:"caps"`
}

// LimbSummary is one row of `limbs`.
type LimbSummary struct {
	LimbID   string   `json:"limbId"`
	Protocol string   `json:"protocol"`
	Address  string   `json:"address"`
	Port     int      `json:"port"`
	Slot     int      `json:"slot"`
	State    string   `json:"state"`
	Width    int      `json:"width,omitempty"`
	Height   int      `json:"height,omitempty"`
	Caps     []string `json:"capabilities"`
	Lease    Lease    `json:"lease"`
}

// Screen is a pixel read. Image bytes come inline (base64) unless Path says
// where they were written.
type Screen struct {
	Mime       string     `json:"mime"`
	DataBase64 string     `json:"dataBase64,omitempty"`
	Path       string     `json:"path,omitempty"`
	Width      int        `json:"width"`  // image pixels
	Height     int        `json:"height"` // image pixels
	ImageSpace ImageSpace `json:"imageSpace"`
	// ImageSpaceLine is the human/agent-readable form of ImageSpace.
	ImageSpaceLine string  `json:"imageSpaceLine"`
	Coverage       float64 `json:"coverage"`
	Generation     uint64  `json:"generation"`
	Unchanged      bool    `json:"unchanged,omitempty"` // damage-crop with no damage: no image
	// Text is a terminal limb's screen grid, one string per row.
	Text   []string `json:"text,omitempty"`
	Cursor *Point   `json:"cursor,omitempty"`
	// Windows is the window layout read with the picture (screen's
	// windows), or WindowsAbsent why there is none.
	Windows       []ScreenWindow `json:"windows,omitempty"`
	WindowsAbsent string         `json:"windowsAbsent,omitempty"`
}

// ImageSpace maps image pixels back to framebuffer pixels:
// native = region.origin + image / scale.
type ImageSpace struct {
	Region Region  `json:"region"` // native region shown
	Scale  float64 `json:"scale"`
	Native Size    `json:"native"` // whole framebuffer
}

// Point is a position (terminal cursor: column X, row Y, zero based).
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Size is a width and height.
type Size struct {
	W int `json:"w"`
	H int `json:"h"`
}

// WaitResult answers wait.
type WaitResult struct {
	Until     string `json:"until"`
	Settled   bool   `json:"settled"`
	ElapsedMs int64  `json:"elapsedMs"`
	Detail    string `json:"detail,omitempty"`
	ExitCode  *int   `json:"exitCode,omitempty"` // until: exit
	// Matches says where the text was read on a desktop (until: text).
	Matches []TextMatch `json:"matches,omitzero"`
	// Elements are the accessibility elements found (until: element), or
	// the one whose text was watched (until: text-equals, text-contains).
	Elements []Element `json:"elements,omitzero"`
}

// RunResult answers run. Stdout/Stderr are UTF-8 when valid; otherwise the
// field is empty and the *Base64 field carries the exact bytes.
type RunResult struct {
	ExitCode      *int   `json:"exitCode,omitempty"`
	Signal        string `json:"signal,omitempty"`
	TimedOut      bool   `json:"timedOut,omitempty"`
	Stdout        string `json:"stdout"`
	Stderr        string `json:"stderr"`
	StdoutBase64  string `json:"stdoutBase64,omitempty"`
	StderrBase64  string `json:"stderrBase64,omitempty"`
	StdoutDropped int64  `json:"stdoutDropped,omitempty"`
	StderrDropped int64  `json:"stderrDropped,omitempty"`
	Cwd           string `json:"cwd"`
	ElapsedMs     int64  `json:"elapsedMs"`
	Note          string `json:"note,omitempty"`
	// Sudo: the command ran as root through sudo -n.
	Sudo bool `json:"sudo,omitempty"`
	// Via is the channel that ran the command: "ssh".
	Via string `json:"via,omitempty"`
}

// TermRead answers term_read: output since a cursor and the next cursor.
type TermRead struct {
	Data       string `json:"data"`
	DataBase64 string `json:"dataBase64,omitempty"` // set instead of Data when not valid UTF-8
	Cursor     string `json:"cursor"`
	Lost       int64  `json:"lost,omitempty"`
}

// FileEntry is one listed file.
type FileEntry struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Kind    string `json:"kind"` // file, dir, link, other
	Size    int64  `json:"size"`
	Mode    string `json:"mode"` // octal
	ModTime int64  `json:"modified"`
}

// FilesResult answers files.
type FilesResult struct {
	Action        string      `json:"action"`
	Path          string      `json:"path,omitempty"`
	Entries       []FileEntry `json:"entries,omitzero"`
	Bytes         int64       `json:"bytes,omitempty"`
	ContentBase64 string      `json:"contentBase64,omitempty"`
	Mode          string      `json:"mode,omitempty"` // get: the remote file's permission bits, octal ("0755")
	To            string      `json:"to,omitempty"`
	Home          string      `json:"home,omitempty"`
	Via           string      `json:"via,omitempty"` // "ssh" or "sidecar"
	Stat          *FileStat   `json:"stat,omitempty"`
	// Offset is where a ranged get started; Bytes says how many came.
	Offset int64 `json:"offset,omitempty"`
	// Appended: a put added to the end of the file instead of replacing it.
	Appended bool `json:"appended,omitempty"`
}

// FileStat is one path as stat(1) shows it (a final symbolic link is
// described, not followed).
type FileStat struct {
	Path    string `json:"path"`
	Kind    string `json:"kind"` // file, dir, link, other
	Size    int64  `json:"size"`
	Mode    string `json:"mode"` // permission bits with setuid/setgid/sticky, octal ("0755")
	UID     int    `json:"uid"`
	GID     int    `json:"gid"`
	ModTime int64  `json:"modified"`         // Unix seconds
	Target  string `json:"target,omitempty"` // a link's target
}

// Clipboard answers clipboard.
type Clipboard struct {
	Action  string   `json:"action"`
	Text    string   `json:"text,omitempty"`
	Present bool     `json:"present"`
	Via     string   `json:"via,omitempty"`             // extended-utf8 or latin1
	Dropped []string `json:"unrepresentable,omitempty"` // characters Latin-1 cannot carry
}

// Transfer answers transfer: nothing is ever in flight.
type Transfer struct {
	Action    string         `json:"action"`
	InFlight  int            `json:"inFlight"`
	Transfers []TransferInfo `json:"transfers,omitzero"`
	Note      string         `json:"note"`
}

// TransferInfo is one files get or put in flight.
type TransferInfo struct {
	TransferID string `json:"transferId"`
	Action     string `json:"action"` // get or put
	Path       string `json:"path"`   // the remote path
	Bytes      int64  `json:"bytes"`  // moved so far
	// Total is the file's size when it is known before the end (a regular
	// file); 0 when it is not (a pipe, a get whose size dvvd cannot see).
	Total       int64 `json:"total,omitempty"`
	ElapsedMs   int64 `json:"elapsedMs"`
	BytesPerSec int64 `json:"bytesPerSec"`
}

// Host is a saved or discovered machine. No secret is ever in it.
type Host struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Protocol      string `json:"protocol"`
	Address       string `json:"address"`
	Port          int    `json:"port"`
	User          string `json:"user,omitempty"`
	SSHPort       int    `json:"sshPort,omitempty"`
	SSHUser       string `json:"sshUser,omitempty"`
	HasCredential bool   `json:"hasCredential"`
	Record        bool   `json:"record,omitempty"` // every session is recorded
	Source        string `json:"source"`           // saved, ssh_config, mdns
}

// Group is an open group.
type Group struct {
	GroupID string        `json:"groupId"`
	Size    int           `json:"size"`
	Members []GroupMember `json:"members,omitzero"`
}

// GroupMember is one member of a group.
type GroupMember struct {
	Index  int    `json:"index"`
	LimbID string `json:"limbId"`
	Host   string `json:"host"`
	State  string `json:"state"`
	Kept   string `json:"kept,omitempty"` // group_close/shrink: why this member's limb stayed open
}

// MemberResult is one member's answer inside group_run.
type MemberResult struct {
	Index  int    `json:"index"`
	LimbID string `json:"limbId"`
	// Response is the member's answer line, without an id: its op's
	// answer, or a failure (Reply reads it; AnswerOf decodes it by op).
	Response json.RawMessage `json:"response"`
}

// Reply reads the member's answer line.
func (m MemberResult) Reply() (*Reply, error) {
	if len(m.Response) == 0 || string(m.Response) == "null" {
		return nil, fmt.Errorf("wire: member %d has no answer", m.Index)
	}
	return ReadReply(m.Response)
}

// TokenInfo describes a token without its secret.
type TokenInfo struct {
	ID      string   `json:"id"`
	Role    string   `json:"role"`
	Caps    []string `json:"caps"`
	Created int64    `json:"created"`
	Label   string   `json:"label,omitempty"`
}

// HistoryEntry is one past operation on a limb. It never holds typed text,
// pixels or secrets.
type HistoryEntry struct {
	Seq        uint64 `json:"seq"`
	Op         string `json:"op"`
	Attachment string `json:"attachment"`
	Outcome    string `json:"outcome"` // "ok" or an error code
	Detail     string `json:"detail,omitempty"`
	StartedMs  int64  `json:"startedMs"` // unix milliseconds
	ElapsedMs  int64  `json:"elapsedMs"`
}

// Event is pushed to subscribers.
type Event struct {
	Kind   string `json:"kind"` // limb.state, limb.resize, lease, op.start, op.end
	LimbID string `json:"limbId,omitempty"`
	Detail string `json:"detail,omitempty"`
	Seq    uint64 `json:"seq"`
	AtUs   int64  `json:"atUs"` // unix microseconds
}
