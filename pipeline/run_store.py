"""Where a run lives: a local folder or an object-storage prefix, behind one small interface.

Every command that reads or writes a run goes through a :class:`RunStore` made by
:func:`open_run` from what the user typed (``--out``, ``RUN_DIR``):

* a local path (or ``file://``): :class:`LocalStore`.  Exactly what the run folder
  always was: a part is written under ``_tmp/`` and renamed into place, run.json is
  replaced by a rename, ``units.jsonl`` is appended to, ``run.lock`` is a ``flock``.
  Reads use plain paths, so polars and pyarrow read local files as fast as before.
* any URI ``pyarrow.fs.FileSystem.from_uri`` understands (``s3://bucket/prefix``,
  ``gs://...``): :class:`ObjectStore`.  An object PUT is atomic (a reader sees the
  whole object or none), so a part, run.json and each chunk of the unit log are
  written straight to their final key, with no rename; resume lists the prefix.
  Credentials, region and endpoint come from the standard environment and config
  (for S3: ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN``,
  ``AWS_PROFILE`` and ``~/.aws/config``, ``AWS_REGION``, ``AWS_ENDPOINT_URL``);
  nothing secret is ever put in a message, run.json or the Parquet metadata, since
  only the URI the user typed is recorded and shown.

Workers get the run's URI (a string) and open the store themselves
(:func:`open_run` caches one per process), so no file-system object (and no
credential) travels through Ray.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.errors import BadInput

TMP_DIR = "_tmp"


def is_uri(target: str | Path) -> bool:
    """True for an object-storage URI (``scheme://...``) other than ``file://``."""
    text = str(target)
    return "://" in text and not text.startswith("file://")


def open_run(target: str | Path, what: str = "RUN_DIR") -> RunStore:
    """The store of a run: a local folder, or an object-storage prefix for a URI.

    ``what`` names the argument in a bad-input message (``option --out``, ``RUN_DIR``).
    """
    if isinstance(target, RunStore):
        return target
    text = str(target)
    if is_uri(text):
        _refuse_secrets_in(text, what)
        store = _object_store(text.rstrip("/"))
        if isinstance(store, str):
            raise BadInput(f"{what} {text}: {store}")
        return store
    if text.startswith("file://"):
        text = text[len("file://") :]
    return LocalStore(Path(text))


SECRET_QUERY_KEYS = ("access_key", "secret_key", "session_token")


def _refuse_secrets_in(uri: str, what: str) -> None:
    """pyarrow takes credentials in a URI's query; they would then be shown and recorded: refused, unshown."""
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(uri)
    keys = sorted(k for k in parse_qs(parts.query) if k in SECRET_QUERY_KEYS)
    if keys or parts.password:
        named = ", ".join(keys) or "a password"
        raise BadInput(
            f"{what}: the URI carries credentials ({named}; not shown); allowed: a URI without them, "
            "credentials from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE) "
            "or ~/.aws"
        )


@lru_cache(maxsize=16)
def _object_store(uri: str) -> ObjectStore | str:
    """One store (one pyarrow file system, its connections reused) per URI and process; a str says why not."""
    import pyarrow.fs as pafs

    scheme = uri.split("://", 1)[0]
    try:
        fs, root = pafs.FileSystem.from_uri(uri)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds; the first line is what matters
        return (
            f"not a storage URI pyarrow can open ({first_line(exc)}); allowed: a local path, or "
            "s3://bucket/prefix (any URI pyarrow.fs.FileSystem.from_uri understands)"
        )
    root = root.rstrip("/")
    if not root or (scheme in ("s3", "gs", "gcs") and "/" not in root):
        return f"names a bucket but no prefix; allowed: {scheme}://bucket/prefix (a run needs a folder of its own)"
    return ObjectStore(uri, fs, root, scheme)


def s3_credentials_missing() -> bool:
    """True only when no AWS credential source can exist: no keys in the environment, no web identity or
    container credentials, no profile with credentials in the shared files, and the instance metadata
    service turned off (``AWS_EC2_METADATA_DISABLED=true``).  Otherwise S3 itself answers."""
    import configparser

    env = os.environ
    if env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):
        return False
    if any(
        env.get(k)
        for k in (
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        )
    ):
        return False
    profile = env.get("AWS_PROFILE") or env.get("AWS_DEFAULT_PROFILE") or "default"
    home = Path.home() / ".aws"
    keys = {
        "aws_access_key_id",
        "credential_process",
        "sso_session",
        "sso_start_url",
        "role_arn",
        "web_identity_token_file",
        "credential_source",
    }
    for file, section in (
        (env.get("AWS_SHARED_CREDENTIALS_FILE") or home / "credentials", profile),
        (env.get("AWS_CONFIG_FILE") or home / "config", profile if profile == "default" else f"profile {profile}"),
    ):
        parser = configparser.RawConfigParser()
        try:
            parser.read(file)
        except (OSError, configparser.Error):
            continue
        if parser.has_section(section) and keys & set(parser.options(section)):
            return False
    return env.get("AWS_EC2_METADATA_DISABLED", "").lower() == "true"  # else an instance role may answer


