package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Version is the bridge's version as initialize reports it.
var Version = "dev"

// Bridge is dvvmcp: an MCP server whose tools forward to dvvd.
type Bridge struct {
	Server *sdk.Server
	att    *attachment
	opts   Options
	served map[string]*Tool // the reference's tools and those of the enabled sets
}

// New builds the bridge with the 25 tools registered. It dials nothing
// until the first tool call.
func New(opts Options) *Bridge {
	if opts.DefaultName == "" {
		opts.DefaultName = "dvvmcp"
	}
	b := &Bridge{att: &attachment{opts: opts}, opts: opts, served: map[string]*Tool{}}
	b.Server = sdk.NewServer(&sdk.Implementation{Name: "dvvmcp", Title: "dvv", Version: Version}, &sdk.ServerOptions{
		Instructions: Instructions() + SetInstructions(opts.Sets),
		// Tools only, and they are fixed for the life of the process (no
		// listChanged): dvvmcp serves no resources or prompts, so it does
		// not advertise them.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range Served(opts.Sets) {
		b.served[t.Name] = t
		if t.Local != nil {
			b.Server.AddTool(t.sdkTool(), t.Local.Handler(b, t))
			continue
		}
		if t.Also != "" {
			b.Server.AddTool(t.sdkTool(), b.clickTextHandler(t))
			continue
		}
		b.Server.AddTool(t.sdkTool(), b.handler(t))
	}
	b.Server.AddReceivingMiddleware(b.unknownToolMiddleware, unservedMiddleware)
	return b
}

// Run serves MCP on the transport until the client goes away.
func (b *Bridge) Run(ctx context.Context, t sdk.Transport) error {
	defer b.att.close()
	return b.Server.Run(ctx, t)
}

// ServeStdio serves MCP on a reader and writer (the process's stdin and
// stdout), reading frames up to MaxFrameBytes so that an oversized argument
// gets a TOO_LARGE answer instead of ending the session. It returns when r
// ends, once every request read from it has been answered (DrainTimeout),
// or when ctx ends, answering what is still in flight as cancelled.
func (b *Bridge) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	// The session's own context is not ctx: the SDK would end it at once,
	// dropping the answers in flight; the transport ends it instead.
	return b.Run(context.WithoutCancel(ctx), &stdioTransport{r: r, w: w, max: MaxFrameBytes, drain: DrainTimeout, stop: ctx.Done()})
}

var additive = map[string]bool{"dvv_open": true, "dvv_group_open": true, "dvv_group_grow": true}

func (t *Tool) sdkTool() *sdk.Tool {
	// Hints are sent only where they differ from MCP's defaults (not
	// read-only, destructive, not idempotent, open world): every byte of
	// tools/list is paid on every turn. Opening adds a connection and takes
	// nothing away; every other act may overwrite or end something on the
	// remote side.
	ann := &sdk.ToolAnnotations{ReadOnlyHint: t.ReadOnly(), IdempotentHint: t.Idem}
	if !t.ReadOnly() && additive[t.Name] {
		ann.DestructiveHint = new(bool)
	}
	return &sdk.Tool{
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description(),
		InputSchema:  t.InputSchema(),
		OutputSchema: t.OutputSchema(),
		Annotations:  ann,
	}
}

// handler forwards one tool's calls. Every problem, down to bad arguments,
// is a tool result with isError set; the SDK's protocol errors are kept for
// protocol problems.
func (b *Bridge) handler(t *Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, werr := t.Decode(req.Params.Arguments)
		if werr != nil {
			return errorResult(werr, ""), nil
		}
		if b.opts.JPEG {
			preferJPEG(args)
		}
		applyImageBudget(args, b.opts.Image.orDefault())
		ctx = withProgress(ctx, req, args)
		resp, note, err := b.att.do(ctx, clientName(req), args)
		if err != nil {
			return errorResult(err, note), nil
		}
		return successResult(t, resp, note), nil
	}
}

