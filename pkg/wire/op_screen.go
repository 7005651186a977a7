package wire

// OpScreen is op screen's name on the wire.
const OpScreen = "screen"

// screenOp is the op's entry in the op table (ops.go lists the entries);
// its Args, Answer and client method are generated from it (op_screen_gen.go).
func screenOp() OpSpec {
	return OpSpec{Name: OpScreen, Brief: true, ListedOn: bothKinds, Perceives: true, Answers: answers("screen", "observation"), Limb: true, Caps: []string{"screen.read"}, ReadOnly: true, RetrySafe: true, Variant: "form",
		Variants: []string{"full", "region", "damage-crop"},
		Fields: limbFields(fld("form"), fld("region", only("region"), required("{x, y, w, h}"), note("{x,y,w,h}")), fld("scale", only("full"), note("(0,1]")),
			fld("format", oneOf("png", "jpeg", "auto"), note("auto: the smaller of png and jpeg for this picture; mime says which, and an out ending in .png or .jpg takes its extension")),
			fld("maxEdge", only("full"), atLeast(1), note("without scale: the largest of scale 1, 1/2, 1/4, 1/8 that fits")),
			fld("maxPixels", only("full"), atLeast(1), note("as maxEdge, for width×height")), fld("out", localPath(), note("absolute path: written there instead of inline")),
			fld("windows", only("full", "region"), note("desktop: the window layout beside the picture, over the SSH sidecar (docs/structure.md)"))),
		Raises: codes(NotReady, OutOfBounds, NotConnected),
		Answer: "`screen`: mime, dataBase64 or path, width, height, imageSpace, imageSpaceLine, coverage, generation; terminals: `text` rows and `cursor`; with `windows`: `windows` (id, title, focused, frame in native pixels and in image pixels, bottom to top) or `windowsAbsent` (why not: the picture is answered all the same)"}
}
