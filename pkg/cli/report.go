package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os/user"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/redact"
	"github.com/dvvhq/dvv/pkg/wire"
)

func reportCmd(e *env) *cobra.Command {
	var out string
	var redactPaths bool
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Write a bug-report bundle (.tar.gz) without secrets",
		Long: "report gathers what a maintainer needs to understand a problem: versions and OS, dvvd's\n" +
			"configuration, uptime and last log lines, `dvv doctor`'s checks, saved hosts (never their\n" +
			"passwords), every limb's observation, signals (negotiated protocol details) and operation history.\n" +
			"Every file passes through the same secret scanner dvv's tests use; what it masks is counted in\n" +
			"SUMMARY.txt. The bundle is meant to be shared, so by default (--redact-paths) local paths become\n" +
			"<path-N>, addresses and host names other than loopback <addr-N>, and your login and saved hosts'\n" +
			"user names <user-N>, the same N for the same one in\n" +
			"every file; --redact-paths=false keeps them, for a bundle you keep private. README.txt in the\n" +
			"bundle says which was chosen. Read the bundle before you post it publicly.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = "dvv-report-" + time.Now().UTC().Format("20060102-150405") + ".tar.gz"
			}
			b := e.gatherReport()
			b.redactPlaces = redactPaths
			data, masked, err := b.pack()
			if err != nil {
				return localErr(wire.Internal, "packing the report: %v", err)
			}
			if err := writeLocal(out, data); err != nil { // 0600, whole or not at all
				return err
			}
			if e.json {
				e.printJSON(struct {
					Result      string `json:"result"`
					Out         string `json:"out"`
					Files       int    `json:"files"`
					Bytes       int    `json:"bytes"`
					Masked      int    `json:"masked"`
					RedactPaths bool   `json:"redactPaths"`
					Paths       int    `json:"paths"`     // distinct paths masked
					Addresses   int    `json:"addresses"` // distinct addresses masked
					Users       int    `json:"users"`     // distinct user names masked
				}{"report", out, len(b.files), len(data), masked, redactPaths, b.places.counts["path"], b.places.counts["addr"], b.places.counts["user"]})
				return nil
			}
			places := "paths and addresses kept (--redact-paths=false)"
			if redactPaths {
				places = fmt.Sprintf("%d paths, %d addresses and %d user names masked", b.places.counts["path"], b.places.counts["addr"], b.places.counts["user"])
			}
			fmt.Fprintf(e.stdout, "wrote %s (%d files, %d bytes; %d secret-looking strings masked; %s)\n", out, len(b.files), len(data), masked, places)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the bundle's path (default dvv-report-<time>.tar.gz here)")
	cmd.Flags().BoolVar(&redactPaths, "redact-paths", true, "mask local paths, non-loopback addresses, host names and user names (false: keep them, for a bundle you keep private)")
	return cmd
}

// bundle is the report's files, by name, in the order they were added.
type bundle struct {
	names []string
	files map[string][]byte
	// redactPlaces masks paths and addresses (--redact-paths); places
	// knows the host names to mask and counts what it masked.
	redactPlaces bool
	places       *placeMasker
}

func (b *bundle) add(name string, v any) {
	data, ok := v.([]byte)
	if !ok {
		data, _ = json.MarshalIndent(v, "", "  ")
		data = append(data, '\n')
	}
	if b.files == nil {
		b.files = map[string][]byte{}
	}
	if _, dup := b.files[name]; !dup {
		b.names = append(b.names, name)
	}
	b.files[name] = data
}

// failure records an op that did not answer, in place of its file.
func failure(err error) map[string]string {
	if we, ok := err.(*wire.Error); ok {
		return map[string]string{"code": string(we.Code), "message": we.Message}
	}
	return map[string]string{"error": err.Error()}
}

