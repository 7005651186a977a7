package wire

// OpFiles is op files's name on the wire.
const OpFiles = "files"

// FilesArgs are the arguments of op files.
type FilesArgs struct {
	Envelope
	Target
	// What to do.
	Action string `json:"action,omitempty" dvv:"variant,required,enum=list|get|put|mkdir|remove|rename|home|stat"`
	// The remote path; ~ and ~/x resolve against the remote home. For rename, the existing
	// name.
	Path string `json:"path,omitempty" dvv:"required=get|put|mkdir|remove|rename|stat,only=list|get|put|mkdir|remove|rename|stat"`
	// rename: the new remote path. get: an absolute local path to save to (else the content
	// comes inline: UTF-8 text as a text block, other bytes as base64, at most 256 KiB).
	To string `json:"to,omitempty" dvv:"required=rename,only=get|rename,localpath=get" need:"the new remote path"`
	// put only: an absolute local path to upload.
	From string `json:"from,omitempty" dvv:"only=put,localpath=put"`
	// put only: the bytes to write, base64.
	// note: ≤ 16 MiB
	ContentBase64 string `json:"contentBase64,omitempty" dvv:"only=put"`
	// put only: permission bits, e.g. 420 for 0644.
	Mode *int `json:"mode,omitempty" dvv:"only=put,min=0,max=0o7777"`
	// remove only: remove a directory and what it holds.
	Recursive bool `json:"recursive,omitempty" dvv:"only=remove"`
	// note: read from this byte on
	Offset *int64 `json:"offset,omitempty" dvv:"only=get,min=0"`
	// note: read at most this many bytes
	Length *int64 `json:"length,omitempty" dvv:"only=get,min=0"`
	// note: add to the end of the file (created when missing) instead of replacing it
	Append bool `json:"append,omitempty" dvv:"only=put"`
	// note: interim `progress` lines; needs an id
	Progress bool `json:"progress,omitempty" dvv:"only=get|put"`
}

// FilesAnswer is what a success of op files carries.
type FilesAnswer struct {
	LimbID string       `json:"limbId,omitempty"`
	Files  *FilesResult `json:"files,omitempty"`
}

// filesOp is what a client needs to know of op files beside its types (ops.go lists
// the entries); its fields, variants and answer fields are read from FilesArgs and
// FilesAnswer (op_files_gen.go).
func filesOp() OpSpec {
	return OpSpec{
		Name: OpFiles,
		Limb: true,
		ActionCaps: map[string][]string{"list": {"files.read"}, "get": {"files.read"}, "home": {"files.read"}, "stat": {"files.read"},
			"put": {"files.write"}, "mkdir": {"files.write"}, "remove": {"files.write"}, "rename": {"files.write"}},
		Raises: codes(FilesUnavailable, NotFound, Timeout, HostKeyUnknown),
		Answer: "`files`: entries, bytes, contentBase64, mode (get: the remote file's permission bits, octal), home, via (ssh/sidecar); stat: `stat` (path, kind, size, mode, uid, gid, modified, a link's target, as stat(1) shows the path itself); a ranged get (offset, length) answers offset and the bytes read; an append answers appended. A local copy get makes (dvvd's with `to`, dvv's from inline content) takes the remote file's rwx bits less the umask of the process that writes it, never setuid, setgid or sticky. A get or put stops when its caller gives up (op `cancel`, the connection closed): `TIMEOUT`, and the destination is left as it was — put writes a temporary `.name.dvv-part-N` beside the target and renames it over the target only once complete; get to a local path does the same locally. With `progress` (get/put, and an id), `progress` lines precede the answer (see Framing)",
	}
}