def _endpoint_text() -> str:
    """The S3 endpoint in use, for messages (host and port only: never a userinfo part)."""
    from urllib.parse import urlsplit

    url = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if not url:
        return "the AWS S3 endpoint"
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def storage_problem(exc: BaseException) -> str:
    """One line saying why a storage request failed, from pyarrow's message (which holds no secret)."""
    text = first_line(exc)
    if "NETWORK_CONNECTION" in text or "Could not connect" in text or "curlCode" in text:
        return f"cannot reach {_endpoint_text()} (connection failed)"
    if (
        "ACCESS_DENIED" in text
        or "AccessDenied" in text
        or "403" in text
        or "INVALID_ACCESS_KEY" in text
        or "SIGNATURE" in text.upper()
    ):
        return "access denied: no credentials, or credentials without access to it"
    if "NO_SUCH_BUCKET" in text:
        return "the bucket does not exist"
    return text.split(" (Request ID")[0]


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def parquet_options(table) -> dict:
    """How every part is encoded: zstd; the ``deal`` column (consecutive indices) delta-encoded, the others
    dictionary-encoded.  Measured on a 20,000-row Perpetual Motion part: 3.1 ms and 73 KiB against 4.2 ms
    and 129 KiB for zstd with pyarrow's defaults (a dictionary over unique indices costs time and space),
    a few percent of a worker's time at 10^9 deals.  Column statistics (which readers use for deal ranges
    and chart maxima) are written as before."""
    names = table.column_names
    if "deal" not in names:
        return {"compression": "zstd"}
    return {
        "compression": "zstd",
        "use_dictionary": [n for n in names if n != "deal"],
        "column_encoding": {"deal": "DELTA_BINARY_PACKED"},
    }


@dataclass(frozen=True)
class PartStamp:
    """What a part's writer knows of the bytes it wrote: their sha256 (hex), their size and the file's
    modification time as the store reports it (ns; whole seconds on object storage).  The hash goes in the
    unit log (pipeline.integrity); size and time let a reader trust an unchanged file without reading it."""

    sha256: str
    size: int
    mtime_ns: int | None


