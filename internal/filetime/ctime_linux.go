package filetime

import "syscall"

func statCtime(st *syscall.Stat_t) (int64, int64) { return int64(st.Ctim.Sec), int64(st.Ctim.Nsec) } //nolint:unconvert // int32 on 32-bit Linux
