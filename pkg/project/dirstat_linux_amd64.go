package project

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
