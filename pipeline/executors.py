"""Executors: run unit tasks and yield their summaries as they finish.

``serial`` runs in-process (debugging, most tests).  ``ray`` fans out to Ray
workers: a local instance started on demand (127.0.0.1 only, no dashboard) or
an existing cluster (``--address`` / ``RAY_ADDRESS``).  Both keep a bounded
number of units in flight, so the driver's memory does not grow with the study.

Failures: a worker process that dies is retried by Ray (``max_retries``); an
exception raised while playing (the engine, or storage) is not retried and
surfaces as :class:`UnitFailed`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from pipeline.plan import UnitTask
from pipeline.unit import UnitSummary, run_unit

MAX_RETRIES = 3  # retries of a unit whose worker process died


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
            except Exception as exc:  # noqa: BLE001 - reported as the unit's failure
                raise UnitFailed(task.unit.key, f"{type(exc).__name__}: {exc}") from exc


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

    def __init__(self, address: str | None = None, num_cpus: int | None = None, max_in_flight: int | None = None):
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.num_cpus = num_cpus
        self.max_in_flight = max_in_flight
        self._started = False
        self._remote = None

    def __enter__(self) -> RayExecutor:
        ray = _import_ray(local=not self.address)
        if not ray.is_initialized():
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
            self._started = True
        self._ray = ray
        self._remote = ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(run_unit)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._started:
            self._ray.shutdown()

    def cpus(self) -> int:
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def describe(self) -> dict[str, Any]:
        return {"backend": "ray", "address": self.address or "local", "cpus": self.cpus()}

    def map(self, tasks: Iterable[UnitTask]) -> Iterator[UnitSummary]:
        ray = self._ray
        limit = self.max_in_flight or 2 * self.cpus() + 2
        pending: dict[Any, UnitTask] = {}
        it = iter(tasks)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < limit:
                    task = next(it, None)
                    if task is None:
                        exhausted = True
                        break
                    pending[self._remote.remote(task)] = task
                if not pending:
                    return
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    task = pending.pop(ref)
                    yield self._get(ref, task)
        finally:
            for ref in pending:  # a failure or an interrupt: stop what is still queued
                ray.cancel(ref, force=True)

    def _get(self, ref: Any, task: UnitTask) -> UnitSummary:
        ray = self._ray
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause if getattr(exc, "cause", None) is not None else exc
            first = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
            raise UnitFailed(task.unit.key, f"{type(cause).__name__}: {first}") from None
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
            raise UnitFailed(task.unit.key, f"its worker died {MAX_RETRIES + 1} times ({type(exc).__name__})") from None
        except ray.exceptions.RayError as exc:
            first = str(exc).strip().splitlines()[0]
            raise UnitFailed(task.unit.key, f"{type(exc).__name__}: {first}") from None


def make_executor(backend: str, address: str | None = None, num_cpus: int | None = None):
    if backend == "serial":
        return SerialExecutor()
    if backend == "ray":
        return RayExecutor(address=address, num_cpus=num_cpus)
    from pipeline.errors import BadInput

    raise BadInput(f"option --backend: value {backend!r} is not known; allowed: ray, serial")
