// Package human formats quantities the way people read them, for the
// CLI's tables and progress bar and the bridge's progress messages alike.
package human

import "fmt"

// Bytes writes a byte count in binary units with one decimal ("3.7 MiB").
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
