package benchrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckWritable fails early, before an hour of benchmarks, when the result
// could not be stored: existing file without --force, or no such directory.
func CheckWritable(path string, force bool) error {
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--out %s: directory %s does not exist", path, filepath.Dir(path))
	}
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--out %s is a directory; expected a file name", path)
	} else if err == nil && !force {
		return fmt.Errorf("--out %s already exists; refusing to overwrite it (use --force)", path)
	}
	return nil
}

// WriteAtomic writes data to a temporary file in the target's directory and
// moves it into place, so the final name holds either nothing, the old file
// or the complete new one. Without force, a file that appeared meanwhile is
// not replaced: link(2) fails instead of overwriting.
func WriteAtomic(path string, data []byte, force bool) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "tmp-"+base+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if tmp != nil {
			tmp.Close()
		}
		os.Remove(tmp.Name()) // after a rename or link this is a no-op or drops the extra name
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if force {
		return os.Rename(tmp.Name(), path)
	}
	if err = os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("--out %s appeared while benchmarks ran; refusing to overwrite it (use --force)", path)
		}
		return err
	}
	return nil
}
