"""Executors: run unit tasks and yield their summaries as they finish.

``serial`` runs in-process (debugging, most tests).  ``ray`` fans out to Ray
workers: a local instance started on demand (127.0.0.1 only, no dashboard) or
an existing cluster (``--address`` / ``RAY_ADDRESS``).  Both keep a bounded
number of units in flight, so the driver's memory does not grow with the study.

Tiny units share Ray tasks: once a few units have come back, each Ray task
carries as many consecutive units as make about :data:`TASK_SECONDS` of play
(at most :data:`MAX_UNITS_PER_TASK`), so Ray's own cost per task (a
millisecond or so in the driver) is shared and the driver's CPU per unit stays
small however small the units are.

Failures: a worker process that dies, or its whole node, is retried by Ray
(``max_retries``) on another node; an exception raised while playing (the
engine, or storage) is not retried and surfaces as :class:`UnitFailed`.  A
cluster left with no CPU at all (every worker node gone) is waited for, with a
visible message, for :func:`no_cpu_timeout` seconds, then the run fails
(:class:`ClusterLost`) and keeps its finished units.
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pipeline.work_units import UnitTask
from pipeline.worker import UnitError, UnitSummary, run_unit, run_units, warm_up

MAX_RETRIES = 3  # retries of a unit whose worker process (or node) died
TASK_SECONDS = 0.05  # play per Ray task that makes Ray's per-task cost negligible
MAX_UNITS_PER_TASK = 64
NO_CPU_TIMEOUT_ENV = "PATIENCE_NO_CPU_TIMEOUT"
NO_CPU_TIMEOUT = 60.0  # seconds a cluster may have no CPU (every worker node gone) before the run fails


def no_cpu_timeout() -> float:
    try:
        return float(os.environ.get(NO_CPU_TIMEOUT_ENV, NO_CPU_TIMEOUT))
    except ValueError:
        return NO_CPU_TIMEOUT


class ClusterLost(RuntimeError):
    """The cluster had no CPU left for longer than the timeout."""


class UnitFailed(RuntimeError):
    """A unit failed for good; ``key`` names it, the message says why in one line."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


class SerialExecutor:
    name = "serial"

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"backend": "serial", "cpus": 1}

    def map(self, tasks: Iterable[UnitTask]) -> Iterator[UnitSummary]:
        for task in tasks:
            try:
                yield run_unit(task)
            except UnitError as exc:
                raise UnitFailed(exc.key, exc.text) from exc
            except Exception as exc:  # noqa: BLE001 - reported as the unit's failure
                raise UnitFailed(task.unit.key, f"{type(exc).__name__}: {exc}") from exc

    def warm_up(self, game: str, rules: Any) -> float:
        return 0.0


def _import_ray(local: bool = False):
    # Must be set before ray is imported: a local Ray instance then binds 127.0.0.1 only.
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if local:
        # Token authentication is what Ray turns on for a new local instance anyway; asking for it
        # explicitly keeps it on and spares every run Ray's notice that it chose so.  Not set when
        # joining a cluster, whose own mode must rule.
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    import ray

    return ray


