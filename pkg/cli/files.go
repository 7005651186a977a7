package cli

import (
	"encoding/base64"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/human"
	"github.com/dvvhq/dvv/pkg/wire"
)

// inlinePutMax bounds `files put -` (stdin), which travels inside the
// request; a local file goes by path instead and dvvd streams it.
const inlinePutMax = client.InlineMax

func filesCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "files",
		Short: "Remote files over SFTP (the SSH connection, or a desktop's SSH sidecar)",
		Long: "Remote paths may start with ~ (the remote user's home). dvv reads and writes local files itself\n" +
			"and the bytes travel inside the request or answer (up to 16 MiB), so dvvd never touches your\n" +
			"directory; a bigger file is streamed by a dvvd on this machine, which needs the local.files\n" +
			"capability and write access to the path. - means stdin for put and stdout for get.\n" +
			"get's copy takes the remote file's permission bits less your umask, as scp does (never\n" +
			"setuid, setgid or sticky), and replaces the local path by a rename: a symlink there is\n" +
			"replaced, not followed.\n\n" +
			"get and put draw a progress bar on stderr when it is a terminal, from the bytes dvvd reports\n" +
			"(none when piped, with --quiet or with --json). Without --timeout a transfer runs as long as\n" +
			"bytes keep moving and stops after 60s without one; --timeout bounds the whole transfer.",
	}
	asGroup(cmd)
	cmd.AddCommand(filesLsCmd(e), filesGetCmd(e), filesPutCmd(e), filesSimpleCmd(e, "mkdir", "mkdir <limbId> <path>", "Make a remote directory"),
		filesRmCmd(e), filesMvCmd(e), filesHomeCmd(e), filesStatCmd(e), filesReadCmd(e))
	return cmd
}

// filesRequest starts a files call of one action on the limb named (its
// files come from the limb's SFTP channel or sidecar).
func filesRequest(limb, action string) (wire.FilesArgs, error) {
	target, err := limbTarget(limb)
	if err != nil {
		return wire.FilesArgs{}, err
	}
	req := wire.FilesArgs{Target: target}
	req.Action = action
	return req, nil
}

func filesLsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "ls <limbId> [path]",
		Short: "List a remote directory (default ~)",
		Args:  rangeArgs(1, 2, "files ls needs a limb id and optionally a path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "list")
			if err != nil {
				return err
			}
			if len(args) == 2 {
				req.Path = args[1]
			}
			resp, err := request(e, (*client.Client).Files, req)
			if err != nil || !e.human() || resp.Files == nil {
				return err
			}
			t := newTable(e.stdout, "KIND", "MODE", "SIZE", "MODIFIED", "NAME")
			for _, f := range resp.Files.Entries {
				mod := "-"
				if f.ModTime > 0 {
					mod = time.Unix(f.ModTime, 0).Format("2006-01-02 15:04")
				}
				t.row(f.Kind, f.Mode, strconv.FormatInt(f.Size, 10), mod, f.Name)
			}
			t.flush()
			return nil
		},
	}
}