def encode_table(table):
    """A part's Parquet bytes, encoded in memory (:func:`parquet_options`): hashed and written as they are, so
    the hash costs no second read of the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **parquet_options(table))
    return sink.getvalue()


class RunStore:
    """A run's location.  ``rel`` paths use ``/`` and are relative to the run's root."""

    local: bool
    uri: str  # as the user gave it; what messages and run.json show

    def where(self, rel: str = "") -> str:
        """The text a message shows for ``rel`` (a local path, or the URI joined with ``rel``)."""
        return f"{self.uri}/{rel}" if rel else self.uri

    @property
    def name(self) -> str:
        """The run folder's own name (the last part of its path or prefix)."""
        return self.uri.rstrip("/").rsplit("/", 1)[-1]

    def label(self) -> str:
        """A name that tells two runs apart (the resolved folder name locally)."""
        return self.name

    def check_exists(self, what: str) -> None:
        """BadInput unless the run folder (or prefix) exists."""
        if not self.root_exists():
            raise BadInput(f"{what} {self.uri}: no such folder; allowed: a folder written by `patience run`")

    def __str__(self) -> str:
        return self.uri

    # -- reading --------------------------------------------------------------------------------
    def exists(self, rel: str) -> bool:
        raise NotImplementedError

    def root_exists(self) -> bool:
        raise NotImplementedError

    def read_bytes(self, rel: str) -> bytes | None:
        """The file's bytes, or None when it does not exist."""
        raise NotImplementedError

    def top_names(self) -> list[str]:
        """Names directly under the root (files and folders); empty when the root does not exist."""
        raise NotImplementedError

    def list_tree(self, rel: str) -> Iterator[tuple[str, int]]:
        """(path relative to ``rel``, size) of every file under folder ``rel``, at any depth."""
        raise NotImplementedError

    def variant_files(self) -> Iterator[tuple[str, str, int | None]]:
        """(folder name, path inside it, size or None) of every file under every ``variant=*`` folder."""
        for name in self.top_names():
            if name.startswith("variant="):
                for sub, size in self.list_tree(name):
                    yield name, sub, size

    def parquet_file(self, rel: str, **kwargs: Any):
        """A ``pyarrow.parquet.ParquetFile`` of ``rel``."""
        raise NotImplementedError

    def read_path(self, rel: str) -> str:
        """What pyarrow (with :attr:`filesystem`) and, locally, polars are given to read ``rel``."""
        raise NotImplementedError

    @property
    def filesystem(self):
        """The pyarrow file system to pass with :meth:`read_path` (None: a local path)."""
        raise NotImplementedError

    # -- writing --------------------------------------------------------------------------------
    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write a whole file atomically (readers see the old one or the new one, never half)."""
        raise NotImplementedError

    def write_table(self, rel: str, table) -> PartStamp:
        """Write a Parquet file atomically; its stamp (hash, size, time) as written."""
        raise NotImplementedError

    def stats(self, rels: list[str]) -> dict[str, tuple[int, int | None]]:
        """rel -> (size, modification time in ns) of each existing file of ``rels`` (symlinks followed)."""
        raise NotImplementedError

    def is_link(self, rel: str) -> bool:
        """True when ``rel`` is a symbolic link (never on object storage)."""
        return False

    def delete(self, rel: str) -> None:
        raise NotImplementedError

    def delete_tree(self, rel: str) -> None:
        raise NotImplementedError


class LocalStore(RunStore):
    """A run folder on a local (or shared, mounted) file system: temp file and rename, as always."""

    local = True

    def __init__(self, root: Path):
        self.root = Path(root)
        self.uri = str(root)

    def where(self, rel: str = "") -> str:
        return str(self.root / rel) if rel else str(self.root)

    def __repr__(self) -> str:
        return f"LocalStore({self.root!s})"

    @property
    def name(self) -> str:
        return self.root.name

    def label(self) -> str:
        return self.root.resolve().name

    def make_root(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)

    def check_exists(self, what: str) -> None:
        if not self.root.is_dir():
            raise BadInput(f"{what} {self.root}: no such folder; allowed: a folder written by `patience run`")

    def exists(self, rel: str) -> bool:
        return (self.root / rel).exists()

    def root_exists(self) -> bool:
        return self.root.exists()

    def read_bytes(self, rel: str) -> bytes | None:
        try:
            return (self.root / rel).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def top_names(self) -> list[str]:
        try:
            return [e.name for e in os.scandir(self.root)]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def list_tree(self, rel: str) -> Iterator[tuple[str, int]]:
        base = self.root / rel
        stack = [("", base)]
        while stack:
            prefix, folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    stack.append((f"{prefix}{e.name}/", Path(e.path)))
                else:
                    yield f"{prefix}{e.name}", None  # size read only when needed (see store.run_parts)

    def parquet_file(self, rel: str, **kwargs: Any):
        import pyarrow.parquet as pq

        return pq.ParquetFile(str(self.root / rel), **kwargs)

    def read_path(self, rel: str) -> str:
        return str(self.root / rel)

    @property
    def filesystem(self):
        return None

    def write_bytes(self, rel: str, data: bytes) -> None:
        tmp = self.root / TMP_DIR / f"{uuid.uuid4().hex}.tmp"
        tmp.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp.write_bytes(data)
            final = self.root / rel
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, final)
        finally:
            tmp.unlink(missing_ok=True)

    def write_table(self, rel: str, table) -> PartStamp:
        data = encode_table(table)
        digest = hashlib.sha256(data).hexdigest()
        tmp = self.root / TMP_DIR / f"{uuid.uuid4().hex}.tmp"
        final = self.root / rel
        try:
            tmp.parent.mkdir(exist_ok=True)
            final.parent.mkdir(exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        st = os.stat(final)  # the rename keeps the file's time: what a reader will see
        return PartStamp(digest, st.st_size, st.st_mtime_ns)

    def stats(self, rels: list[str]) -> dict[str, tuple[int, int | None]]:
        out, root, stat, join = {}, str(self.root), os.stat, os.path.join  # plain strings: 10^5 stats in 0.2 s
        for rel in rels:
            try:
                st = stat(join(root, rel))
            except OSError:
                continue
            out[rel] = (st.st_size, st.st_mtime_ns)
        return out

    def is_link(self, rel: str) -> bool:
        return (self.root / rel).is_symlink()

    def delete(self, rel: str) -> None:
        (self.root / rel).unlink(missing_ok=True)

    def delete_tree(self, rel: str) -> None:
        import shutil

        path = self.root / rel
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


class ObjectStore(RunStore):
    """A run under an object-storage prefix: every file is one object, written by one atomic PUT."""

    local = False

    def __init__(self, uri: str, fs, root: str, scheme: str = "s3"):
        self.uri = uri
        self.fs = fs
        self.root = root
        self.scheme = scheme
        self.bucket = root.split("/", 1)[0]

    def preflight(self, what: str, writing: bool) -> None:
        """Before anything runs: the bucket exists and answers; for writing to S3, credentials exist.

        BadInput (exit 2), one line, nothing written.  Reading needs no credentials (a public bucket)."""
        import pyarrow.fs as pafs

        if writing and self.scheme == "s3" and s3_credentials_missing():
            raise BadInput(
                f"{what} {self.uri}: no AWS credentials found (environment, ~/.aws, instance metadata "
                "turned off); allowed: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or a "
                "profile in ~/.aws/credentials"
            )
        try:
            info = self.fs.get_file_info(self.bucket)
        except OSError as exc:
            raise BadInput(
                f"{what} {self.uri}: {storage_problem(exc)}; allowed: a bucket the endpoint serves and "
                "the credentials can reach (AWS_ENDPOINT_URL, AWS_PROFILE, AWS_ACCESS_KEY_ID...)"
            ) from None
        if info.type == pafs.FileType.NotFound:
            raise BadInput(
                f"{what} {self.uri}: bucket {self.bucket!r} does not exist at {_endpoint_text()}; "
                "allowed: an existing bucket (create it first)"
            )

    def check_exists(self, what: str) -> None:
        self.preflight(what, writing=False)
        if not self.top_names():
            raise BadInput(f"{what} {self.uri}: nothing under this prefix; allowed: a prefix written by `patience run`")

    def make_root(self) -> None:
        pass  # object storage has no folders

    def __repr__(self) -> str:
        return f"ObjectStore({self.uri})"

    def __reduce__(self):  # travels as its URI: the worker opens its own (its own credentials)
        return (open_run, (self.uri,))

    def _p(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def exists(self, rel: str) -> bool:
        import pyarrow.fs as pafs

        return self.fs.get_file_info(self._p(rel)).type != pafs.FileType.NotFound

    def root_exists(self) -> bool:
        self.preflight("RUN_DIR", writing=False)
        return bool(self.top_names())

    def read_bytes(self, rel: str) -> bytes | None:
        try:
            with self.fs.open_input_stream(self._p(rel)) as f:
                return f.read()
        except FileNotFoundError:
            return None

    def _infos(self, rel: str, recursive: bool):
        import pyarrow.fs as pafs

        sel = pafs.FileSelector(self._p(rel), recursive=recursive, allow_not_found=True)
        return self.fs.get_file_info(sel)

    def top_names(self) -> list[str]:
        return [info.base_name for info in self._infos("", False)]

    def list_tree(self, rel: str) -> Iterator[tuple[str, int]]:
        import pyarrow.fs as pafs

        base = self._p(rel) + "/"
        for info in self._infos(rel, True):
            if info.type == pafs.FileType.File:
                yield info.path[len(base) :], info.size

    def parquet_file(self, rel: str, **kwargs: Any):
        import pyarrow.parquet as pq

        return pq.ParquetFile(self._p(rel), filesystem=self.fs, **kwargs)

    def read_path(self, rel: str) -> str:
        return self._p(rel)

    @property
    def filesystem(self):
        return self.fs

    def write_bytes(self, rel: str, data: bytes) -> None:
        with self.fs.open_output_stream(self._p(rel)) as f:
            f.write(data)

    def write_table(self, rel: str, table) -> PartStamp:
        # Encoded in memory first, so an error while encoding uploads nothing; then one upload (a PUT, or a
        # multipart upload for a large part, completed on close): the key appears whole or not at all.
        data = encode_table(table)
        digest = hashlib.sha256(data).hexdigest()
        self.write_bytes(rel, data)
        info = self.fs.get_file_info(self._p(rel))  # one HEAD: the time a listing will show
        return PartStamp(digest, len(data), info.mtime_ns)

    def stats(self, rels: list[str]) -> dict[str, tuple[int, int | None]]:
        import pyarrow.fs as pafs

        wanted = set(rels)
        out = {}
        for folder in sorted({rel.split("/", 1)[0] for rel in rels}):  # one listing per variant folder
            for info in self._infos(folder, True):
                rel = info.path[len(self.root) + 1 :]
                if info.type == pafs.FileType.File and rel in wanted:
                    out[rel] = (info.size, info.mtime_ns)
        return out

    def delete(self, rel: str) -> None:
        try:
            self.fs.delete_file(self._p(rel))
        except FileNotFoundError:
            pass

    def delete_tree(self, rel: str) -> None:
        import pyarrow.fs as pafs

        info = self.fs.get_file_info(self._p(rel))
        if info.type == pafs.FileType.Directory:
            self.fs.delete_dir(self._p(rel))
        elif info.type == pafs.FileType.File:
            self.fs.delete_file(self._p(rel))
