//go:build !race

package testbed

const slowdown = 1