// gatherReport asks dvvd for everything the bundle holds; what it cannot
// get is recorded as a failure in its place, so a report of a broken setup
// still says what broke.
func (e *env) gatherReport() *bundle {
	b := &bundle{places: newPlaceMasker()}
	if u, err := user.Current(); err == nil {
		b.places.knowUser(u.Username) // the login name, wherever a log line or status says it
	}
	ctx, cancel := context.WithTimeout(e.ctx, 60*time.Second)
	defer cancel()
	versions := map[string]any{"dvv": Version, "protocol": wire.ProtocolVersion, "go": runtime.Version(),
		"os": runtime.GOOS + "/" + runtime.GOARCH, "created": time.Now().UTC().Format(time.RFC3339)}
	b.add("doctor.json", e.doctor())
	// An attachment of its own, ended when the report is done: naming an
	// available limb attaches it, and that must not stick to this shell.
	c, err := client.Dial(ctx, e.socketPath(), client.Options{Name: "report", Token: e.getenv("DVV_TOKEN")})
	if err != nil {
		versions["dvvd"] = failure(err)
		b.add("versions.json", versions)
		return b
	}
	defer c.Close()
	versions["dvvd"] = c.Info
	b.add("versions.json", versions)
	// put adds what pick takes from an answer, or why there is none.
	put := func(name string, err error, pick func() any) {
		if err != nil {
			b.add(name, failure(err))
			return
		}
		b.add(name, pick())
	}
	rep, err := c.Report(ctx, wire.ReportArgs{})
	put("daemon.json", err, func() any { return rep.Report })
	hs, err := c.Hosts(ctx, wire.HostsArgs{})
	put("hosts.json", err, func() any {
		for _, h := range hs.Hosts {
			b.places.knowAddress(h.Address)
			b.places.knowUser(h.User)
			b.places.knowUser(h.SSHUser)
			if h.Source == hosts.SourceSSHConfig {
				b.places.knowAddress(h.Name) // an alias names a machine as well as its address does
			}
		}
		return hs.Hosts
	})
	resp, err := c.Limbs(ctx, wire.LimbsArgs{})
	if err != nil {
		b.add("limbs.json", failure(err))
		return b
	}
	b.add("limbs.json", map[string]any{"limbs": resp.Limbs, "available": resp.Available})
	// Reading a limb's status or signals attaches nothing and takes no lease.
	for _, l := range append(append([]wire.LimbSummary{}, resp.Limbs...), resp.Available...) {
		b.places.knowAddress(l.Address)
		dir := "limbs/" + l.LimbID + "/"
		target := wire.Target{LimbID: l.LimbID}
		st, err := c.Status(ctx, wire.StatusArgs{Target: target})
		put(dir+"status.json", err, func() any { return st.Observation })
		sg, err := c.Signals(ctx, wire.SignalsArgs{Target: target})
		put(dir+"signals.json", err, func() any { return sg.Signals })
		hi, err := c.History(ctx, wire.HistoryArgs{Target: target})
		put(dir+"history.json", err, func() any { return hi.History })
	}
	return b
}

// pack scrubs every file and writes them as a gzip'd tar; it returns how
// many secret-looking strings it masked.
func (b *bundle) pack() ([]byte, int, error) {
	scan := redact.New()
	masked := 0
	var kinds []string
	for _, n := range b.names {
		clean, found := scan.Scrub(b.files[n])
		if b.redactPlaces {
			clean = b.places.mask(clean)
		}
		b.files[n] = clean
		masked += len(found)
		for _, f := range found {
			kinds = append(kinds, fmt.Sprintf("%s: %s at byte %d", n, f.Kind, f.Offset))
		}
	}
	summary := "dvv bug report\n\nFiles:\n"
	for _, n := range b.names {
		summary += fmt.Sprintf("  %-36s %d bytes\n", n, len(b.files[n]))
	}
	summary += fmt.Sprintf("\nSecret-looking strings masked: %d\n", masked)
	for _, k := range kinds {
		summary += "  " + k + "\n"
	}
	b.add("SUMMARY.txt", []byte(summary))
	b.add("README.txt", []byte(b.readme()))

	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	now := time.Now()
	for _, n := range b.names {
		data := b.files[n]
		hdr := &tar.Header{Name: "dvv-report/" + n, Mode: 0o600, Size: int64(len(data)), ModTime: now, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, 0, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, 0, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, 0, err
	}
	if err := gz.Close(); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), masked, nil
}

// readme says what the bundle leaves out, and how to make one that keeps
// it: the choice travels with the bundle.
func (b *bundle) readme() string {
	s := "dvv bug report, written by `dvv report` to be attached to a bug report.\n\n" +
		"What every file had masked:\n" +
		"  secrets: masked (dvv tokens, private keys, passwords; always; counted in SUMMARY.txt)\n"
	if b.redactPlaces {
		s += fmt.Sprintf("  paths: masked (%d local file and socket paths are <path-N>)\n", b.places.counts["path"]) +
			fmt.Sprintf("  addresses: masked (%d IP addresses and host names are <addr-N>; loopback and ports stay)\n", b.places.counts["addr"]) +
			fmt.Sprintf("  user names: masked (%d: your login and saved hosts' users are <user-N>; root stays)\n", b.places.counts["user"]) +
			"The same N is the same path or address in every file. This is the default (--redact-paths),\n" +
			"for a bundle meant to be shared. `dvv report --redact-paths=false` keeps paths and addresses,\n" +
			"for a bundle you keep private or give only to someone you trust.\n"
	} else {
		s += "  paths: kept (--redact-paths=false was given)\n" +
			"  addresses: kept (--redact-paths=false was given)\n" +
			"  user names: kept (--redact-paths=false was given)\n" +
			"This bundle names local paths, addresses, host names and users: keep it private. Without\n" +
			"--redact-paths=false, `dvv report` masks them, for a bundle meant to be shared.\n"
	}
	return s + "\nNever in a bundle: screenshots, and the passwords saved in the keychain (hosts.json says\n" +
		"only whether one is saved).\n"
}
