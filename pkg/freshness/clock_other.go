//go:build !linux

package freshness

import "time"

// Now is the time evidence is recorded at.
func Now() time.Time { return time.Now() }
