package mcp

import (
	"slices"

	"github.com/dvvhq/dvv/pkg/wire"
)

// beyond is what an op grew after the tool reference was written. The
// reference's tool for it does not offer it: none of the tool's arguments
// can ask for it (wait's window family and screen's window layout, which
// go with the structure set; run's stdinBase64, env and sudo and files'
// stat action, which go with the guest set),
// so its schema, enum and description stay the reference's byte for byte,
// and what it can never answer is not listed.
type beyond struct {
	variants     []string    // variant values the tool's enum leaves out
	codes        []wire.Code // codes only the new arguments can bring
	answerFields []string    // fields of the answer's objects only they fill
}

var beyondReference = map[string]beyond{
	"dvv_wait": {variants: structureUntil,
		codes: []wire.Code{wire.NoStructure, wire.StaleElement, wire.NotFound}, answerFields: []string{"elements"}},
	"dvv_screen": {answerFields: []string{"windows", "windowsAbsent"}},
	"dvv_run":    {codes: []wire.Code{wire.SudoRefused}, answerFields: []string{"sudo", "via"}},
	"dvv_files":  {variants: []string{"stat"}, answerFields: []string{"stat", "offset", "appended"}},
}

// frozen is what the tool leaves out: something only for the reference's
// tools (Set "").
func (t *Tool) frozen() beyond {
	if t.Set != "" {
		return beyond{}
	}
	return beyondReference[t.Name]
}

func without[T comparable](list, drop []T) []T {
	if len(drop) == 0 {
		return list
	}
	return slices.DeleteFunc(list, func(v T) bool { return slices.Contains(drop, v) })
}
