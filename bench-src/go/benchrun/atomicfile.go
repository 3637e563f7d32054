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
	} else if err == nil && !fi.Mode().IsRegular() {
		return notRegular(path, fi)
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
		// the check again, at the last moment: a rename over /dev/null as root
		// would leave a regular file there, and every program after it broken
		if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
			return notRegular(path, fi)
		}
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

// notRegular refuses an --out that exists and is not a regular file: the
// result is moved into place by rename(2), which would replace a device such
// as /dev/null (or a symlink, a FIFO, a socket) with the result file.
func notRegular(path string, fi fs.FileInfo) error {
	return fmt.Errorf("--out %s exists and is not a regular file but %s; expected a result file name, or - for stdout",
		path, fileKind(fi.Mode()))
}

// fileKind names a file's type in words ("a character device").
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a file of type " + m.Type().String()
}
