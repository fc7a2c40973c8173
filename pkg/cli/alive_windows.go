package cli

// processAlive is true on Windows: leftovers are kept rather than guessed.
func processAlive(pid int) bool { return true }
