package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/cli"
	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// ResultScript is dvv_script's result on success.
const ResultScript = "script"

// Bounds of a script an agent hands dvv_script.
const (
	MaxScriptBytes = 1 << 20 // a script file, or its steps together
	MaxScriptSteps = 1024
)

const (
	costScript = "Cost: no image; about 200 bytes a step, plus twice what steps print."

	docScript = "Runs a script on a limb as `dvv script --limb` does: path (absolute) or steps, a line of its syntax each " +
		"(click 300 200, type \"hi\", key Enter, find Save; docs/scripts.md), ${name} from vars. " +
		"One lease (the agent's if held, else taken and released); the first failure stops it, as an error with that " +
		"step's code. Answers a report per step (line, step, status, ms; on failure code, next, screenshot). " +
		"Refused when dvvmcp has DVV_TOKEN. " + costScript
)

// scriptTool is dvv_script, the script set's tool: served by the bridge
// itself, through pkg/cli's runner over the bridge's one attachment.
var scriptTool = Tool{Name: "dvv_script", Set: "script", Title: "Run a script", Doc: docScript,
	Shell: "dvv script --limb <limbId> FILE",
	Args: []Arg{
		{Name: "limbId", Type: TString, Doc: "The limb the steps act on (id or GROUP/MEMBER)."},
		{Name: "path", Type: TString, Doc: "A saved script's absolute path; or steps."},
		{Name: "steps", Type: TArray, Items: TString, Doc: "The script, a step an item."},
		{Name: "vars", Type: TObject, Doc: "${name} values (strings)."},
		{Name: "vncdo", Type: TBoolean, Doc: "The lines are vncdotool's."},
		{Name: "artifacts", Type: TString, Doc: "Absolute directory for a failure's screenshot."},
	},
	Local: &Local{
		// A failed step answers that step's own code, whichever it is.
		Raises: []wire.Code{wire.BadRequest, wire.PolicyDenied},
		Output: map[string]any{"type": "object", "required": []string{"result"}, "additionalProperties": false,
			"properties": map[string]any{
				"result":     map[string]any{"enum": []string{ResultScript, wire.ResultError}},
				"steps":      map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
				"error":      map[string]any{"type": "object"},
				"bridgeNote": map[string]any{"type": "string"},
			}},
		Handler: scriptHandler,
	},
}

// scriptArgs are dvv_script's arguments.
type scriptArgs struct {
	LimbID    string            `json:"limbId"`
	Path      string            `json:"path"`
	Steps     []string          `json:"steps"`
	Vars      map[string]string `json:"vars"`
	Vncdo     bool              `json:"vncdo"`
	Artifacts string            `json:"artifacts"`
}

// scriptContent is dvv_script's structuredContent.
type scriptContent struct {
	Result     string           `json:"result"`
	Steps      []cli.StepReport `json:"steps"`
	Error      *wire.Error      `json:"error,omitempty"`
	BridgeNote string           `json:"bridgeNote,omitempty"`
}

func badScript(msg, next string) *sdk.CallToolResult {
	return errorResult(&wire.Error{Code: wire.BadRequest, Message: "dvv_script: " + msg, Next: next}, "")
}

