package config

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFileSize bounds every file gh-ocdx reads as configuration or input
// (the configuration, a repository's .ocdx.json, a findings file): reading
// /dev/zero or a huge file whole would exhaust memory.
const MaxFileSize = 1 << 20

// utf8BOM is what some Windows editors put at the start of a UTF-8 file.
var utf8BOM = []byte("\xef\xbb\xbf")

// ReadFile reads a configuration or input file: a regular file (a symlink to
// one is followed) of at most MaxFileSize bytes, with a leading UTF-8 byte
// order mark removed. A device, a named pipe or a directory is refused before
// it is opened, so that reading never blocks or runs without end. Errors are
// *fs.PathError naming path.
func ReadFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	return readOpened(path)
}

// readOpened opens path and reads it if what it opened is a regular file.
func readOpened(path string) ([]byte, error) {
	// Non-blocking, so that a FIFO swapped in since the Stat does not make
	// the open wait for a writer; the check below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced since the Stat: check what was opened.
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge(path)
	}
	return bytes.TrimPrefix(data, utf8BOM), nil
}

func regular(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		if fi.Size() > MaxFileSize {
			return tooLarge(path)
		}
		return nil
	}
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("it is %s, not a regular file: give the path of a JSON file", kind)}
}

func tooLarge(path string) error {
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("the file is larger than %d KB, too large for a configuration or findings file: check the path", MaxFileSize>>10)}
}
