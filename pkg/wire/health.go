package wire

// Health states, from best to worst. A check that could not run (nothing to
// check, or a feature turned off) is "skip", never a silent "ok".
const (
	HealthOK   = "ok"
	HealthSkip = "skip"
	HealthWarn = "warn"
	HealthFail = "fail"
)

// HealthCheck is one line of `dvv doctor`: what was checked, how it went,
// what was seen, and what to do about it when it is not ok.
type HealthCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	Fix    string `json:"fix,omitempty"`
}

// DaemonReport is what only dvvd knows for a bug report: how it was built
// and started, and what it logged last.
type DaemonReport struct {
	Version  string            `json:"version"`
	Go       string            `json:"go"`
	OS       string            `json:"os"` // GOOS/GOARCH and kernel release
	PID      int               `json:"pid"`
	UptimeMs int64             `json:"uptimeMs"`
	Config   map[string]string `json:"config"`
	Log      []string          `json:"log"` // oldest first
}
