package cli

import "io/fs"

// fileID is not known here: every name counts.
func fileID(fs.FileInfo) ([2]uint64, bool) { return [2]uint64{}, false }
