"""One external brain process: lines in, lines out, with deadlines.

A reader thread turns the brain's stdout into a queue of lines, so that every
wait has a deadline (a brain that hangs is noticed, not waited for). The brain
runs in its own session: a Ctrl-C in the terminal reaches fiverow, which then
ends every brain itself (END, a moment, then a kill of its process group, so a
wrapper script's children go too).

Gomocup brains can drop a command that arrives while they are still finishing
their last answer (Rapfi prints its move before it clears its "thinking"
flag), so a command is sent no sooner than ``settle`` seconds after the
brain's last line, as human-speed managers do.

Lines a brain sends that nobody asked for (an ``ERROR`` for each line of a
block it could not read, an ``INFO`` it refuses) are dropped before the next
command is sent, so that they are never read as that command's answer; the
last ones are kept in ``unrequested``.
"""

from __future__ import annotations

import collections
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence

from .protocol import CHATTER

#: Lines of a brain's stderr kept to explain a crash.
STDERR_TAIL = 5


class BrainFault(Exception):
    """A brain crashed, hung past its time, or answered what cannot be used."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind  # "crash", "timeout", "garbage", "refused", "illegal"
        self.reason = reason


class BrainProcess:
    """A running brain (``argv``), spoken to line by line."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        settle: float = 0.03,
    ) -> None:
        self.argv = list(argv)
        self.settle = settle
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            start_new_session=True,  # the terminal's Ctrl-C is fiverow's to handle
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self.messages: collections.deque[str] = collections.deque(maxlen=20)
        self.unrequested: collections.deque[str] = collections.deque(maxlen=20)
        self.last_line_at = 0.0
        self._readers = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for t in self._readers:
            t.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        try:
            for raw in self.proc.stdout:
                self.lines.put(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        self.lines.put(None)  # end of output: the brain is gone

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        try:
            for raw in self.proc.stderr:
                text = raw.decode("utf-8", errors="replace").strip()
                if text:
                    self.stderr_tail.append(text[:200])
        except (OSError, ValueError):
            pass

    # The brain is never reaped before kill(): while it is a zombie its pid,
    # which is also its process group's id, cannot be reused, so killing the
    # group can only reach the brain and what it started.

    def _exited(self, timeout: float = 0.0) -> os.waitid_result | None:
        """How the brain ended, without reaping it (None: still running)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                result = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:  # already reaped (by kill())
                return None
            if result is not None or time.monotonic() >= deadline:
                return result
            time.sleep(0.01)

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None and self._exited() is None

    def send(self, *lines: str) -> None:
        """Send lines (CR LF ended, as the protocol says), after the brain has
        had ``settle`` seconds since its last line."""
        wait = self.last_line_at + self.settle - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.drain()
        data = "".join(f"{line}\r\n" for line in lines).encode()
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._crashed() from None

    def drain(self) -> list[str]:
        """Drop the lines the brain has sent and nobody read (kept in
        ``unrequested``, chatter in ``messages``); the end of its output stays
        for the next read to find."""
        dropped: list[str] = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return dropped
            if line is None:
                self.lines.put(None)  # the brain is gone: the next answer() says so
                return dropped
            text = line.strip()
            if not text:
                continue
            if text.split(" ")[0].upper() in CHATTER:
                self.messages.append(text[:300])
            else:
                self.unrequested.append(text[:300])
                dropped.append(text)

    def quiet(self, pause: float, deadline: float) -> list[str]:
        """Drop what the brain sends until it has been silent ``pause`` seconds
        (or until ``deadline``): after an answer that was an error, whatever
        else the brain says about the same command."""
        dropped: list[str] = self.drain()
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=min(pause, max(deadline - time.monotonic(), 0.0)))
            except queue.Empty:
                break
            if line is None:
                self.lines.put(None)
                break
            self.last_line_at = time.monotonic()
            self.lines.put(line)
            dropped += self.drain()
        return dropped

    def answer(self, deadline: float, what: str) -> str:
        """The brain's next line that is not MESSAGE / DEBUG, by ``deadline``
        (``time.monotonic()``); BrainFault when it ends or is late."""
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise BrainFault("timeout", f"no answer to {what} in time") from None
            if line is None:
                raise self._crashed()
            self.last_line_at = time.monotonic()
            text = line.strip()
            if not text:
                continue
            if text.split(" ")[0].upper() in CHATTER:
                self.messages.append(text[:300])
                continue
            return text

    def ended_fault(self) -> BrainFault:
        """How a brain that is no longer running ended, as a crash."""
        return self._crashed()

    def _crashed(self) -> BrainFault:
        ended = self._exited(timeout=1.0)
        if ended is None:
            how = "its output closed"
        elif ended.si_code == os.CLD_EXITED:
            how = f"exit code {ended.si_status}"
        else:
            how = f"killed by signal {ended.si_status}"
        time.sleep(0.05)  # the stderr reader's last lines
        tail = f": {self.stderr_tail[-1]}" if self.stderr_tail else ""
        return BrainFault("crash", f"crashed ({how}){tail}")

    def close(self, grace: float = 1.0) -> None:
        """END, then wait up to ``grace`` seconds, then kill its process group."""
        if self.alive:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b"END\r\n")
                self.proc.stdin.flush()
            except (OSError, ValueError):
                pass
            self._exited(timeout=grace)
        self.kill()

    def kill(self) -> None:
        """Kill the brain and whatever it started, and reap it."""
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
