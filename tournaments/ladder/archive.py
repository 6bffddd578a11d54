"""A submission's archive unpacked into its directory: zip, tar or tar.gz, judged by content.

An archive comes from anyone who holds an entrant's token, so nothing in it is trusted: every
name is checked before anything is written (no absolute path, ``..``, backslash or NUL), only
regular files and directories are taken (no link, device or FIFO), and the sizes are counted
as the bytes are written, never read from a header, so that a zip bomb stops at the cap.
Everything goes into a new directory beside ``dest``, renamed to ``dest`` only at the end: an
archive refused halfway leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from referee.bots.limits import MIB, size_text
from tournaments.ladder.errors import SubmissionError

CHUNK = 64 << 10
FILE_MODE = 0o644
EXEC_MODE = 0o755
DIR_MODE = 0o755
# Tar headers (512 bytes each, a pax header's record more) on top of the files' bytes: what a
# tar.gz may decompress to beyond ``total_bytes`` before it is refused as a bomb.
HEADER_ALLOWANCE = 4096


@dataclass(frozen=True, slots=True)
class ArchiveCaps:
    """The most an upload may hold, refused beyond."""

    upload_bytes: int = 16 * MIB  # the archive as uploaded
    files: int = 2000  # entries, directories included
    file_bytes: int = 32 * MIB  # one file, unpacked
    total_bytes: int = 64 * MIB  # every file, unpacked


def unpack(data: bytes, dest: Path, caps: ArchiveCaps) -> list[str]:
    """Unpack ``data`` (zip, tar or gzip'd tar) into ``dest``, which must not exist; the files
    written, in the archive's order. Raises :class:`SubmissionError` (``upload``: over the
    upload cap; ``unpack``: anything else), leaving nothing at ``dest``."""
    if len(data) > caps.upload_bytes:
        raise SubmissionError(
            "upload",
            f"the archive is {size_text(len(data))}, over the limit of "
            f"{size_text(caps.upload_bytes)}",
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.unpack-", dir=dest.parent))
    try:
        work.chmod(DIR_MODE)
        written = _Writer(work, caps)
        if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
            _unpack_zip(data, written)
        elif data.startswith(b"\x1f\x8b"):
            inflated = gzip.GzipFile(fileobj=io.BytesIO(data))
            _unpack_tar(io.BufferedReader(_Capped(inflated, caps)), written)
        elif data[257:262] == b"ustar" or _old_tar(data):
            _unpack_tar(io.BytesIO(data), written)
        else:
            raise SubmissionError("unpack", "not a zip, tar or tar.gz archive")
        work.rename(dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return written.files


def _old_tar(data: bytes) -> bool:
    """A pre-POSIX (v7) tar: no magic, but a header whose checksum adds up."""
    if len(data) < 512:
        return False
    with contextlib.suppress(ValueError):
        field = data[148:156].split(b"\0", 1)[0].strip()
        header = data[:148] + b" " * 8 + data[156:512]
        return bool(field) and int(field, 8) == sum(header)
    return False


def _broken(exc: BaseException) -> SubmissionError:
    text = str(exc).strip() or type(exc).__name__
    return SubmissionError("unpack", f"the archive is broken: {text.splitlines()[0]}")


def _unpack_zip(data: bytes, out: _Writer) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            out.count(len(infos))
            for info in infos:
                mode = info.external_attr >> 16
                kind = stat.S_IFMT(mode)
                name = info.orig_filename  # zipfile's own name is cut at a NUL
                if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                    raise SubmissionError("unpack", f"{_shown(name)}: {_kind_name(kind)}")
                if info.is_dir() or kind == stat.S_IFDIR:
                    out.directory(name)
                    continue
                with archive.open(info) as member:
                    out.file(name, member, bool(mode & 0o111))
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
        raise _broken(exc) from None
    except ValueError as exc:  # zipfile's word for a few malformed headers
        raise _broken(exc) from None


def _unpack_tar(stream: IO[bytes], out: _Writer) -> None:
    try:
        # Stream mode: members are read in order and never sought back to.
        with tarfile.open(fileobj=stream, mode="r|") as archive:
            for member in _members(archive, out):
                if member.isdir():
                    out.directory(member.name)
                elif member.isreg():
                    handle = archive.extractfile(member)
                    assert handle is not None  # a regular file always has one
                    out.file(member.name, handle, bool(member.mode & 0o111))
                else:
                    raise SubmissionError("unpack", f"{_shown(member.name)}: {_tar_kind(member)}")
    except (tarfile.TarError, zlib.error, EOFError, gzip.BadGzipFile) as exc:
        raise _broken(exc) from None
    except OSError as exc:
        raise _broken(exc) from None


def _members(archive: tarfile.TarFile, out: _Writer) -> Iterator[tarfile.TarInfo]:
    for member in archive:
        out.count(1)
        yield member


def _kind_name(kind: int) -> str:
    names = {
        stat.S_IFLNK: "a symbolic link",
        stat.S_IFCHR: "a device",
        stat.S_IFBLK: "a device",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFSOCK: "a socket",
    }
    return names.get(kind, "not a regular file or directory") + " (only files and directories)"


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        what = "a symbolic link"
    elif member.islnk():
        what = "a hard link"
    elif member.ischr() or member.isblk():
        what = "a device"
    elif member.isfifo():
        what = "a FIFO"
    else:
        what = "not a regular file or directory"
    return f"{what} (only files and directories)"


def _shown(name: str) -> str:
    """An entry's name as a message quotes it: control characters escaped, not too long."""
    text = repr(name)
    return text if len(text) <= 120 else text[:117] + "..."


