package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

func hostsCmd(e *env) *cobra.Command {
	var discovered bool
	cmd := &cobra.Command{
		Use:   "hosts",
		Short: "List saved machines (and ~/.ssh/config hosts); --discovered for what mDNS found",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			resp, err := request(e, (*client.Client).Hosts, wire.HostsArgs{Discovered: discovered})
			if err != nil || !e.human() {
				return err
			}
			list := resp.Hosts
			if discovered {
				list = resp.Discovered
			}
			if len(list) == 0 {
				if discovered {
					fmt.Fprintln(e.stdout, "nothing discovered")
				} else {
					fmt.Fprintln(e.stdout, "no saved hosts; add one with `dvv hosts add`")
				}
			} else {
				printHosts(e, list)
			}
			if resp.DiscoveryNote != "" {
				fmt.Fprintln(e.stderr, "discovery:", oneLine(resp.DiscoveryNote))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&discovered, "discovered", false, "list the machines discovery (mDNS) has seen")
	cmd.AddCommand(hostsAddCmd(e), hostsRmCmd(e), hostsTrustCmd(e))
	return cmd
}

func printHosts(e *env, list []wire.Host) {
	t := newTable(e.stdout, "ID", "NAME", "PROTO", "ENDPOINT", "USER", "SSH", "CREDENTIAL", "SOURCE")
	for _, h := range list {
		ssh := "-"
		if h.SSHPort != 0 || h.SSHUser != "" {
			ssh = strings.TrimPrefix(h.SSHUser+"@", "@") + "port " + strconv.Itoa(h.SSHPort)
			if h.SSHPort == 0 {
				ssh = h.SSHUser
			}
		}
		t.row(h.ID, h.Name, h.Protocol, endpoint(h.Address, h.Port), orDash(h.User), ssh, yesNo(h.HasCredential), h.Source)
	}
	t.flush()
}

type hostAddOptions struct {
	address, protocol, user, domain, sshUser string
	note                                     string // how a VNC display became the port
	record                                   bool
	machine                                  string
	port, sshPort                            int
	passwordStdin                            bool
}

func hostsAddCmd(e *env) *cobra.Command {
	var o hostAddOptions
	cmd := &cobra.Command{
		Use:   "add <name> --address A --protocol " + strings.Join(wire.ProtocolNames(), "|"),
		Short: "Save a machine; --password-stdin stores its password in the keychain",
		Long: "Save a machine under a name. With --password-stdin the password is read from stdin (one line;\n" +
			"typing is not echoed on a terminal), sent to dvvd in this one request, and stored in the\n" +
			"keychain; where no keychain answers (a server, a container, CI), dvvd stores it in\n" +
			"~/.config/dvv/credentials (mode 0600, read only by dvvd) instead and says so. It is never\n" +
			"printed or logged. For a VNC address, HOST::PORT is a port and HOST:N below 100 display N.",
		Example: "  printf '%s\\n' \"$PW\" | dvv hosts add lab --address 10.0.0.5 --protocol vnc --password-stdin\n" +
			"  dvv hosts add build --address build.lan --protocol ssh --user ci",
		Args: exactArgs(1, "hosts add needs a name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := o.request(args[0])
			if err != nil {
				return err
			}
			// Read only after the flags checked out, so a usage error never
			// consumes (or echoes) a password piped in.
			if o.passwordStdin {
				pw, err := e.readPassword()
				if err != nil {
					return err
				}
				req.Password = pw
			}
			resp, err := request(e, (*client.Client).HostAdd, req)
			if err != nil || !e.human() {
				return err
			}
			printHosts(e, resp.Hosts)
			if resp.Dispatched != "" {
				fmt.Fprintln(e.stderr, resp.Dispatched)
			}
			if o.note != "" {
				fmt.Fprintf(e.stderr, "%s: %s\n", o.address, o.note)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.address, "address", "", "host name or IP, optionally with :PORT (or a ws:// URL for VNC; for VNC HOST::PORT is a port and HOST:N below 100 display N, port 5900+N) (required)")
	f.IntVar(&o.port, "port", 0, "port (default by protocol)")
	f.StringVar(&o.protocol, "protocol", "", wire.ProtocolChoice()+" (required)")
	f.StringVar(&o.user, "user", "", "user name (RDP, SSH, VeNCrypt Plain)")
	f.StringVar(&o.domain, "domain", "", "RDP domain")
	f.BoolVar(&o.passwordStdin, "password-stdin", false, "read the password from stdin and store it in the keychain")
	f.IntVar(&o.sshPort, "ssh-port", 0, "SSH port of the files sidecar for a desktop machine")
	f.StringVar(&o.sshUser, "ssh-user", "", "SSH user of the files sidecar for a desktop machine")
	f.BoolVar(&o.record, "record", false, "record every session with this machine (dvv record; a desktop then keeps its mirror)")
	f.StringVar(&o.machine, "machine", "", "the machine's hypervisor side, for `dvv machine`: qmp:/path/qmp.sock, qmp+ssh://user@host/path or libvirt:DOMAIN[?uri=…] (docs/machines.md)")
	return cmd
}

// request checks the flags here, before the password is read, and leaves
// the port to dvvd when unset (the protocol's default lives there).
func (o *hostAddOptions) request(name string) (wire.HostAddArgs, error) {
	if err := hosts.CheckAddress(o.address); err != nil {
		return wire.HostAddArgs{}, err
	}
	if o.address == "" {
		return wire.HostAddArgs{}, usageErr("hosts add needs --address")
	}
	if o.protocol == "" {
		return wire.HostAddArgs{}, usageErr("hosts add needs --protocol %s", strings.Join(wire.ProtocolNames(), "|"))
	}
	if _, ok := wire.Protocol(o.protocol); !ok {
		return wire.HostAddArgs{}, usageErr("--protocol must be %s, not %q", wire.ProtocolChoice(), o.protocol)
	}
	for _, u := range []string{o.user, o.sshUser} {
		if err := hosts.CheckUser(u); err != nil {
			return wire.HostAddArgs{}, err
		}
	}
	// The address is taken apart as open does: a port or SSH user written
	// in it goes to --port or --user, never into the host name.
	ep, err := hosts.ParseAddress(o.protocol, o.address)
	if err != nil {
		return wire.HostAddArgs{}, err
	}
	addr, port, user := o.address, o.port, o.user
	o.note = ep.Note
	if ep.URL == "" {
		addr = ep.Host
		if ep.Port != 0 {
			if port != 0 && port != ep.Port {
				return wire.HostAddArgs{}, usageErr("port %d in --address conflicts with --port %d: give the port once (--address HOST --port N)", ep.Port, port)
			}
			port = ep.Port
		}
		if ep.User != "" {
			if user != "" && user != ep.User {
				return wire.HostAddArgs{}, usageErr("the user in --address conflicts with --user %s: give the user once", user)
			}
			user = ep.User
		}
	}
	return wire.HostAddArgs{
		Host: wire.HostSpec{Name: name, Protocol: o.protocol, Address: addr,
			Port: port, User: user, Domain: o.domain, SSHPort: o.sshPort, SSHUser: o.sshUser, Record: o.record, Machine: o.machine},
	}, nil
}

// readPassword reads one line from stdin, without echo when stdin is a
// terminal. The trailing newline is not part of the password.
func (e *env) readPassword() (string, error) {
	if f, ok := e.stdin.(*os.File); ok {
		if restore, err := noEcho(f); err == nil {
			fmt.Fprint(e.stderr, "password: ")
			defer func() { restore(); fmt.Fprintln(e.stderr) }()
		}
	}
	line, err := bufio.NewReaderSize(io.LimitReader(e.stdin, 64<<10), 4096).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", localErr(wire.BadRequest, "read the password from stdin: %v", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", usageErr("--password-stdin read an empty password; pipe it in, e.g. printf '%%s\\n' \"$PW\" | dvv hosts add …")
	}
	return line, nil
}

func hostsRmCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "rm <name|id>",
		Short: "Forget a saved machine and its password (keychain entry, or its line in the credentials file)",
		Args:  exactArgs(1, "hosts rm needs a host name or id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			resp, err := request(e, (*client.Client).HostRemove, wire.HostRemoveArgs{HostID: args[0]})
			if err != nil || !e.human() {
				return err
			}
			for _, h := range resp.Hosts {
				fmt.Fprintf(e.stdout, "removed %s (%s)\n", h.Name, h.ID)
			}
			return nil
		},
	}
}

