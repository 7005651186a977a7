// Command fakeqmp serves a fake or hostile QMP socket (internal/testbed's
// ServeQMP): fakeqmp PATH BEHAVIOUR. The tests run it as another uid.
package main

import "github.com/dvvhq/dvv/internal/testbed"

func main() { testbed.ServeQMPMain() }
