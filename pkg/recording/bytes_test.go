package recording

// Bytes is the file's size so far.
func (f *FBS) Bytes() int64 { return f.w.written() }
