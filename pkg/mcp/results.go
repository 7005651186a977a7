package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/wire"
)

// errorContent is a failed tool's structuredContent. Result is "error", as
// on dvvd's own answer line, so one schema covers both outcomes.
type errorContent struct {
	Result      string            `json:"result"`
	Error       *wire.Error       `json:"error"`
	Observation *wire.Observation `json:"observation,omitempty"`
	BridgeNote  string            `json:"bridgeNote,omitempty"`
}

// errorResult turns a failure into a tool result with isError set: the
// code, a one-line reason and the next move, as text and as structure.
func errorResult(err error, note string) *sdk.CallToolResult {
	var we *wire.Error
	if !errors.As(err, &we) {
		we = wire.Errorf(wire.Internal, "%v", err)
	}
	e := *we
	if e.Next == "" {
		e.Next = e.Code.Info().Next
	}
	obs := e.Observation
	e.Observation = nil
	var b strings.Builder
	if note != "" {
		b.WriteString("NOTE: " + note + "\n")
	}
	fmt.Fprintf(&b, "%s: %s\nNext: %s", e.Code, oneLine(e.Message), e.Next)
	if obs != nil {
		if j, err := json.Marshal(obs); err == nil {
			b.WriteString("\nobservation: ")
			b.Write(j)
		}
	}
	return &sdk.CallToolResult{
		IsError:           true,
		Content:           []sdk.Content{&sdk.TextContent{Text: b.String()}},
		StructuredContent: &errorContent{Result: wire.ResultError, Error: &e, Observation: obs, BridgeNote: note},
	}
}

// successResult turns dvvd's answer into text plus structuredContent, and
// for a screen read an image block with the imageSpace line beside it.
// structuredContent is the answer as it came over the socket, without its
// id, image bytes moved to an image block, plus the bridge's note.
func successResult(tool *Tool, line *wire.Reply, note string) *sdk.CallToolResult {
	ans, err := wire.AnswerOf(line)
	if err != nil || ans == nil {
		return errorResult(wire.Errorf(wire.Internal, "read dvvd's %s answer: %v", line.Result, err), note)
	}
	blocks, err := splitBlocks(ans)
	if err != nil {
		return errorResult(err, note)
	}
	body, err := structuredBody(ans, note)
	if err != nil {
		return errorResult(wire.Errorf(wire.Internal, "encode the answer: %v", err), note)
	}
	content, lineBeside := blocks.pictures()
	sum, err := summary(tool, body, !lineBeside)
	if err != nil {
		return errorResult(wire.Errorf(wire.Internal, "read dvvd's %s answer: %v", line.Result, err), note)
	}
	if blocks.fileSummary != "" {
		sum = fmt.Sprintf("%s: get %s: %s", tool.Name, blocks.filePath, blocks.fileSummary)
	}
	var text strings.Builder
	if note != "" {
		text.WriteString("NOTE: " + note + "\n")
	}
	text.WriteString(sum)
	text.WriteString("\n")
	text.Write(body)
	content = append(content, &sdk.TextContent{Text: text.String()})
	if blocks.file != nil {
		content = append(content, blocks.file)
	}
	// The encoded form is handed over as is, so the answer is encoded once.
	return &sdk.CallToolResult{Content: content, StructuredContent: json.RawMessage(body)}
}

// answerBlocks are the bytes moved out of an answer into blocks of their
// own: a screen read's image, a group run's members' images (each after
// its imageSpace line), a file's content.
type answerBlocks struct {
	images  []sdk.Content
	screen  *wire.Screen // a screen read's, once its bytes are out
	grouped bool
	// file is a file's content and fileSummary what it is; filePath names
	// the file.
	file                  sdk.Content
	fileSummary, filePath string
}

// splitBlocks moves the answer's bytes into blocks, by the answer's kind.
func splitBlocks(ans wire.Answer) (answerBlocks, error) {
	var b answerBlocks
	var err error
	switch a := ans.(type) {
	case *wire.FilesAnswer:
		if a.Files != nil && a.Files.ContentBase64 != "" {
			if a.Files, b.file, b.fileSummary, err = splitFile(a.Files); err == nil {
				b.filePath = a.Files.Path
			}
		}
	case *wire.ScreenAnswer:
		if a.Screen != nil {
			var img sdk.Content
			a.Screen, img = splitScreen(a.Screen)
			b.screen = a.Screen
			if img != nil {
				b.images = append(b.images, img)
			}
		}
	case *wire.GroupRunAnswer:
		b.grouped = true
		b.images, err = splitMemberScreens(a)
	}
	return b, err
}

