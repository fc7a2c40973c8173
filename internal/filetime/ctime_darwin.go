package filetime

import "syscall"

func statCtime(st *syscall.Stat_t) (int64, int64) { return st.Ctimespec.Sec, st.Ctimespec.Nsec }