func filesGetCmd(e *env) *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "get <limbId> <remote> [local]",
		Short: "Fetch a remote file to a local path (default: its name in the current directory; - for stdout)",
		Args:  rangeArgs(2, 3, "files get needs a limb id, the remote path and optionally the local path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "get")
			if err != nil {
				return err
			}
			req.Path = args[1]
			// Remote paths are POSIX whatever this machine is: path, not filepath.
			local := path.Base(args[1])
			if len(args) == 3 {
				local = args[2]
			}
			if local != "-" {
				if local, err = filepath.Abs(local); err != nil {
					return localErr(wire.BadRequest, "cannot make the local path absolute: %v", err)
				}
				req.To = local
			}
			var resp *wire.FilesAnswer
			err = e.withProgress("get", args[1], quiet, func() (err error) { resp, err = request(e, (*client.Client).Files, req); return err })
			if err != nil || !e.human() || resp.Files == nil {
				return err
			}
			if req.To == "" {
				b, err := base64.StdEncoding.DecodeString(resp.Files.ContentBase64)
				if err != nil {
					return localErr(wire.Internal, "dvvd sent content that is not base64: %v", err)
				}
				e.dataOut().Write(b)
				return nil
			}
			if !quiet {
				fmt.Fprintf(e.stdout, "%s -> %s (%d bytes)\n", args[1], resp.Files.To, resp.Files.Bytes)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar and no summary line")
	return cmd
}

func filesPutCmd(e *env) *cobra.Command {
	var mode string
	var quiet, appendTo bool
	cmd := &cobra.Command{
		Use:   "put <limbId> <local> <remote>",
		Short: "Send a local file (or - for stdin) to a remote path",
		Args:  exactArgs(3, "files put needs a limb id, the local path and the remote path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "put")
			if err != nil {
				return err
			}
			req.Path, req.Append = args[2], appendTo
			if cmd.Flags().Changed("mode") {
				m, err := parseMode(mode)
				if err != nil {
					return err
				}
				req.Mode = &m
			}
			if args[1] == "-" {
				// One byte over the limit is enough to know stdin is too big,
				// without reading all of it into memory.
				b, err := io.ReadAll(io.LimitReader(e.stdin, inlinePutMax+1))
				if err != nil {
					return localErr(wire.BadRequest, "read stdin: %v", err)
				}
				if len(b) > inlinePutMax {
					return localErr(wire.TooLarge, "stdin carries more than %d bytes; put a local file by path instead", inlinePutMax)
				}
				req.ContentBase64 = base64.StdEncoding.EncodeToString(b)
			} else if req.From, err = filepath.Abs(args[1]); err != nil {
				return localErr(wire.BadRequest, "cannot make the local path absolute: %v", err)
			}
			var resp *wire.FilesAnswer
			err = e.withProgress("put", args[1], quiet, func() (err error) { resp, err = request(e, (*client.Client).Files, req); return err })
			if err != nil || !e.human() || resp.Files == nil || quiet {
				return err
			}
			fmt.Fprintf(e.stdout, "%s -> %s (%d bytes)\n", args[1], args[2], resp.Files.Bytes)
			return nil
		},
	}
	cmd.Flags().StringVar(&mode, "mode", "0644", "permission bits, octal (with --append: set only when given)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar and no summary line")
	cmd.Flags().BoolVar(&appendTo, "append", false, "add to the end of the remote file (created when missing) instead of replacing it")
	return cmd
}

func filesStatCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "stat <limbId> <path>",
		Short: "Describe a remote path as stat(1) does: kind, size, mode, owner uid/gid, modified (a link itself, not its target)",
		Args:  exactArgs(2, "files stat needs a limb id and the remote path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "stat")
			if err != nil {
				return err
			}
			req.Path = args[1]
			resp, err := request(e, (*client.Client).Files, req)
			if err != nil || !e.human() || resp.Files == nil || resp.Files.Stat == nil {
				return err
			}
			st := resp.Files.Stat
			fmt.Fprintf(e.stdout, "path: %s\nkind: %s\nsize: %d\nmode: %s\nuid: %d\ngid: %d\nmodified: %s\n",
				st.Path, st.Kind, st.Size, st.Mode, st.UID, st.GID, time.Unix(st.ModTime, 0).UTC().Format(time.RFC3339))
			if st.Target != "" {
				fmt.Fprintf(e.stdout, "target: %s\n", st.Target)
			}
			return nil
		},
	}
}

func filesReadCmd(e *env) *cobra.Command {
	var offset, length int64
	cmd := &cobra.Command{
		Use:   "read <limbId> <path> [--offset N] [--length N]",
		Short: "Print a range of a remote file to stdout: --length bytes from --offset (at most 16 MiB)",
		Args:  exactArgs(2, "files read needs a limb id and the remote path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "get")
			if err != nil {
				return err
			}
			req.Path = args[1]
			req.Offset = &offset
			if cmd.Flags().Changed("length") {
				req.Length = &length
			}
			resp, err := request(e, (*client.Client).Files, req)
			if err != nil || !e.human() || resp.Files == nil {
				return err
			}
			b, err := base64.StdEncoding.DecodeString(resp.Files.ContentBase64)
			if err != nil {
				return localErr(wire.Internal, "dvvd sent content that is not base64: %v", err)
			}
			e.dataOut().Write(b)
			return nil
		},
	}
	cmd.Flags().Int64Var(&offset, "offset", 0, "the first byte to read")
	cmd.Flags().Int64Var(&length, "length", 0, "how many bytes to read (default: to the end)")
	return cmd
}

// parseMode reads octal permission bits ("0644", "644", "0o755").
func parseMode(s string) (int, error) {
	clean := s
	if len(clean) > 2 && (clean[:2] == "0o" || clean[:2] == "0O") {
		clean = clean[2:]
	}
	v, err := strconv.ParseUint(clean, 8, 32)
	if err != nil || v > 0o7777 {
		return 0, usageErr("--mode %q is not octal permission bits (e.g. 0644)", s)
	}
	return int(v), nil
}

