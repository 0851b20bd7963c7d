#!/usr/bin/env python3
"""progress_pty.py - the progress bar of `hay find` never writes over
matches printed to the same terminal.

Usage: progress_pty.py HAY WORKDIR

Writes a 257 MiB text file into WORKDIR (the bar is drawn for inputs of at
least 256 MiB) with a match every 10,000 lines, and runs `hay find` on a
pseudo-terminal (output post-processing off, so a '\\r' is one that hay
wrote):
  - stdout and stderr on the same terminal: the output must be exactly the
    matched lines, with no '\\r' (the bar would draw over them);
  - stdout to a file, stderr on the terminal: the bar must be drawn there
    ('\\r' and "hay: "), or the first check could not fail;
  - the same with --no-progress: nothing on the terminal.
Prints "N passed, M failed" last; exits 1 on any failure, 77 when the file
cannot be written.
"""
import os
import pty
import subprocess
import sys
import termios

from clitest import check, finish, skip


def on_pty(args, stdout_to_pty):
    """Runs args with stderr (and stdout if asked) on a new terminal;
    returns (what the terminal got, what stdout got otherwise)."""
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST   # no '\n' -> '\r\n'
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    out = slave if stdout_to_pty else subprocess.PIPE
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=slave,
                         env=dict(os.environ, LC_ALL="C"))
    os.close(slave)
    got = b""
    piped = b""
    if not stdout_to_pty:
        piped = p.stdout.read()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # EIO: the terminal's last writer closed it
            break
        if not chunk:
            break
        got += chunk
    p.wait()
    os.close(master)
    return got, piped


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: progress_pty.py HAY WORKDIR")
    hay, work = sys.argv[1], sys.argv[2]
    path = os.path.join(work, "progress-input.txt")
    line = b"x" * 99 + b"\n"
    block = b"".join((b"needle %06d" % i + b"y" * 88 + b"\n") if i % 10000 == 0 else line
                     for i in range(10486))   # ~1 MiB
    want = b""
    try:
        os.makedirs(work, exist_ok=True)
        with open(path, "wb") as f:
            for _ in range(257):
                f.write(block)
                want += b"".join(l + b"\n" for l in block.split(b"\n") if l.startswith(b"needle"))
    except OSError as e:
        skip("cannot write %s: %s" % (path, e))
    try:
        got, _ = on_pty([hay, "find", "needle", path], True)
        check("same terminal: no bar", b"\r" not in got, repr(got[:200]))
        check("same terminal: the matches, whole", got == want,
              "(%d bytes, %d expected)" % (len(got), len(want)))
        bar, piped = on_pty([hay, "find", "needle", path], False)
        check("stdout elsewhere: bar drawn", b"\r" in bar and b"hay: " in bar, repr(bar[:200]))
        check("stdout elsewhere: the matches", piped == want)
        bar, piped = on_pty([hay, "find", "--no-progress", "needle", path], False)
        check("--no-progress: nothing drawn", bar == b"", repr(bar[:200]))
    finally:
        os.unlink(path)
    finish()


if __name__ == "__main__":
    main()