// preferJPEG asks for the smaller of PNG and JPEG (format auto) wherever
// the call reads a screen: JPEG alone is bigger than PNG on text.
func preferJPEG(a wire.Args) {
	switch r := a.(type) {
	case *wire.ScreenArgs:
		r.Format = "auto"
	case *wire.GroupRunArgs:
		if r.Action != wire.OpScreen {
			return
		}
		args := strings.TrimSpace(string(r.Arguments))
		if args == "" || args == "null" || args == "{}" {
			r.Arguments = []byte(`{"format":"auto"}`)
		} else if strings.HasPrefix(args, "{") {
			r.Arguments = []byte(`{"format":"auto",` + args[1:])
		}
	}
}

// applyImageBudget asks dvvd to fit a full screen read without scale into
// the budget; an explicit scale, a region or a damage-crop is left alone.
func applyImageBudget(a wire.Args, b ImageBudget) {
	if b.MaxEdge <= 0 && b.MaxPixels <= 0 {
		return
	}
	set := func(p **int, v int) {
		if v > 0 {
			*p = &v
		}
	}
	switch r := a.(type) {
	case *wire.ScreenArgs:
		if r.Scale != nil || (r.Form != "" && r.Form != "full") {
			return
		}
		set(&r.MaxEdge, b.MaxEdge)
		set(&r.MaxPixels, b.MaxPixels)
	case *wire.GroupRunArgs:
		if r.Action != wire.OpScreen {
			return
		}
		var args map[string]any
		if len(r.Arguments) > 0 && json.Unmarshal(r.Arguments, &args) != nil {
			return
		}
		if args == nil {
			args = map[string]any{}
		}
		if _, scaled := args["scale"]; scaled || (args["form"] != nil && args["form"] != "full") {
			return
		}
		if b.MaxEdge > 0 {
			args["maxEdge"] = b.MaxEdge
		}
		if b.MaxPixels > 0 {
			args["maxPixels"] = b.MaxPixels
		}
		if raw, err := json.Marshal(args); err == nil {
			r.Arguments = raw
		}
	}
}

// clientName is the MCP client's name from initialize, which names the
// attachment (and so the lease holder a person sees).
func clientName(req *sdk.CallToolRequest) string {
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			return p.ClientInfo.Name
		}
	}
	// Protocol versions without initialize carry the client per request.
	if req.Params != nil {
		if info, ok := req.Params.Meta[sdk.MetaKeyClientInfo].(map[string]any); ok {
			name, _ := info["name"].(string)
			return name
		}
	}
	return ""
}

// unknownToolMiddleware keeps the protocol error MCP prescribes for an
// unknown tool (-32602) but makes its message say what exists.
// A tool of a set that is not enabled is unknown too, and the message
// says which --tools would serve it.
func (b *Bridge) unknownToolMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if ctr, ok := req.(*sdk.CallToolRequest); ok && ctr.Params != nil {
				if _, served := b.served[ctr.Params.Name]; !served {
					msg := fmt.Sprintf("unknown tool %q: dvvmcp has exactly %d tools: %s", ctr.Params.Name, ToolCount, toolList())
					if len(b.served) != ToolCount {
						msg = fmt.Sprintf("unknown tool %q: this dvvmcp serves %d tools: %s", ctr.Params.Name, len(b.served), b.toolList())
					}
					if t, ok := LookupAny(ctr.Params.Name); ok && t.Set != "" {
						msg += fmt.Sprintf("; %s is in tool set %q: start dvvmcp with --tools %s (or DVV_MCP_TOOLS=%s)", t.Name, t.Set, t.Set, t.Set)
					}
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
				}
			}
		}
		return next(ctx, method, req)
	}
}

// toolList names the served tools, the reference's first.
func (b *Bridge) toolList() string {
	names := make([]string, 0, len(b.served))
	for _, t := range Served(b.opts.Sets) {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// unservedPrefixes are the method families of the capabilities dvvmcp does
// not advertise. The SDK would answer their lists (empty) anyway; a client
// that calls them is told, as JSON-RPC prescribes, that there is no such
// method here.
var unservedPrefixes = []string{"resources/", "prompts/", "completion/", "logging/"}

func unservedMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		for _, p := range unservedPrefixes {
			if strings.HasPrefix(method, p) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: fmt.Sprintf("dvvmcp serves tools only (see initialize's capabilities); %s is not served", method)}
			}
		}
		return next(ctx, method, req)
	}
}

func toolList() string {
	names := make([]string, len(Tools))
	for i, t := range Tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
