package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

// conventions applies, across the whole tree, what a shell user expects
// of every command: `list` wherever there is `ls`, dynamic completion of
// limb ids, group ids and saved hosts for the first argument that names
// one, and completion of the flags that take a fixed set of values. The
// completion part is set up only when the shell asks for completions
// (cobra's hidden __complete command): every other run skips its cost.
func conventions(e *env, root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "ls" && !hasAlias(c, "list") {
			c.Aliases = append(c.Aliases, "list")
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if e.completing {
			completions(e, c)
		}
	}
	walk(root)
}

// completions registers c's argument and flag completions.
func completions(e *env, c *cobra.Command) {
	{
		if c.ValidArgsFunction == nil && c.Runnable() {
			if fields := strings.Fields(c.Use); len(fields) > 1 {
				switch fields[1] {
				case "<limbId>":
					c.ValidArgsFunction = firstArg(e, completeLimbs)
				case "<groupId>", "[groupId]":
					c.ValidArgsFunction = firstArg(e, completeGroups)
				case "<address|hostId>", "<name|id>":
					c.ValidArgsFunction = firstArg(e, completeHosts)
				}
			}
		}
		for flag, values := range enumFlags() {
			if c.Flags().Lookup(flag) != nil {
				vals := values
				c.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
					return vals, cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
	}
}

// enumFlags are the flags whose values are a fixed set (made when the
// shell asks for completions, not at every start).
var enumFlags = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"protocol": wire.ProtocolNames(),
		"until":    variants(wire.OpWait),
		"form":     variants(wire.OpScreen),
		// click's: no other command has these flags.
		"action":    variants(wire.OpClick),
		"button":    fieldValues(wire.OpClick, "button"),
		"direction": fieldValues(wire.OpClick, "direction"),
		"role":      {"observer", "operator", "owner"},
	}
})

func hasAlias(c *cobra.Command, a string) bool {
	for _, x := range c.Aliases {
		if x == a {
			return true
		}
	}
	return false
}

// firstArg completes the first positional argument with what list returns
// from dvvd; later arguments get the shell's default.
func firstArg(e *env, list func(*env) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return list(e), cobra.ShellCompDirectiveNoFileComp
	}
}

// ask sends one read-only request for completion through the typed method
// m: a short deadline, and nothing printed when dvvd is not there.
func ask[A wire.Args, R any](e *env, m method[A, R], a A) *R {
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Second)
	defer cancel()
	c, done, err := e.client(ctx)
	if err != nil {
		return nil
	}
	defer done()
	ans, err := m(c, ctx, a)
	if err != nil {
		return nil
	}
	return ans
}

func completeLimbs(e *env) []string {
	resp := ask(e, (*client.Client).Limbs, wire.LimbsArgs{})
	if resp == nil {
		return nil
	}
	var out []string
	for _, l := range append(resp.Limbs, resp.Available...) {
		out = append(out, fmt.Sprintf("%s\t%s %s", l.LimbID, l.Protocol, endpoint(l.Address, l.Port)))
	}
	return out
}

func completeGroups(e *env) []string {
	resp := ask(e, (*client.Client).GroupList, wire.GroupListArgs{})
	if resp == nil {
		return nil
	}
	var out []string
	for _, g := range resp.Groups {
		out = append(out, fmt.Sprintf("%s\t%d members", g.GroupID, g.Size))
	}
	return out
}

func completeHosts(e *env) []string {
	resp := ask(e, (*client.Client).Hosts, wire.HostsArgs{})
	if resp == nil {
		return nil
	}
	var out []string
	for _, h := range resp.Hosts {
		out = append(out, fmt.Sprintf("%s\t%s %s", h.Name, h.Protocol, endpoint(h.Address, h.Port)))
	}
	return out
}

// suggest adds "did you mean" to an unknown sub-command: the closest name
// within two edits, else one the typed word begins.
func suggest(c *cobra.Command, typed string) string {
	best, bestD := "", 3
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() {
			continue
		}
		d := editDistance(strings.ToLower(typed), sub.Name())
		if d < bestD || (bestD > 2 && strings.HasPrefix(sub.Name(), strings.ToLower(typed))) {
			best, bestD = sub.Name(), d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean `%s %s`?", c.CommandPath(), best)
}

// editDistance is the Levenshtein distance of two short words.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
