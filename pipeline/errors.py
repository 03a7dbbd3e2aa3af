"""The two ways a command can fail, mapped to the exit codes of DESIGN section 5.

``BadInput`` (exit 2) is raised *before* anything is written: the message is
one line naming the file or option, the field, the bad value and what is
allowed.  ``RunFailed`` (exit 1) means the work itself failed part way; what
finished stays on disk.
"""

from __future__ import annotations


class BadInput(ValueError):
    """Bad config, arguments or files: exit code 2, one clear line, nothing written."""


class RunFailed(RuntimeError):
    """A run that failed at work (engine exception, unreachable storage, dead workers): exit code 1."""


class StorageError(RuntimeError):
    """A worker cannot write into the run folder (e.g. ``--out`` is not shared storage on a cluster)."""