// splitMemberScreens moves each member's screen image out of a group
// run's answer, each image after a line naming the member and its
// imageSpace.
func splitMemberScreens(a *wire.GroupRunAnswer) ([]sdk.Content, error) {
	var images []sdk.Content
	a.Members = append([]wire.MemberResult(nil), a.Members...)
	for i := range a.Members {
		m := &a.Members[i]
		mr, err := m.Reply()
		if err != nil || mr.Result != wire.OpScreen {
			continue
		}
		sa, err := wire.DecodeAnswer[wire.ScreenAnswer](mr)
		if err != nil || sa.Screen == nil {
			continue
		}
		var img sdk.Content
		sa.Screen, img = splitScreen(sa.Screen)
		if m.Response, err = wire.AnswerLine(nil, sa); err != nil {
			return nil, wire.Errorf(wire.Internal, "encode member %d's answer: %v", m.Index, err)
		}
		if img != nil {
			images = append(images, &sdk.TextContent{Text: fmt.Sprintf("member %d (%s): %s", m.Index, m.LimbID, sa.Screen.ImageSpaceLine)}, img)
		}
	}
	return images, nil
}

// pictures are the image blocks, a screen read's picture first with its
// imageSpace line right beside it (then the summary need not repeat it).
func (b answerBlocks) pictures() (content []sdk.Content, lineBeside bool) {
	content = make([]sdk.Content, 0, 3+len(b.images))
	images := b.images
	lineBeside = b.screen != nil && b.screen.ImageSpaceLine != "" && len(images) > 0 && !b.grouped
	if lineBeside {
		content = append(content, images[0], &sdk.TextContent{Text: b.screen.ImageSpaceLine})
		images = images[1:]
	}
	return append(content, images...), lineBeside
}

// structuredBody is the answer's line without an id, the bridge's note
// after its fields.
func structuredBody(ans wire.Answer, note string) ([]byte, error) {
	body, err := wire.AnswerLine(nil, ans)
	if err != nil || note == "" {
		return body, err
	}
	n, err := json.Marshal(note)
	if err != nil {
		return nil, err
	}
	body = append(body[:len(body)-1], `,"bridgeNote":`...)
	return append(append(body, n...), '}'), nil
}

// summaryView is what a success's first line reads, by name, whatever
// the op: the fields several ops answer alike.
type summaryView struct {
	Observation  *wire.Observation  `json:"observation"`
	Screen       *wire.Screen       `json:"screen"`
	Dispatched   string             `json:"dispatched"`
	Verification *wire.Verification `json:"verification"`
	Wait         *wire.WaitResult   `json:"wait"`
	Run          *wire.RunResult    `json:"run"`
	Find         *wire.FindResult   `json:"find"`
	Expect       *wire.ExpectResult `json:"expect"`
}

// splitScreen takes the image bytes out of a screen answer (they travel as
// an image block, not twice) and returns the block.
func splitScreen(s *wire.Screen) (*wire.Screen, sdk.Content) {
	cp := *s
	if cp.DataBase64 == "" {
		return &cp, nil
	}
	data, err := base64.StdEncoding.DecodeString(cp.DataBase64)
	cp.DataBase64 = ""
	if err != nil {
		cp.ImageSpaceLine += " (dvvd sent image data that is not base64; no image)"
		return &cp, nil
	}
	mime := cp.Mime
	if mime == "" {
		mime = "image/png"
	}
	return &cp, &sdk.ImageContent{Data: data, MIMEType: mime}
}

// splitFile takes an inline get's content out of the answer, so the bytes
// travel once, in a block of their own after the answer's text (not in
// structuredContent, nor in the answer's JSON in the text): a UTF-8 text
// file as that text, anything else as its base64. The answer keeps bytes,
// and the summary line says where the content is. A file over MaxInlineGet
// is refused, naming to.
func splitFile(f *wire.FilesResult) (*wire.FilesResult, sdk.Content, string, error) {
	cp := *f
	cp.ContentBase64 = ""
	data, err := base64.StdEncoding.DecodeString(f.ContentBase64)
	if err != nil {
		return nil, nil, "", wire.Errorf(wire.Internal, "dvvd sent file content that is not base64")
	}
	if len(data) > MaxInlineGet {
		return nil, nil, "", &wire.Error{Code: wire.TooLarge,
			Message: fmt.Sprintf("%s is %d bytes; a reply carries at most %d (%d KiB) of a file", f.Path, len(data), MaxInlineGet, MaxInlineGet>>10),
			Next:    "call dvv_files get again with to: an absolute local path on dvvd's machine to save the file to (the reply then states only its size)"}
	}
	if utf8.Valid(data) {
		return &cp, &sdk.TextContent{Text: string(data)}, fmt.Sprintf("%d bytes of UTF-8 text, as the next text block (verbatim)", len(data)), nil
	}
	return &cp, &sdk.TextContent{Text: "contentBase64: " + f.ContentBase64}, fmt.Sprintf("%d bytes, not UTF-8 text: base64 in the next text block, after \"contentBase64: \"", len(data)), nil
}

// summary is the first line of a success's text: what happened, in words,
// and what it does not prove. withLine adds a screen's imageSpace line,
// when it is not already beside the image.
func summary(tool *Tool, body []byte, withLine bool) (string, error) {
	var r summaryView
	if err := json.Unmarshal(body, &r); err != nil {
		return "", err
	}
	return summaryOf(tool, &r, withLine), nil
}

