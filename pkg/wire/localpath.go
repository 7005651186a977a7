package wire

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// LocalPath is an Args field that names a file on dvvd's own machine:
// its JSON name, and the variants it does so in (nil: every one).
type LocalPath struct {
	Field    string
	Variants []string
}

// In reports whether the field names a local path for variant v.
func (p LocalPath) In(v string) bool { return p.Variants == nil || slices.Contains(p.Variants, v) }

var localPaths sync.Map // reflect.Type → []LocalPath

// LocalPaths lists the fields of an Args type whose dvv tag says
// localpath (or localpath=get|… for some variants only), read once per
// type.
// Policy asks local.files of a request that carries one.
func LocalPaths(args reflect.Type) []LocalPath {
	if args == nil {
		return nil
	}
	if v, ok := localPaths.Load(args); ok {
		return v.([]LocalPath)
	}
	var out []LocalPath
	for _, f := range reflect.VisibleFields(args) {
		for _, trait := range strings.Split(f.Tag.Get("dvv"), ",") {
			k, vs, hasVariants := strings.Cut(trait, "=")
			if k != "localpath" {
				continue
			}
			p := LocalPath{Field: jsonName(f)}
			if hasVariants {
				p.Variants = strings.Split(vs, "|")
			}
			out = append(out, p)
		}
	}
	localPaths.Store(args, out)
	return out
}
