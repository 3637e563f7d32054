"""Reading a record the lab keeps (a JSON record, a manifest, a staging file) without trusting it:
a regular file, at most a size bound, read whole. A FIFO in a record's place would block the
reader for ever and /dev/zero would fill its memory, so both are refused before a byte is read.
(Result files stream through their own reader, results/file.py, with the same checks.)

A record the lab finds in a run (not a file named on the command line) is read only from inside
that run: a symbolic link there that leads out of it would make the command read, and show, a
file of somebody else's choosing (/etc/shadow as a manifest, another run's verdicts as this
one's). A link that stays inside the run is followed: it can only show the run's own data.
`run=` names the run; without it (an operand the user named) links are followed as benchstat
follows them."""

import errno
import os
import stat

from ..errors import InputError

# The largest record the lab writes is a verify plan of about 150 KB; a record a hundred
# times larger is not one of ours, and reading it would cost the command its memory.
MAX_RECORD_BYTES = 16 * 1024 * 1024


def inside(path, run, what="a record of the run"):
    """The real path of path, a file the lab looks for in the run directory run; InputError naming
    path when a symbolic link on the way leads out of the run (a dangling one included: what it
    would be is judged by where it points)."""
    real, root = os.path.realpath(path), os.path.realpath(run)
    if real != root and os.path.commonpath([real, root]) != root:
        raise InputError(path, f"a symbolic link to {real}, outside the run {run}: expected {what} inside "
                               "the run (copy the file into the run instead of linking it)")
    return real


def open_flags(path, run, what):
    """(the path to open, the flags): with run, the real path inside it (inside()), opened with
    O_NOFOLLOW so a link put in its place after the check is refused, not followed."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if run is None:
        return path, flags
    return inside(path, run, what), flags | os.O_NOFOLLOW


def read_bytes(path, limit=MAX_RECORD_BYTES, what="a record of the lab", run=None):
    """The bytes of the regular file path; InputError naming it when it is not a regular file,
    is larger than limit, cannot be read or (with run, the run directory it was found in) is a
    symbolic link out of the run. what: the expected thing, for the message."""
    real, flags = open_flags(path, run, what)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below then refuses it.
        fd = os.open(real, flags)
    except FileNotFoundError:
        raise InputError(path, f"no such file: expected {what}") from None
    except OSError as e:
        if e.errno == errno.ELOOP and run is not None:  # O_NOFOLLOW met a link put there after the check
            raise InputError(path, f"became a symbolic link while read: expected {what} inside the run") from None
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


def read_text(path, limit=MAX_RECORD_BYTES, what="a record of the lab", run=None):
    """The UTF-8 text of the regular file path (read_bytes' checks), InputError when it is not UTF-8."""
    data = read_bytes(path, limit, what, run)
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


def no_link_out(run, what="a file of the run"):
    """InputError naming the first symbolic link under the run directory run that leads out of it.
    A staging run is the lab's own working directory, read and written file by file by the merge
    and the second passes: one check of the whole tree before they start covers every file they
    touch, those they write included (a link to a directory out of the run would take the writes
    there). A link that stays inside is left alone."""
    root = os.path.realpath(run)
    for directory, dirs, files in os.walk(run):  # links to directories are listed, not walked
        for name in sorted(dirs + files):
            path = os.path.join(directory, name)
            if os.path.islink(path):
                inside(path, run, what)
    return root
