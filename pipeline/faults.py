"""How a run ends when the machine ends it: signals handled as Ctrl-C is, and space kept for the last word.

**Signals.**  SIGTERM (what ``kill``, a batch scheduler or a container stop sends) and SIGHUP (a closed
terminal) raise :class:`Terminated`, a ``KeyboardInterrupt``, in the main thread, so a run stopped so ends as
one stopped by Ctrl-C does: its finished units kept, ``run.json`` saying "interrupted", the lock released, Ray
shut down, and the one line "interrupted" printed; the exit code is 128 + the signal's number (130, 143, 129),
the shell's convention.  Only the first signal interrupts: the ones that follow (a process group signalled
at once, an impatient second Ctrl-C) are recorded and ignored, so they cannot cut the clean-up short; SIGKILL
is still there for a clean-up that hangs.  ``ray.init`` installs a SIGTERM handler of its own (``sys.exit``),
so :class:`pipeline.executors.RayExecutor` puts back the one it found once Ray is up.

**Processes.**  ``ray.shutdown`` gives each process of a local node one second after SIGTERM, then SIGKILL;
the node's agents, left behind, then try to report the raylet's death to a GCS that is gone, and linger for
a minute.  So the Ray executor notes the processes ``ray.init`` started (:func:`children`), lists them and
theirs before it shuts Ray down (:func:`process_trees`) and ends those still running after
(:func:`end_processes`).

**Space.**  A full disk must not leave ``run.json`` saying "running".  A local run keeps a reserve file in
``_tmp/`` (:class:`SpaceReserve`), large enough for two copies of its manifest and a chunk of the unit log;
when a write fails, the run deletes it and so has room to write how it ended.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """The process was asked to stop by a signal other than SIGINT (SIGTERM, SIGHUP)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_received: list[int] = []  # the signals seen inside signals_caught(), first first


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) > 1:  # the run is already ending: let its clean-up finish
        return
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextmanager
def signals_caught() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP routed to :func:`_on_signal` inside the block, the handlers before it put back
    after it (a CLI called in-process by tests leaves its caller's handlers alone).  Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    before = {signum: signal.signal(signum, _on_signal) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        _received.clear()


def first_signal() -> int | None:
    """The signal that interrupted this process, if one did."""
    return _received[0] if _received else None


class SpaceReserve:
    """A file of ``size`` bytes under ``folder``, deleted (:meth:`free`) when a write meets a full disk.

    Named like the temporary files of :mod:`pipeline.run_store` (32 hex digits, ``.tmp``), so whatever removes a
    killed run's temporary files removes it too.  Creating it on a disk that cannot hold it raises OSError: a run
    that could not record its own end is not started.
    """

    def __init__(self, folder: Path, size: int):
        self.path: Path | None = folder / f"{uuid.uuid4().hex}.tmp"
        folder.mkdir(parents=True, exist_ok=True)
        try:
            with open(self.path, "wb") as f:
                try:  # blocks allocated now, not at the first write
                    os.posix_fallocate(f.fileno(), 0, size)
                except (AttributeError, OSError) as exc:  # macOS, or a file system without it: written out
                    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
                        raise
                    f.write(b"\0" * size)
        except BaseException:
            self.free()
            raise

    def free(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None


KILL_WAIT = 5.0  # seconds end_processes waits for the processes it killed to be gone


def _started_at(pid: int) -> tuple[int, str] | None:
    """(parent pid, start time) of a live process from /proc, None when it is gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm)": state, ppid, ..., starttime (22nd)
    return None if fields[0] in "ZX" else (int(fields[1]), fields[19])


def _live_processes() -> dict[int, tuple[int, str]]:
    """pid: (parent pid, start time) of every live process; empty where there is no /proc."""
    if not Path("/proc/self/stat").exists():
        return {}
    return {int(n): info for n in os.listdir("/proc") if n.isdigit() and (info := _started_at(int(n))) is not None}


def children() -> list[tuple[int, str]]:
    """This process's live children, each as (pid, start time), so that a pid reused later is not taken for it."""
    me = os.getpid()
    return [(pid, start) for pid, (ppid, start) in _live_processes().items() if ppid == me]


def process_trees(roots: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``roots`` still running, with every live process below them."""
    live = _live_processes()
    tree = [(pid, start) for pid, start in roots if pid in live and live[pid][1] == start]
    frontier = [pid for pid, _ in tree]
    while frontier:
        up = frontier.pop()
        for pid, (ppid, start) in live.items():
            if ppid == up:
                tree.append((pid, start))
                frontier.append(pid)
    return tree


def end_processes(procs: list[tuple[int, str]], grace: float = 5.0) -> list[int]:
    """SIGTERM to each of ``procs`` still running (the same process: same start time), SIGKILL to those left
    after ``grace`` seconds, and a wait of up to ``KILL_WAIT`` seconds for them to go (a loaded machine can take
    a moment to end a killed process).  Returns the pids that had to be killed."""

    def alive() -> list[int]:
        return [pid for pid, start in procs if (info := _started_at(pid)) is not None and info[1] == start]

    for pid in alive():
        with suppress(ProcessLookupError, PermissionError):  # gone already
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    killed = alive()
    for pid in killed:
        with suppress(ProcessLookupError, PermissionError):  # gone already
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + KILL_WAIT
    while killed and alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    return killed