func hostsTrustCmd(e *env) *cobra.Command {
	var protocol, fingerprint string
	var acceptNew bool
	cmd := &cobra.Command{
		Use:   "trust <address[:port]|hostId>",
		Short: "Trust a machine's SSH host key or TLS certificate (after checking its fingerprint)",
		Long: "Fetch a machine's SSH host key (or a VNC/RDP server's TLS certificate) and trust it: SSH keys go to\n" +
			"~/.ssh/known_hosts, certificates to known_certs in dvv's config directory. A saved host's name (without\n" +
			"--protocol) trusts the protocol, address and port saved under it.\n\n" +
			"With --fingerprint (the one you checked with the machine's owner, as a HOSTKEY_UNKNOWN answer shows\n" +
			"it) the key is written only when the server presents exactly it; any other is refused with\n" +
			"HOSTKEY_CHANGED and nothing is written. Without it, on a terminal the presented fingerprint is shown\n" +
			"and you are asked, as ssh does; elsewhere (a script, an agent) nothing is written and HOSTKEY_UNKNOWN\n" +
			"names the exact command, unless --accept-new says to trust a key nobody checked (OpenSSH's\n" +
			"StrictHostKeyChecking=accept-new). A key or certificate that changed is never replaced by this command.",
		Args: exactArgs(1, "hosts trust needs an address"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, ok := wire.Protocol(protocol); !ok {
				return usageErr("--protocol must be %s, not %q", wire.ProtocolChoice(), protocol)
			}
			if fingerprint != "" && acceptNew {
				return usageErr("give --fingerprint (the one you checked) or --accept-new, not both")
			}
			// The same forms open takes; a user (pat@host) plays no part
			// in a host key.
			ep, err := hosts.ParseAddress(protocol, args[0])
			if err != nil {
				return err
			}
			if ep.URL != "" {
				return usageErr("give the host and port, not a URL: dvv hosts trust HOST:PORT --protocol vnc")
			}
			req := wire.HostTrustArgs{Address: ep.Host, Protocol: protocol, Fingerprint: fingerprint, AcceptNew: acceptNew}
			if ep.Port != 0 {
				req.Port = intp(ep.Port)
			}
			shown := protocol
			var resp *wire.HostTrustAnswer
			if savedName(cmd, args[0], ep) {
				// A saved host's name trusts the endpoint saved under it; a
				// name nothing is saved under is a host name, as before.
				byName := wire.HostTrustArgs{HostID: args[0], Fingerprint: fingerprint, AcceptNew: acceptNew}
				resp, err = request(e, (*client.Client).HostTrust, byName)
				var we *wire.Error
				if !errors.As(err, &we) || we.Code != wire.NotFound {
					req, shown = byName, ""
				}
			}
			if req.HostID == "" {
				resp, err = request(e, (*client.Client).HostTrust, req)
			}
			var unknown *wire.Error
			if errors.As(err, &unknown) && unknown.Code == wire.HostKeyUnknown && unknown.Fingerprint != "" && req.Fingerprint == "" && e.human() {
				if answer, asked := e.askTrust(args[0], shown, unknown.Fingerprint); asked {
					if answer == "" {
						return localErr(wire.HostKeyUnknown, "%s was not trusted; nothing was written", args[0])
					}
					// Sent back as the fingerprint to check: a key the server
					// swapped since it was shown is refused, not written.
					req.Fingerprint = answer
					resp, err = request(e, (*client.Client).HostTrust, req)
				}
			}
			if err != nil || !e.human() {
				return err
			}
			fmt.Fprintln(e.stdout, resp.Dispatched)
			return nil
		},
	}
	cmd.Flags().StringVar(&protocol, "protocol", wire.ProtoSSH, "ssh (host key), vnc or rdp (TLS certificate)")
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "the SHA-256 fingerprint you checked; any other key is refused")
	cmd.Flags().BoolVar(&acceptNew, "accept-new", false, "trust a key nobody checked when none is recorded yet (for scripts)")
	return cmd
}

