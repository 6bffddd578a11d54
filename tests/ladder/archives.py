"""Submission archives for the ladder's tests: zips and tars made member by member (hostile ones
too), and the sample greedy bot of each language as an entrant would submit it."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "sample_bots"


@dataclass(frozen=True)
class Member:
    """An archive member: a file (``data``), or another kind with ``mode``'s type bits."""

    data: bytes = b""
    mode: int = stat.S_IFREG | 0o644
    link: str = ""  # a link's target


def _member(value: bytes | Member) -> Member:
    return value if isinstance(value, Member) else Member(value)


def zip_bytes(members: Mapping[str, bytes | Member] | list[tuple[str, bytes | Member]]) -> bytes:
    """A zip of ``members`` in order (a list may name one twice); a link's target is its data."""
    items = list(members.items()) if isinstance(members, Mapping) else members
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, value in items:
            member = _member(value)
            info = zipfile.ZipInfo(name)
            info.filename = name  # ZipInfo cuts a name at a NUL; a hostile archive does not
            info.create_system = 3  # Unix: the mode is in the external attributes
            info.external_attr = member.mode << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, member.link.encode() if member.link else member.data)
    return out.getvalue()


def tar_bytes(
    members: Mapping[str, bytes | Member] | list[tuple[str, bytes | Member]], gz: bool = True
) -> bytes:
    """A tar (gzip'd with ``gz``) of ``members`` in order."""
    items = list(members.items()) if isinstance(members, Mapping) else members
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz" if gz else "w") as archive:
        for name, value in items:
            member = _member(value)
            info = tarfile.TarInfo(name)
            info.mode = stat.S_IMODE(member.mode)
            kind = stat.S_IFMT(member.mode)
            info.type = {
                stat.S_IFREG: tarfile.REGTYPE,
                stat.S_IFDIR: tarfile.DIRTYPE,
                stat.S_IFLNK: tarfile.SYMTYPE,
                stat.S_IFCHR: tarfile.CHRTYPE,
                stat.S_IFBLK: tarfile.BLKTYPE,
                stat.S_IFIFO: tarfile.FIFOTYPE,
            }[kind]
            if member.link:
                info.linkname = member.link
                if kind == stat.S_IFREG:  # a regular file's mode with a target: a hard link
                    info.type = tarfile.LNKTYPE
            info.size = len(member.data) if info.type == tarfile.REGTYPE else 0
            archive.addfile(info, io.BytesIO(member.data) if info.size else None)
    return out.getvalue()


def zeros_zip(name: str, size: int) -> bytes:
    """A zip bomb: one file of ``size`` zero bytes, deflated (about a thousandth of it)."""
    out = io.BytesIO()
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with (
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open(info, "w", force_zip64=True) as member,
    ):
        block = bytes(1 << 20)
        for _ in range(size >> 20):
            member.write(block)
    return out.getvalue()


def zeros_tgz(name: str, size: int) -> bytes:
    """A tar.gz bomb: one file of ``size`` zero bytes."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        info = tarfile.TarInfo(name)
        info.size = size
        archive.addfile(info, _Zeros(size))
    return out.getvalue()


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def manifest(language: str, run: str, build: str | None = None, **more: str) -> bytes:
    """A ``ginref-bot.toml``."""
    lines = [f'language = "{language}"', f"run = {run!r}"]
    if build is not None:
        lines.append(f"build = {build!r}")
    lines += [f"{key} = {value!r}" for key, value in more.items()]
    return ("\n".join(lines) + "\n").encode()
