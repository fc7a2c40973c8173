//go:build !linux

package cli

// underClaudeCode is known only where /proc tells a process's ancestors.
func underClaudeCode() bool { return false }
