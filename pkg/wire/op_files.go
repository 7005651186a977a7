package wire

// OpFiles is op files's name on the wire.
const OpFiles = "files"

// filesOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_files_gen.go).
func filesOp() OpSpec {
	return OpSpec{Name: OpFiles, ListedOn: bothKinds, Answers: answers("files"), Limb: true, Variant: "action", Variants: []string{"list", "get", "put", "mkdir", "remove", "rename", "home", "stat"},
		ActionCaps: map[string][]string{"list": {"files.read"}, "get": {"files.read"}, "home": {"files.read"}, "stat": {"files.read"},
			"put": {"files.write"}, "mkdir": {"files.write"}, "remove": {"files.write"}, "rename": {"files.write"}},
		Fields: limbFields(fld("action", required()), fld("path", only("list", "get", "put", "mkdir", "remove", "rename", "stat"), requiredIn("get", "put", "mkdir", "remove", "rename", "stat")),
			fld("to", only("get", "rename"), requiredIn("rename"), required("the new remote path"), localPath("get"), means("get", "LocalTo"), means("rename", "NewPath")), fld("from", only("put"), localPath("put")), fld("contentBase64", only("put"), note("≤ 16 MiB")),
			fld("mode", only("put"), within(0, 0o7777)), fld("recursive", only("remove")),
			fld("progress", only("get", "put"), note("interim `progress` lines; needs an id")),
			fld("offset", only("get"), atLeast(0), note("read from this byte on")), fld("length", only("get"), atLeast(0), note("read at most this many bytes")),
			fld("append", only("put"), note("add to the end of the file (created when missing) instead of replacing it"))),
		Raises: codes(FilesUnavailable, NotFound, Timeout, HostKeyUnknown),
		Answer: "`files`: entries, bytes, contentBase64, mode (get: the remote file's permission bits, octal), home, via (ssh/sidecar); stat: `stat` (path, kind, size, mode, uid, gid, modified, a link's target, as stat(1) shows the path itself); a ranged get (offset, length) answers offset and the bytes read; an append answers appended. A local copy get makes (dvvd's with `to`, dvv's from inline content) takes the remote file's rwx bits less the umask of the process that writes it, never setuid, setgid or sticky. A get or put stops when its caller gives up (op `cancel`, the connection closed): `TIMEOUT`, and the destination is left as it was — put writes a temporary `.name.dvv-part-N` beside the target and renames it over the target only once complete; get to a local path does the same locally. With `progress` (get/put, and an id), `progress` lines precede the answer (see Framing)"}
}