func filesSimpleCmd(e *env, action, use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactArgs(2, "files "+action+" needs a limb id and a remote path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], action)
			if err != nil {
				return err
			}
			req.Path = args[1]
			if _, err := request(e, (*client.Client).Files, req); err != nil || !e.human() {
				return err
			}
			fmt.Fprintf(e.stdout, "%s %s\n", action, args[1])
			return nil
		},
	}
}

func filesRmCmd(e *env) *cobra.Command {
	var recursive bool
	cmd := &cobra.Command{
		Use:   "rm <limbId> <path>",
		Short: "Remove a remote file (-r for a directory and everything in it)",
		Args:  exactArgs(2, "files rm needs a limb id and a remote path"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "remove")
			if err != nil {
				return err
			}
			req.Path, req.Recursive = args[1], recursive
			if _, err := request(e, (*client.Client).Files, req); err != nil || !e.human() {
				return err
			}
			fmt.Fprintf(e.stdout, "removed %s\n", args[1])
			return nil
		},
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "remove a directory and its contents")
	return cmd
}

func filesMvCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "mv <limbId> <from> <to>",
		Short: "Rename a remote path",
		Args:  exactArgs(3, "files mv needs a limb id, the existing remote path and the new one"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "rename")
			if err != nil {
				return err
			}
			req.Path, req.To = args[1], args[2]
			if _, err := request(e, (*client.Client).Files, req); err != nil || !e.human() {
				return err
			}
			fmt.Fprintf(e.stdout, "%s -> %s\n", args[1], args[2])
			return nil
		},
	}
}

func filesHomeCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "home <limbId>",
		Short: "Print the remote user's home directory",
		Args:  exactArgs(1, "files home needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := filesRequest(args[0], "home")
			if err != nil {
				return err
			}
			resp, err := request(e, (*client.Client).Files, req)
			if err != nil || !e.human() || resp.Files == nil {
				return err
			}
			fmt.Fprintln(e.stdout, oneLine(resp.Files.Home))
			return nil
		},
	}
}

func transferCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "transfer",
		Short: "Transfers in flight on a limb (bytes and rate), and stopping one",
		Long: "A file moves inside the `dvv files get|put` (or MCP files) call that asked for it; nothing is\n" +
			"queued. status lists the ones in flight on a limb with their bytes so far and rate; cancel --id\n" +
			"stops one, and its files call answers that it stopped, leaving the destination as it was.",
	}
	asGroup(cmd)
	var id string
	status := &cobra.Command{
		Use:   "status <limbId>",
		Short: "List the transfers in flight on the limb, with bytes and rate",
		Args:  exactArgs(1, "transfer status needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.TransferArgs{Target: target}
			req.Action = "status"
			resp, err := request(e, (*client.Client).Transfer, req)
			if err != nil || !e.human() || resp.Transfer == nil {
				return err
			}
			if len(resp.Transfer.Transfers) == 0 {
				fmt.Fprintln(e.stdout, resp.Transfer.Note)
				return nil
			}
			t := newTable(e.stdout, "ID", "ACTION", "BYTES", "RATE", "ELAPSED", "PATH")
			for _, x := range resp.Transfer.Transfers {
				moved := human.Bytes(x.Bytes)
				if x.Total > 0 {
					moved += " / " + human.Bytes(x.Total)
				}
				t.row(x.TransferID, x.Action, moved, human.Bytes(x.BytesPerSec)+"/s",
					(time.Duration(x.ElapsedMs) * time.Millisecond).String(), x.Path)
			}
			t.flush()
			return nil
		},
	}
	cancel := &cobra.Command{
		Use:   "cancel <limbId> --id TRANSFER",
		Short: "Stop a transfer in flight (its id from transfer status)",
		Args:  exactArgs(1, "transfer cancel needs a limb id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := limbTarget(args[0])
			if err != nil {
				return err
			}
			req := wire.TransferArgs{Target: target}
			if id == "" {
				return usageErr("transfer cancel needs --id (see `dvv transfer status %s`)", args[0])
			}
			req.Action, req.TransferID = "cancel", id
			resp, err := request(e, (*client.Client).Transfer, req)
			if err != nil || !e.human() || resp.Transfer == nil {
				return err
			}
			fmt.Fprintln(e.stdout, resp.Transfer.Note)
			return nil
		},
	}
	cancel.Flags().StringVar(&id, "id", "", "the transfer to stop (transfer status lists the ids)")
	cmd.AddCommand(status, cancel)
	return cmd
}
