package wire

// ObservationSchema names the observation object's version.
const ObservationSchema = "dvv.observation.v1"

// Limb states.
const (
	StateConnecting   = "connecting"
	StateConnected    = "connected"
	StateReconnecting = "reconnecting"
	StateStalled      = "stalled" // connected, but the server answers nothing: pixels may be stale
	StateFailed       = "failed"
	StateExited       = "exited" // a terminal's shell ended; reconnect opens a new one
	StateClosed       = "closed"
)

// Protocols.
const (
	ProtoVNC = "vnc"
	ProtoRDP = "rdp"
	ProtoSSH = "ssh"
)

// Observation is the dvv.observation.v1 object: everything cheap to know
// about one limb. It reads no pixels.
type Observation struct {
	Schema      string     `json:"schema"`
	LimbID      string     `json:"limbId"`
	Protocol    string     `json:"protocol"`
	Kind        string     `json:"kind"` // desktop or terminal
	Address     string     `json:"address"`
	Port        int        `json:"port"`
	Slot        int        `json:"slot"`
	State       string     `json:"state"`
	Perceive    bool       `json:"perceive"`
	Size        Size       `json:"size"`
	Geometry    Geometry   `json:"geometry"`
	Coverage    float64    `json:"coverage"`
	Lease       Lease      `json:"lease"`
	Signals     Signals    `json:"signals"`
	Fence       *Fence     `json:"fence,omitempty"` // this attachment's typing fence (desktop limbs)
	DesktopName string     `json:"desktopName,omitempty"`
	Reconnects  int        `json:"reconnects"`
	LastError   *LimbError `json:"lastError,omitempty"`
	// LastChangeMs is how long ago the screen (or terminal) last changed.
	LastChangeMs int64 `json:"lastChangeMs"`
	// Machine is the last act on the limb's machine that changed what its
	// screen shows (a restore, a reset): why the fence armed and the
	// generation moved on. Absent when none was made through dvv.
	Machine *MachineEvent `json:"machine,omitempty"`
	// Guest is what the machine said of itself when the limb's channel
	// into it (its SSH connection, a desktop's files sidecar) connected.
	Guest *GuestFacts `json:"guest,omitempty"`
}

// GuestFacts are a machine's own facts, asked once when a channel into it
// connects (uname and id over SSH).
type GuestFacts struct {
	OS       string `json:"os,omitempty"`       // uname -s, lower case: linux, darwin, freebsd
	Arch     string `json:"arch,omitempty"`     // uname -m: x86_64, aarch64
	Hostname string `json:"hostname,omitempty"` // uname -n
	User     string `json:"user,omitempty"`     // id -un: who commands run as
	Kernel   string `json:"kernel,omitempty"`   // uname -r
	Via      string `json:"via"`                // ssh or sidecar
	Note     string `json:"note,omitempty"`     // why a fact is missing
}

// Geometry is the framebuffer size and its generation: it starts at 1 and
// rises by one on every size change.
type Geometry struct {
	Generation uint64 `json:"generation"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
}

// Lease says who may act on a limb.
type Lease struct {
	Holder        string `json:"holder,omitempty"` // attachment name; "" when free
	Held          bool   `json:"held"`             // held by the asking attachment
	HumanTookOver bool   `json:"human_took_over"`
	Reason        string `json:"reason,omitempty"`
	SinceMs       int64  `json:"sinceMs,omitempty"` // unix milliseconds
	ExpiresMs     int64  `json:"expiresMs,omitempty"`
}

// Fence is the asking attachment's typing-fence state.
type Fence struct {
	Armed     bool    `json:"armed"` // type/key would answer SCREEN_CHANGED now
	Reason    string  `json:"reason,omitempty"`
	Damage    float64 `json:"damage"`    // share of the frame repainted since the last read
	Threshold float64 `json:"threshold"` // share above which the fence arms
	NeverRead bool    `json:"neverRead,omitempty"`
}

// LimbError is why a limb is reconnecting or failed.
type LimbError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	AtMs    int64  `json:"atMs"`
	// Next is the failure's own hint when it has one (HOSTKEY_UNKNOWN: the
	// exact trust command); Fingerprint is what the server presented.
	Next        string `json:"next,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Signal states.
const (
	SignalLive    = "live"
	SignalAbsent  = "absent"
	SignalUnknown = "unknown"
)

// Signal names.
const (
	SigLEDState        = "led_state"
	SigWindowStructure = "window_structure"
	SigClipboard       = "clipboard"
	SigCursorShape     = "cursor_shape"
	SigDesktopResize   = "desktop_resize"
	SigBell            = "bell"
	SigKeyScancodes    = "key_scancodes"
	SigContinuous      = "continuous_updates"
	SigDecodeBudget    = "decode_budget"
	SigExitStatus      = "exit_status"
	SigTitle           = "title"
	// SigSession is what the session negotiated: protocol version, security
	// type, and the encodings the server actually used (VNC) or its colour
	// depth and output path (RDP).
	SigSession = "session"
)

// Signals maps a signal name to its state.
type Signals map[string]Signal

// Signal is one negotiated capability of the session.
type Signal struct {
	State  string         `json:"state"`
	Reason string         `json:"reason,omitempty"`
	Value  map[string]any `json:"value,omitempty"`
}