def checked_name(name: str) -> str:
    """``name`` as a relative path of plain components (``./`` and a trailing ``/`` dropped);
    raise :class:`SubmissionError` if it could point outside the archive's directory."""
    if "\0" in name:
        raise SubmissionError("unpack", f"{_shown(name)}: a NUL character in the name")
    if "\\" in name:
        raise SubmissionError("unpack", f"{_shown(name)}: a backslash in the name")
    if name.startswith("/"):
        raise SubmissionError("unpack", f"{_shown(name)}: an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise SubmissionError("unpack", f"{_shown(name)}: a '..' in the path")
    if not parts:
        raise SubmissionError("unpack", f"{_shown(name)}: an empty name")
    return "/".join(parts)


class _Capped(io.RawIOBase):
    """A decompressed stream that ends in a refusal once it has given more bytes than the
    archive's files may hold (a tar.gz bomb stops here even in a header tarfile reads whole)."""

    def __init__(self, inner: gzip.GzipFile, caps: ArchiveCaps) -> None:
        self._inner = inner
        self._left = caps.total_bytes + (caps.files + 1) * HEADER_ALLOWANCE
        self._total = caps.total_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._left <= 0:
            raise SubmissionError(
                "unpack",
                f"the archive unpacks to more than the limit of {size_text(self._total)}",
            )
        want = min(len(buffer), self._left)
        data = self._inner.read(want)
        buffer[: len(data)] = data
        self._left -= len(data)
        return len(data)


class _Writer:
    """Writes the checked entries under ``root``, counting entries and bytes as they go."""

    def __init__(self, root: Path, caps: ArchiveCaps) -> None:
        self.root = root
        self.caps = caps
        self.files: list[str] = []
        self.kinds: dict[str, bool] = {}  # name -> is a directory
        self.entries = 0
        self.total = 0

    def count(self, entries: int) -> None:
        self.entries += entries
        if self.entries > self.caps.files:
            raise SubmissionError(
                "unpack", f"the archive has more than {self.caps.files} entries, the limit"
            )

    def _claim(self, raw: str, is_dir: bool) -> str:
        name = checked_name(raw)
        parts = name.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if self.kinds.get(parent) is False:
                raise SubmissionError("unpack", f"{_shown(raw)}: {parent} is a file")
            if parent not in self.kinds:
                self.kinds[parent] = True
                (self.root / parent).mkdir(mode=DIR_MODE)
        if name in self.kinds:
            if is_dir and self.kinds[name]:
                return name  # a directory named again after a file below it made it
            raise SubmissionError("unpack", f"{_shown(raw)}: a duplicate name")
        self.kinds[name] = is_dir
        return name

    def directory(self, raw: str) -> None:
        name = self._claim(raw, True)
        path = self.root / name
        if not path.is_dir():
            path.mkdir(mode=DIR_MODE)
        path.chmod(DIR_MODE)

    def file(self, raw: str, source: IO[bytes], executable: bool) -> None:
        name = self._claim(raw, False)
        mode = EXEC_MODE if executable else FILE_MODE
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.root / name, flags, mode)
        size = 0
        with os.fdopen(fd, "wb") as target:
            while chunk := source.read(CHUNK):
                size += len(chunk)
                self.total += len(chunk)
                if size > self.caps.file_bytes:
                    raise SubmissionError(
                        "unpack",
                        f"{_shown(raw)}: over the limit of {size_text(self.caps.file_bytes)} "
                        "for one file",
                    )
                if self.total > self.caps.total_bytes:
                    raise SubmissionError(
                        "unpack",
                        f"{_shown(raw)}: the files unpack to more than the limit of "
                        f"{size_text(self.caps.total_bytes)}",
                    )
                target.write(chunk)
        # The umask may have taken bits off; the mode is the archive's, never setuid.
        os.chmod(self.root / name, mode)
        self.files.append(name)
