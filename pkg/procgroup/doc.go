// Package procgroup starts a command in a process group of its own and
// kills the whole group, so that a timeout or a Ctrl-C leaves nothing
// running that the command started (a shell's children, a CLI's tools).
package procgroup