// scriptHandler runs the script over the bridge's attachment, so its lease
// is the agent's: held already, it stays held; taken for the run, it is
// given back at the end.
func scriptHandler(b *Bridge, t *Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var a scriptArgs
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.DisallowUnknownFields()
		if len(req.Params.Arguments) > 0 {
			if err := dec.Decode(&a); err != nil {
				return badScript(fmt.Sprintf("arguments: %v", err), "pass limbId, path or steps, and optionally vars (strings), vncdo, artifacts"), nil
			}
		}
		if b.opts.Token != "" {
			return errorResult(&wire.Error{Code: wire.PolicyDenied,
				Message: "dvv_script: this dvvmcp runs with DVV_TOKEN; a script's steps read and write files on this machine as dvv does, which a token's policy cannot see",
				Next:    "run the steps as separate tools, or ask the owner to serve dvv_script from a dvvmcp without DVV_TOKEN"}, ""), nil
		}
		var src, dir string
		switch {
		case (a.Path == "") == (len(a.Steps) == 0):
			return badScript("give path or steps, not both and not neither", "path: an absolute script file; steps: [\"click 300 200\", \"type hello\"]"), nil
		case a.Path != "":
			if !filepath.IsAbs(a.Path) {
				return badScript(fmt.Sprintf("path %q is not absolute", a.Path), "give the script's absolute path on dvvmcp's machine"), nil
			}
			data, err := readScript(a.Path)
			if err != nil {
				return badScript(err.Error(), "give a readable script file of at most 1 MiB, or pass steps"), nil
			}
			src, dir = data, filepath.Dir(a.Path)
		default:
			if len(a.Steps) > MaxScriptSteps {
				return badScript(fmt.Sprintf("%d steps, more than %d", len(a.Steps), MaxScriptSteps), "split the script, or save it and pass path"), nil
			}
			for i, s := range a.Steps {
				if strings.ContainsAny(s, "\r\n") {
					return badScript(fmt.Sprintf("step %d holds a line break", i+1), "give one step per array item; a step is one line"), nil
				}
			}
			src = strings.Join(a.Steps, "\n")
			if len(src) > MaxScriptBytes {
				return badScript("the steps are over 1 MiB together", "save the script and pass path"), nil
			}
		}
		if a.Artifacts != "" && !filepath.IsAbs(a.Artifacts) {
			return badScript(fmt.Sprintf("artifacts %q is not absolute", a.Artifacts), "give an absolute directory, or leave artifacts out"), nil
		}
		c, note, err := b.att.get(ctx, clientName(req))
		if err != nil {
			return errorResult(err, note), nil
		}
		reps, err := cli.RunScript(ctx, c, src, cli.ScriptOptions{Limb: a.LimbID, Vars: a.Vars, Dir: dir,
			Artifacts: a.Artifacts, Vncdo: a.Vncdo})
		if errors.Is(err, client.ErrClosed) {
			b.att.drop(c)
		}
		return scriptResult(reps, err, note), nil
	}
}

// readScript reads a script file: a regular file of at most MaxScriptBytes.
func readScript(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the script: %v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("read the script: %s is not a regular file", path)
	}
	if st.Size() > MaxScriptBytes {
		return "", fmt.Errorf("the script %s is %d bytes, over 1 MiB", path, st.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the script: %v", err)
	}
	return string(data), nil
}

// scriptResult is the report as a tool result: a line per step in text
// (as `dvv script` prints it) and the reports in structuredContent; a
// failed step, or a script refused before any ran, is an error result.
func scriptResult(reps []cli.StepReport, err error, note string) *sdk.CallToolResult {
	if reps == nil {
		reps = []cli.StepReport{}
	}
	var text strings.Builder
	if note != "" {
		text.WriteString("NOTE: " + note + "\n")
	}
	for _, r := range reps {
		fmt.Fprintf(&text, "%4d  %-44s  %-10s %6d ms\n", r.Line, oneLine(r.Step), r.Status, r.Ms)
		if r.Output != "" {
			for _, l := range strings.Split(r.Output, "\n") {
				text.WriteString("      " + l + "\n")
			}
		}
		if r.Screenshot != "" {
			text.WriteString("      screenshot: " + r.Screenshot + "\n")
		}
	}
	body := scriptContent{Result: ResultScript, Steps: reps, BridgeNote: note}
	if err != nil {
		var we *wire.Error
		if !errors.As(err, &we) {
			we = wire.Errorf(wire.Internal, "%v", err)
		}
		e := *we
		if e.Next == "" {
			e.Next = e.Code.Info().Next
		}
		body.Result, body.Error = wire.ResultError, &e
		fmt.Fprintf(&text, "%s: %s\nNext: %s", e.Code, oneLine(e.Message), e.Next)
	} else {
		fmt.Fprintf(&text, "%d steps passed", len(reps))
	}
	raw, _ := json.Marshal(body)
	return &sdk.CallToolResult{IsError: err != nil, Content: []sdk.Content{&sdk.TextContent{Text: text.String()}},
		StructuredContent: json.RawMessage(raw)}
}
