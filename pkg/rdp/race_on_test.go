//go:build race

package rdp

// raceDetector: RSS bounds do not hold under the race detector, whose
// shadow memory stays mapped after the heap it shadows is freed.
const raceDetector = true