// savedName reports whether hosts trust's argument may name a saved host:
// a bare name (no port, user or URL) with no --protocol given.
func savedName(cmd *cobra.Command, arg string, ep hosts.Endpoint) bool {
	return !cmd.Flags().Changed("protocol") && ep.Port == 0 && !strings.ContainsAny(arg, ":@/")
}

// askTrust shows the fingerprint a server presents and asks, on the
// terminal stdin is, whether to trust it, as ssh does. asked is false when
// stdin is no terminal. answer is the fingerprint to send: the shown one for
// "yes", one the person typed, or "" for no.
func (e *env) askTrust(address, protocol, presented string) (answer string, asked bool) {
	if r, ok := e.stdin.(io.Writer); !ok || !isTerminal(r) { // a terminal's *os.File reads and writes
		return "", false
	}
	what := "SSH host key"
	switch protocol {
	case wire.ProtoSSH:
	case "": // a saved host's: dvvd knows which
		what = "host key or certificate"
	default:
		what = "TLS certificate"
	}
	fmt.Fprintf(e.stderr, "The %s of %s is not trusted yet.\nIts SHA-256 fingerprint is %s.\n"+
		"Check it with the machine's owner. Trust it (yes/no/[fingerprint])? ", what, address, presented)
	in := bufio.NewReaderSize(io.LimitReader(e.stdin, 4096), 4096)
	for range 3 {
		line, err := in.ReadString('\n')
		line = strings.TrimSpace(line)
		switch {
		case strings.EqualFold(line, "yes"):
			return presented, true
		case strings.EqualFold(line, "no") || err != nil:
			return "", true
		case strings.HasPrefix(line, "SHA256:") || strings.Count(line, ":") >= 31:
			return line, true // dvvd compares it with what the server presents
		}
		fmt.Fprint(e.stderr, "Please type 'yes', 'no' or the fingerprint: ")
	}
	return "", true
}