class RayExecutor:
    """Ray backend.  Reuses an already initialised Ray (tests), else joins ``address`` or starts a local one."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        max_in_flight: int | None = None,
        on_wait: Callable[[str], None] | None = None,
    ):
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self._address_source = "option --address" if address else "RAY_ADDRESS"
        self.num_cpus = num_cpus
        self.max_in_flight = max_in_flight
        self.on_wait = on_wait or (lambda message: None)  # visible messages while the cluster has no CPU
        self._started = False
        self._node: list[tuple[int, str]] = []
        self._remote = None

    def __enter__(self) -> RayExecutor:
        if self.address:  # a dead address fails in seconds, not after Ray's minutes of retries
            check_reachable(self.address, self._address_source)
        ray = _import_ray(local=not self.address)
        if not ray.is_initialized():
            from pipeline.faults import Terminated, children

            on_term = signal.getsignal(signal.SIGTERM)  # pipeline.faults's, under the CLI
            before = children()
            try:
                self._init(ray)
            except SystemExit as exc:  # ray.init's own SIGTERM handler (sys.exit) fired while Ray started
                if exc.code == signal.SIGTERM:
                    raise Terminated(signal.SIGTERM) from None
                raise
            finally:
                if on_term is not None and threading.current_thread() is threading.main_thread():
                    signal.signal(signal.SIGTERM, on_term)  # ray.init put a handler of its own in its place
            self._started = True
            self._node = [child for child in children() if child not in before]  # what ray.init started
        self._ray = ray
        self._remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(run_units)
        return self

    def _init(self, ray: Any) -> None:
        import logging

        if self.address:
            ray.init(address=self.address, logging_level=logging.WARNING, log_to_driver=False)
        else:
            ray.init(
                address="local",
                num_cpus=self.num_cpus,
                include_dashboard=False,
                _node_ip_address="127.0.0.1",
                logging_level=logging.WARNING,
                log_to_driver=False,
            )

    def __exit__(self, *exc: Any) -> None:
        if self._started:
            from pipeline.faults import end_processes, process_trees

            node = process_trees(self._node)  # the local node's processes and theirs (agents, workers)
            self._ray.shutdown()
            end_processes(node)

    def cpus(self) -> int:
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def live_cpus(self) -> float:
        """CPUs of the nodes alive now (0 when every worker node is gone)."""
        return float(self._ray.cluster_resources().get("CPU", 0))

    def warm_up(self, game: str, rules: Any) -> float:
        """Start every worker's engine (imports, compiled kernels) before the clock of the playing phase.

        One small task per CPU; returns the seconds it took (reported as start-up, not as playing).  The run waits
        at most 60 s for them.  A warm-up still going then (a busy machine, a node compiling the kernels for the
        first time) is left to finish, and its worker then plays units warm.  Cancelling it with force, as before,
        killed that worker, and the units compiled all over again in another: a 40-deal FreeCell study on an empty
        numba cache, local Ray on 2 cores beside one busy process, took 147 s so and 116 s now (63 s of start-up
        either way; one run each).
        """
        ray = self._ray
        t0 = time.perf_counter()
        warm = ray.remote(num_cpus=1, max_retries=MAX_RETRIES)(warm_up)
        refs = [warm.remote(game, rules) for _ in range(self.cpus())]
        ray.wait(refs, num_returns=len(refs), timeout=60)
        return time.perf_counter() - t0

    def describe(self) -> dict[str, Any]:
        return {"backend": "ray", "address": self.address or "local", "cpus": self.cpus()}

    def map(self, tasks: Iterable[UnitTask]) -> Iterator[UnitSummary]:
        """Summaries as units finish; at most ``limit`` Ray tasks (each one or a few units) in flight."""
        ray = self._ray
        limit = self.max_in_flight or 2 * self.cpus() + 2
        pending: dict[Any, list[UnitTask]] = {}
        it = iter(tasks)
        exhausted = False
        per_task = 1  # units per Ray task, grown once units prove tiny
        played, played_seconds = 0, 0.0
        no_cpu_since: float | None = None
        try:
            while True:
                while not exhausted and len(pending) < limit:
                    bundle = []
                    for task in it:
                        bundle.append(task)
                        if len(bundle) >= per_task:
                            break
                    if not bundle:
                        exhausted = True
                        break
                    pending[self._remote.remote(bundle)] = bundle
                if not pending:
                    return
                done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
                if not done:
                    no_cpu_since = self._watch_cpus(no_cpu_since)
                    continue
                if no_cpu_since is not None:
                    self.on_wait("a worker node is back: the run goes on")
                    no_cpu_since = None
                for ref in done:
                    bundle = pending.pop(ref)
                    for summary in self._get(ref, bundle):
                        played += 1
                        played_seconds += summary.seconds
                        yield summary
                if played >= 8:
                    mean = max(played_seconds / played, 1e-6)
                    per_task = max(1, min(MAX_UNITS_PER_TASK, math.ceil(TASK_SECONDS / mean)))
        finally:
            for ref in pending:  # a failure or an interrupt: stop what is still queued
                ray.cancel(ref, force=True)

    def _watch_cpus(self, since: float | None) -> float | None:
        """Nothing finished for a second: is any CPU left?  Wait visibly, then give up (ClusterLost)."""
        if self.live_cpus() > 0:
            if since is not None:
                self.on_wait("a worker node is back: the run goes on")
            return None
        now = time.monotonic()
        timeout = no_cpu_timeout()
        if since is None:
            self.on_wait(
                f"the cluster has no CPU left (every worker node is gone): waiting up to {timeout:g} s "
                "for a worker node to join"
            )
            return now
        if now - since > timeout:
            raise ClusterLost(f"the cluster has had no CPU for {timeout:g} s (every worker node is gone)")
        return since

    def _get(self, ref: Any, bundle: list[UnitTask]) -> list[UnitSummary]:
        ray = self._ray
        key = bundle[0].unit.key if len(bundle) == 1 else f"{bundle[0].unit.key} (one of {len(bundle)} units)"
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            if isinstance(cause, UnitError):
                raise UnitFailed(cause.key, cause.text) from None
            first = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
            raise UnitFailed(key, f"{type(cause).__name__}: {first}") from None
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
            raise UnitFailed(key, f"its worker died {MAX_RETRIES + 1} times ({type(exc).__name__})") from None
        except ray.exceptions.RayError as exc:
            first = str(exc).strip().splitlines()[0]
            raise UnitFailed(key, f"{type(exc).__name__}: {first}") from None


def check_reachable(address: str, what: str = "option --address", timeout: float = 5.0) -> None:
    """Refuse (BadInput) a ``host:port`` Ray address where nothing accepts a connection.

    ``ray.init`` retries an address for minutes before it gives up; a TCP connect answers at once for a closed
    port and within ``timeout`` for a host that does not answer.  ``auto`` and ``ray://`` addresses are left to Ray.
    """
    import socket

    from pipeline.errors import BadInput

    if address == "auto" or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise BadInput(
            f"{what}: value {address!r} is not an address; allowed: host:port of a running "
            "Ray head, auto, or ray://host:port"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise BadInput(
            f"{what}: nothing answers at {address} ({reason}); allowed: host:port of a "
            "running Ray head (ray start --head prints it), auto, or ray://host:port"
        ) from None


def make_executor(
    backend: str, address: str | None = None, num_cpus: int | None = None, on_wait: Callable[[str], None] | None = None
):
    if backend == "serial":
        return SerialExecutor()
    if backend == "ray":
        return RayExecutor(address=address, num_cpus=num_cpus, on_wait=on_wait)
    from pipeline.errors import BadInput

    raise BadInput(f"option --backend: value {backend!r} is not known; allowed: ray, serial")
