package freshness

import (
	"syscall"
	"time"
	"unsafe"
)

// Now is the time evidence is recorded at, read from the clock the kernel
// stamps files with (CLOCK_REALTIME_COARSE): a fine-grained clock runs up
// to a tick ahead of it, so a file written just after a fine-grained
// reading can carry an older time.
func Now() time.Time {
	const clockRealtimeCoarse = 5
	var ts syscall.Timespec
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockRealtimeCoarse, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return time.Now()
	}
	return time.Unix(ts.Unix())
}
