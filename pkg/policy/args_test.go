package policy

import (
	"reflect"

	"github.com/dvvhq/dvv/pkg/wire"
)

// unknownArgs is a request of an op no table has.
type unknownArgs struct{ op string }

func (u unknownArgs) Op() string { return u.op }

// argsOf is op's Args (dvv's table) with the fields given as JSON name,
// value pairs; a field the op does not take is left out, as its Args has
// no place for it. An op the table lacks is unknownArgs.
func argsOf(op string, kv ...any) wire.Args {
	s, ok := wire.Spec(op)
	if !ok {
		return unknownArgs{op}
	}
	a := reflect.New(s.Args).Interface().(wire.Args)
	for i := 0; i+1 < len(kv); i += 2 {
		if f, ok := wire.FieldOf(a, kv[i].(string)); ok {
			f.Set(reflect.ValueOf(kv[i+1]).Convert(f.Type()))
		}
	}
	return a
}
