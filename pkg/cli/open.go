package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/hosts"
	"github.com/dvvhq/dvv/pkg/wire"
)

func openCmd(e *env) *cobra.Command {
	var o openOptions
	cmd := &cobra.Command{
		Use:   "open <address|hostId>",
		Short: "Open a limb to a machine (an address with --protocol, or a saved host)",
		Long: "Open a limb to a machine and print its limb id on stdout (LIMB=$(dvv open …)).\n\n" +
			"The argument is an address when --protocol is given or when it starts with vnc://, rdp://,\n" +
			"ssh://, ws:// or wss:// (ws and wss mean VNC over WebSocket); a port may follow the host\n" +
			"(127.0.0.1:5951, [::1]:5900) or come from --port, and an SSH user may come before it\n" +
			"(pat@build.lan, ssh://pat@build.lan) or from --user. A VNC address also takes vncviewer's forms:\n" +
			"HOST::PORT is a port, and HOST:N with N below 100 is display N, port 5900+N (open says so;\n" +
			"vnc://HOST:N and --port N are always port N). Otherwise it names a saved host (its id\n" +
			"or name, see `dvv hosts`). open returns once the limb is connected, in a terminal and in a\n" +
			"pipe alike, or fails with the limb's coded error (UNREACHABLE, AUTH_FAILED…) and closes the\n" +
			"limb it made (--keep leaves it retrying). With --wait=false it returns at once, while the\n" +
			"limb connects (dvvd keeps retrying until `dvv close`).",
		Example: "  LIMB=$(dvv open 127.0.0.1:5951 --protocol vnc --perceive)\n  dvv open vnc://lab.local --perceive\n" +
			"  dvv open lab.local::5960 --protocol vnc      # vncviewer's HOST::PORT\n  dvv open lab.local:1 --protocol vnc          # display 1, port 5901\n" +
			"  printf '%s\\n' \"$PW\" | dvv open 10.0.0.5 --protocol vnc --password-stdin\n" +
			"  dvv open pat@build.lan --protocol ssh\n  dvv open lab --wait=false",
		Args: exactArgs(1, "open needs one address or saved host"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := o.request(args[0], cmd.Flags().Changed("port"), cmd.Flags().Changed("slot"))
			if err != nil {
				return err
			}
			// Read only after the arguments checked out, so a usage error
			// never consumes a password piped in. It goes to dvvd in the
			// request, never on a command line, and is kept there in the
			// limb's memory for reconnects only.
			if o.passwordStdin {
				if req.Password, err = e.readPassword(); err != nil {
					return err
				}
			}
			if o.wait {
				return e.openAndWait(req, o.waitTimeout, o.keep)
			}
			if cmd.Flags().Changed("keep") {
				return usageErr("--keep goes with waiting; with --wait=false the limb is always left connecting")
			}
			resp, err := request(e, (*client.Client).Open, req)
			if err != nil || !e.human() {
				return err
			}
			fmt.Fprintln(e.stdout, resp.LimbID)
			if o := resp.Observation; o != nil {
				fmt.Fprintf(e.stderr, "opened %s %s slot %d%s, state %s; next: dvv wait %s --until connected\n",
					o.Protocol, endpoint(o.Address, o.Port), o.Slot, noteSuffix(resp.Dispatched), o.State, resp.LimbID)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.protocol, "protocol", "", wire.ProtocolChoice()+" (the argument is then an address)")
	f.IntVar(&o.port, "port", 0, "port (default "+wire.DefaultPorts()+")")
	f.StringVar(&o.user, "user", "", "SSH user (the same as user@ in the address)")
	f.IntVar(&o.slot, "slot", 0, "0 attaches to what is live; above 0 opens a fresh session (RDP, SSH)")
	f.BoolVar(&o.perceive, "perceive", false, "keep a framebuffer mirror so screen reads and screen waits work")
	f.BoolVar(&o.passwordStdin, "password-stdin", false, "read the machine's password from stdin (one line) for this limb only: dvvd keeps it in memory for reconnects and never stores it; save it with `dvv hosts add` instead to reuse it")
	f.BoolVar(&o.wait, "wait", true, "return once connected, or with the coded error; --wait=false returns at once")
	f.StringVar(&o.machine, "machine", "", "the machine's hypervisor side, for `dvv machine`: qmp:/path/qmp.sock, qmp+ssh://user@host/path or libvirt:DOMAIN[?uri=…] (docs/machines.md)")
	f.BoolVar(&o.keep, "keep", false, "when the wait fails, leave the limb retrying instead of closing it")
	f.DurationVar(&o.waitTimeout, "wait-timeout", 30*time.Second, "how long open waits for the first connection")
	return cmd
}

type openOptions struct {
	passwordStdin bool
	protocol      string
	port          int
	user          string
	slot          int
	perceive      bool
	wait          bool
	keep          bool
	waitTimeout   time.Duration
	machine       string
}

// request decides whether the argument is an address or a saved host and
// builds the open request. An address is taken apart here as dvvd does
// (hosts.ParseAddress), so a mistake is refused before anything is sent;
// an SSH user (user@host, ssh://user@host or --user) travels in the
// address, where dvvd takes it out again.
func (o *openOptions) request(arg string, portSet, slotSet bool) (wire.OpenArgs, error) {
	if err := hosts.CheckAddress(arg); err != nil {
		return wire.OpenArgs{}, err // before anything echoes or sends it
	}
	req := wire.OpenArgs{Machine: o.machine}
	if slotSet {
		req.Slot = intp(o.slot)
	}
	if o.perceive {
		req.Perceive = &o.perceive
	}
	proto := o.protocol
	if scheme, _, ok := strings.Cut(arg, "://"); ok {
		scheme = strings.ToLower(scheme)
		_, isProto := wire.Protocol(scheme)
		switch {
		case isProto:
			if proto != "" && proto != scheme {
				return wire.OpenArgs{}, usageErr("%s:// conflicts with --protocol %s", scheme, proto)
			}
			proto = scheme
		case scheme == "ws" || scheme == "wss":
			if proto != "" && proto != wire.ProtoVNC {
				return wire.OpenArgs{}, usageErr("%s:// endpoints are VNC over WebSocket; --protocol %s does not apply", scheme, proto)
			}
			if portSet {
				return wire.OpenArgs{}, usageErr("give the port inside the %s:// URL, not with --port", scheme)
			}
			proto = wire.ProtoVNC
		default:
			return wire.OpenArgs{}, usageErr("unknown scheme %s:// (use %s, ws or wss)", scheme, strings.Join(wire.ProtocolNames(), ", "))
		}
	}
	if proto == "" {
		return o.savedHost(req, arg, portSet)
	}
	if _, ok := wire.Protocol(proto); !ok {
		return wire.OpenArgs{}, usageErr("--protocol must be %s, not %q", wire.ProtocolChoice(), proto)
	}
	ep, err := hosts.ParseAddress(proto, arg)
	if err != nil {
		return wire.OpenArgs{}, err
	}
	req.Protocol = proto
	if ep.URL != "" {
		if o.user != "" {
			return wire.OpenArgs{}, usageErr("--user does not apply to a %s URL; save the machine with `dvv hosts add --user`", proto)
		}
		req.Address = ep.URL
		return req, nil
	}
	if ep.Note != "" && !portSet && o.user == "" {
		// HOST:N, a VNC display: dvvd reads it as the same port and says
		// so in its answer (dispatched), for --json too.
		req.Address = arg
		return req, nil
	}
	port := ep.Port
	if portSet {
		if port != 0 && port != o.port {
			return wire.OpenArgs{}, usageErr("port %d in the address conflicts with --port %d", port, o.port)
		}
		port = o.port
	}
	if port != 0 {
		req.Port = intp(port)
	}
	user, err := o.userFor(proto, ep.User)
	if err != nil {
		return wire.OpenArgs{}, err
	}
	req.Address = ep.Host
	if user != "" {
		req.Address = user + "@" + ep.Host
	}
	return req, nil
}

// noteSuffix is open's dispatched note (e.g. "display 60 → port 5960") in
// parentheses, or nothing.
func noteSuffix(dispatched string) string {
	if dispatched == "" {
		return ""
	}
	return " (" + dispatched + ")"
}

// savedHost builds the request for an argument that names a saved host.
func (o *openOptions) savedHost(req wire.OpenArgs, arg string, portSet bool) (wire.OpenArgs, error) {
	if portSet {
		return wire.OpenArgs{}, usageErr("--port needs an address with --protocol; a saved host carries its own port")
	}
	if strings.Contains(arg, "@") {
		return wire.OpenArgs{}, usageErr("%q looks like user@host: add --protocol ssh (or write ssh://%s)", arg, arg)
	}
	if o.user != "" {
		return wire.OpenArgs{}, usageErr("--user needs an address with --protocol ssh; a saved host carries its own user")
	}
	if _, _, err := splitHostPort(arg); err == nil && strings.Contains(arg, ":") {
		return wire.OpenArgs{}, usageErr("%q looks like an address: add --protocol %s (or write vnc://%s)", arg, strings.Join(wire.ProtocolNames(), "|"), arg)
	}
	req.HostID = arg
	return req, nil
}

// userFor is the SSH user of an open: from the address or --user (which
// must agree). VNC and RDP take a user from a saved host only.
func (o *openOptions) userFor(proto, inAddress string) (string, error) {
	user := inAddress
	if o.user != "" {
		if err := hosts.CheckUser(o.user); err != nil {
			return "", err
		}
		if user != "" && user != o.user {
			return "", usageErr("the user in the address conflicts with --user %s", o.user)
		}
		user = o.user
	}
	if user != "" && proto != wire.ProtoSSH {
		return "", usageErr("--user applies to SSH addresses; for %s save the machine with `dvv hosts add NAME --user U …` and open NAME", proto)
	}
	return user, nil
}

// splitHostPort accepts host, host:port, [v6] and [v6]:port. A bare IPv6
// address without brackets is taken whole, as a host.
func splitHostPort(s string) (string, int, error) {
	if s == "" {
		return "", 0, usageErr("the address is empty")
	}
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, usageErr("%q: missing ]", s)
		}
		host, rest := s[1:end], s[end+1:]
		if rest == "" {
			return host, 0, nil
		}
		if !strings.HasPrefix(rest, ":") {
			return "", 0, usageErr("%q: expected :port after ]", s)
		}
		p, err := parsePort(rest[1:])
		return host, p, err
	}
	if strings.Count(s, ":") == 1 {
		host, ps, _ := strings.Cut(s, ":")
		if host == "" {
			return "", 0, usageErr("%q has no host", s)
		}
		p, err := parsePort(ps)
		return host, p, err
	}
	return s, 0, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, usageErr("port %q is not a number from 1 to 65535", s)
	}
	return p, nil
}
