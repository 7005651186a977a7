package rfb

// Encoding numbers (RFB community registry).
const (
	EncRaw      int32 = 0
	EncCopyRect int32 = 1
	EncRRE      int32 = 2
	EncHextile  int32 = 5
	EncZlib     int32 = 6
	EncTight    int32 = 7
	EncZRLE     int32 = 16

	EncDesktopSize         int32 = -223
	EncLastRect            int32 = -224
	EncCursor              int32 = -239
	EncQEMUPointerMotion   int32 = -257
	EncQEMUExtendedKey     int32 = -258
	EncQEMULEDState        int32 = -261
	EncDesktopName         int32 = -307
	EncExtendedDesktopSize int32 = -308
	EncFence               int32 = -312
	EncContinuousUpdates   int32 = -313
	EncVMwareLEDState      int32 = 0x574d5668
	EncExtendedClipboard   int32 = -1063131698 // 0xC0A1E5CE

	// Tight JPEG quality 0..9 is -32..-23; compression level 0..9 is -256..-247.
	EncTightQuality0  int32 = -32
	EncTightCompress0 int32 = -256
)

// DefaultEncodings is the preference order used when Config.Encodings is
// nil, chosen from the measurements in docs/benchmarks.md ("RFB
// encodings"): CopyRect first (it costs nothing), then the encodings by
// bytes on the wire and decode time for a 1080p desktop.
var DefaultEncodings = []int32{EncCopyRect, EncTight, EncZRLE, EncHextile, EncZlib, EncRRE, EncRaw}

// pseudoEncodings are always advertised after the real ones.
var pseudoEncodings = []int32{
	EncTightCompress0 + 2, // fast zlib levels: CPU matters more than bytes on a LAN
	EncDesktopSize, EncExtendedDesktopSize, EncLastRect, EncCursor,
	EncQEMUExtendedKey, EncQEMULEDState, EncVMwareLEDState, EncDesktopName,
	EncExtendedClipboard, EncFence, EncContinuousUpdates,
}

// EncodingName names an encoding for logs and measurements.
func EncodingName(e int32) string {
	switch e {
	case EncRaw:
		return "Raw"
	case EncCopyRect:
		return "CopyRect"
	case EncRRE:
		return "RRE"
	case EncHextile:
		return "Hextile"
	case EncZlib:
		return "Zlib"
	case EncTight:
		return "Tight"
	case EncZRLE:
		return "ZRLE"
	}
	return "unknown"
}

// Message types.
const (
	msgFramebufferUpdate   = 0
	msgSetColourMapEntries = 1
	msgBell                = 2
	msgServerCutText       = 3
	msgEndOfContinuous     = 150
	msgServerFence         = 248
	msgQEMUServer          = 255

	cmsgSetPixelFormat   = 0
	cmsgSetEncodings     = 2
	cmsgUpdateRequest    = 3
	cmsgKeyEvent         = 4
	cmsgPointerEvent     = 5
	cmsgClientCutText    = 6
	cmsgEnableContinuous = 150
	cmsgClientFence      = 248
	cmsgQEMUClient       = 255
	qemuExtendedKeyEvent = 0
)

// Bounds on server-controlled lengths.
const (
	// MaxCutText caps clipboard text in either direction (10 MiB).
	MaxCutText    = 10 << 20
	maxNameLen    = 4096
	maxReasonLen  = 4096
	maxCursorSide = 512
)
