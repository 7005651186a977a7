package daemon

// group is an ordered set of limbs addressed together.
type group struct {
	id      string
	members []groupMember
}

type groupMember struct {
	limbID string
	host   string
}