// summaryOf is the summary of the one kind of answer r holds.
func summaryOf(tool *Tool, r *summaryView, withLine bool) string {
	switch {
	case r.Screen != nil:
		return screenSummary(tool, r.Screen, withLine)
	case r.Dispatched != "":
		return dispatchSummary(tool, r.Dispatched, r.Verification)
	case r.Wait != nil:
		return waitSummary(tool, r.Wait)
	case r.Run != nil:
		return runSummary(tool, r.Run)
	case r.Find != nil:
		return findSummary(tool, r.Find)
	case r.Expect != nil:
		return expectSummary(tool, r.Expect)
	case r.Observation != nil:
		return observationSummary(tool, r.Observation)
	}
	return tool.Name + ": ok"
}

// screenSummary is a terminal's rows, or what the image is.
func screenSummary(tool *Tool, s *wire.Screen, withLine bool) string {
	switch {
	case len(s.Text) > 0:
		return fmt.Sprintf("%s: terminal screen, %d rows:\n%s", tool.Name, len(s.Text), strings.Join(s.Text, "\n"))
	case s.Unchanged:
		return fmt.Sprintf("%s: nothing changed since this attachment's last read (generation %d, coverage %.2f)", tool.Name, s.Generation, s.Coverage)
	case withLine:
		return fmt.Sprintf("%s: %dx%d image, generation %d, coverage %.2f; %s", tool.Name, s.Width, s.Height, s.Generation, s.Coverage, s.ImageSpaceLine)
	}
	return fmt.Sprintf("%s: %dx%d image, generation %d, coverage %.2f (its imageSpace line is beside it)", tool.Name, s.Width, s.Height, s.Generation, s.Coverage)
}

// dispatchSummary says what was sent and, for an act, what was seen of
// its effect, or that nothing was watched.
func dispatchSummary(tool *Tool, dispatched string, v *wire.Verification) string {
	switch {
	case !tool.Spec().Dispatches:
		return fmt.Sprintf("%s: %s", tool.Name, dispatched)
	case v != nil && v.Status != wire.VerifyDispatched:
		return fmt.Sprintf("%s: dispatched %s; %s", tool.Name, dispatched, v.Summary())
	}
	return fmt.Sprintf("%s: dispatched %s (dispatch only: read dvv_screen or dvv_wait to see the effect)", tool.Name, dispatched)
}

func waitSummary(tool *Tool, w *wire.WaitResult) string {
	if w.Settled {
		return fmt.Sprintf("%s: %s settled after %d ms", tool.Name, w.Until, w.ElapsedMs)
	}
	return fmt.Sprintf("%s: %s did not settle within %d ms (settled: false; not an error)", tool.Name, w.Until, w.ElapsedMs)
}

func findSummary(tool *Tool, f *wire.FindResult) string {
	what := fmt.Sprintf("%d matches", len(f.Matches))
	if len(f.Lines) > 0 {
		what = fmt.Sprintf("%d lines", len(f.Lines))
	}
	return fmt.Sprintf("%s: %s read on generation %d (native pixels; pass the generation to dvv_click)", tool.Name, what, f.Generation)
}

func expectSummary(tool *Tool, e *wire.ExpectResult) string {
	if e.Found && e.Center != nil {
		return fmt.Sprintf("%s: found at center %d,%d, score %.2f, generation %d", tool.Name, e.Center.X, e.Center.Y, e.Score, e.Generation)
	}
	return fmt.Sprintf("%s: not seen (found: false; not an error), best score %.2f", tool.Name, e.Score)
}

// observationSummary is the limb's state and who holds its lease.
func observationSummary(tool *Tool, o *wire.Observation) string {
	lease := "free"
	if o.Lease.Held {
		lease = "held by you"
	} else if o.Lease.Holder != "" {
		lease = "held by " + o.Lease.Holder
	}
	if o.Lease.HumanTookOver {
		lease += ", a person took over"
	}
	return fmt.Sprintf("%s: limb %s (%s) %s, %dx%d, generation %d, lease %s", tool.Name, o.LimbID, o.Protocol, o.State,
		o.Geometry.Width, o.Geometry.Height, o.Geometry.Generation, lease)
}

func runSummary(tool *Tool, run *wire.RunResult) string {
	switch {
	case run.ExitCode != nil:
		return fmt.Sprintf("%s: exited with status %d after %d ms", tool.Name, *run.ExitCode, run.ElapsedMs)
	case run.Signal != "":
		return fmt.Sprintf("%s: killed by signal %s (no exit status)", tool.Name, run.Signal)
	case run.TimedOut:
		return fmt.Sprintf("%s: still running when timeoutMs passed; no exit status", tool.Name)
	}
	return tool.Name + ": finished without an exit status"
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}
