//go:build !race

package rdp

const raceDetector = false
