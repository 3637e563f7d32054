"""Reading a record the lab keeps (a JSON record, a manifest, a staging file) without trusting it:
a regular file, at most a size bound, read whole. A FIFO in a record's place would block the
reader for ever and /dev/zero would fill its memory, so both are refused before a byte is read.
(Result files stream through their own reader, results/file.py, with the same checks.)"""

import os
import stat

from ..errors import InputError

# The largest record the lab writes is a verify plan of about 150 KB; a record a hundred
# times larger is not one of ours, and reading it would cost the command its memory.
MAX_RECORD_BYTES = 16 * 1024 * 1024


def read_bytes(path, limit=MAX_RECORD_BYTES, what="a record of the lab"):
    """The bytes of the regular file path; InputError naming it when it is not a regular file,
    is larger than limit or cannot be read. what: the expected thing, for the message."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(path, f"no such file: expected {what}") from None
    except OSError as e:
        raise InputError(path, f"cannot open it ({e.strerror or e}): expected {what}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(path, f"expected a regular file ({what}), not a directory, FIFO, socket or device")
        if st.st_size > limit:
            raise InputError(path, f"{st.st_size} bytes: expected {what} of at most {limit} bytes")
        chunks, total = [], 0
        while True:  # read at most limit + 1 bytes: a file growing while read is refused too
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise InputError(path, f"grew past {limit} bytes while read: expected {what} of at most that")
        return b"".join(chunks)
    except OSError as e:
        raise InputError(path, f"cannot read it ({e.strerror or e}): expected {what}") from None
    finally:
        os.close(fd)


def read_text(path, limit=MAX_RECORD_BYTES, what="a record of the lab"):
    """The UTF-8 text of the regular file path (read_bytes' checks), InputError when it is not UTF-8."""
    data = read_bytes(path, limit, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, f"not UTF-8 text ({e.reason} at byte {e.start}): expected {what}") from None


def not_regular(directory, names):
    """shutil.copytree's `ignore`: the names in directory that are neither a regular file nor a
    directory (after symlinks), or cannot be looked at. Copying a run copies its records, never
    a FIFO (the copy would wait for a writer for ever) or a device (/dev/zero never ends)."""
    skip = []
    for name in names:
        try:
            mode = os.stat(os.path.join(directory, name)).st_mode
        except OSError:
            skip.append(name)
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            skip.append(name)
    return skip
