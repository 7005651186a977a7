package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/human"
	"github.com/dvvhq/dvv/pkg/wire"
)

// A files get or put whose tools/call carried _meta.progressToken reports
// its bytes as notifications/progress while it runs: dvvd sends progress
// lines (client.DoProgress) and the bridge forwards them, to the session
// that asked, before the tool's result. Without a token nothing is sent.

type progressKey struct{}

// withProgress marks ctx so that send asks dvvd for progress and notifies
// the MCP client, when the call moves a file and the client gave a token.
func withProgress(ctx context.Context, call *sdk.CallToolRequest, args wire.Args) context.Context {
	if call == nil || call.Session == nil || call.Params == nil || !movesFile(args) {
		return ctx
	}
	token := call.Params.GetProgressToken()
	if token == nil {
		return ctx
	}
	session := call.Session
	var last *wire.TransferInfo
	notify := func(p wire.TransferInfo) {
		// Progress only ever goes up; a line that only learnt the total
		// is passed on too, so the client can show it.
		if last != nil && p.Bytes <= last.Bytes && p.Total == last.Total {
			return
		}
		last = &p
		session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(p.Bytes), Total: float64(p.Total), Message: progressMessage(p)})
	}
	return context.WithValue(ctx, progressKey{}, notify)
}

// send is c.Do, with progress when ctx asks for it (withProgress).
func send(ctx context.Context, c *client.Client, req wire.Args) (*wire.Reply, error) {
	if notify, ok := ctx.Value(progressKey{}).(func(wire.TransferInfo)); ok && movesFile(req) {
		resp, err := c.DoProgress(ctx, *req.(*wire.FilesArgs), notify)
		if client.IsCode(err, wire.BadRequest) && strings.Contains(err.Error(), `"progress"`) {
			return c.Do(ctx, req) // a dvvd from before progress lines
		}
		return resp, err
	}
	return c.Do(ctx, req)
}

// movesFile reports a files call that takes progress lines: the actions
// the op table gives the progress field (get and put).
func movesFile(args wire.Args) bool {
	f, ok := args.(*wire.FilesArgs)
	if !ok || f.Action == "" {
		return false
	}
	spec, _ := wire.Spec(wire.OpFiles)
	progress, ok := spec.Field("progress")
	return ok && progress.Applies(f.Action)
}

// progressMessage says where a transfer is, in a few words.
func progressMessage(p wire.TransferInfo) string {
	s := fmt.Sprintf("%s %s: %s", p.Action, p.Path, human.Bytes(p.Bytes))
	if p.Total > 0 {
		s += " of " + human.Bytes(p.Total)
	}
	return s + " at " + human.Bytes(p.BytesPerSec) + "/s"
}
