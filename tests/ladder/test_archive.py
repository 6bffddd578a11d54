"""A submission's archive unpacked: what is taken, and every hostile archive refused with
nothing left on disk."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.ladder.archives import Member, tar_bytes, zeros_tgz, zeros_zip, zip_bytes
from tournaments.ladder.archive import ArchiveCaps, checked_name, unpack
from tournaments.ladder.errors import SubmissionError

CAPS = ArchiveCaps(upload_bytes=4 << 20, files=20, file_bytes=1 << 20, total_bytes=2 << 20)
FILES = {
    "ginref-bot.toml": b'language = "python"\n',
    "src/bot.py": b"print('hi')\n",
    "run.sh": Member(b"#!/bin/sh\n", stat.S_IFREG | 0o4775),
}


def refused(data: bytes, tmp_path: Path, step: str = "unpack") -> str:
    """Unpack ``data``, expect a refusal; check nothing is left beside the destination."""
    dest = tmp_path / "v" / "1"
    with pytest.raises(SubmissionError) as caught:
        unpack(data, dest, CAPS)
    assert caught.value.step == step
    assert not dest.exists()
    assert list((tmp_path / "v").iterdir()) == [] if (tmp_path / "v").exists() else True
    return caught.value.message


@pytest.mark.parametrize("pack", [zip_bytes, tar_bytes, lambda m: tar_bytes(m, gz=False)])
def test_files_unpack_with_their_modes(pack: object, tmp_path: Path) -> None:
    dest = tmp_path / "v" / "1"
    assert callable(pack)
    written = unpack(pack(FILES), dest, CAPS)
    assert written == ["ginref-bot.toml", "src/bot.py", "run.sh"]
    assert (dest / "src" / "bot.py").read_bytes() == b"print('hi')\n"
    # Executable stays executable; setuid never survives; the umask does not matter.
    assert stat.S_IMODE((dest / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "ginref-bot.toml").stat().st_mode) == 0o644
    assert stat.S_IMODE((dest / "src").stat().st_mode) == 0o755
    assert [p.name for p in (tmp_path / "v").iterdir()] == ["1"]


def test_kind_is_judged_by_content_not_name(tmp_path: Path) -> None:
    # The service never sees a file name, and a name could lie anyway.
    assert unpack(tar_bytes(FILES), tmp_path / "a", CAPS)[0] == "ginref-bot.toml"
    message = refused(b"just some text that is no archive" * 20, tmp_path)
    assert message == "not a zip, tar or tar.gz archive"


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("../x", "'..'"),
        ("a/../../x", "'..'"),
        ("/etc/passwd", "absolute path"),
        ("a\\..\\x", "backslash"),
    ],
)
@pytest.mark.parametrize("pack", ["zip", "tar"])
def test_names_that_could_escape_are_refused(
    name: str, why: str, pack: str, tmp_path: Path
) -> None:
    check_refused_name(name, why, pack, tmp_path)


def test_a_nul_in_a_zip_name_is_refused(tmp_path: Path) -> None:
    # A tar name ends at its first NUL: only a zip can carry one.
    check_refused_name("a\0b", "NUL", "zip", tmp_path)


def check_refused_name(name: str, why: str, pack: str, tmp_path: Path) -> None:
    members = [("ok.txt", b"fine"), (name, b"evil")]
    data = zip_bytes(members) if pack == "zip" else tar_bytes(members)
    message = refused(data, tmp_path)
    assert why in message
    assert repr(name)[1:-1].split("\\")[0] in message  # the entry is named
    assert not (tmp_path / "x").exists()


def test_checked_name_drops_dots_and_keeps_the_rest() -> None:
    assert checked_name("./a//b/./c") == "a/b/c"
    assert checked_name("dir/") == "dir"
    with pytest.raises(SubmissionError, match="empty"):
        checked_name("./")


@pytest.mark.parametrize("pack", ["zip", "tar"])
def test_a_symlink_is_refused(pack: str, tmp_path: Path) -> None:
    link = Member(mode=stat.S_IFLNK | 0o777, link="/etc/passwd")
    members = {"ok.txt": b"fine", "passwd": link}
    message = refused(zip_bytes(members) if pack == "zip" else tar_bytes(members), tmp_path)
    assert message.startswith("'passwd': a symbolic link")


def test_a_hard_link_is_refused(tmp_path: Path) -> None:
    members = {"ok.txt": b"fine", "hard": Member(link="ok.txt")}
    assert refused(tar_bytes(members), tmp_path).startswith("'hard': a hard link")


@pytest.mark.parametrize(
    ("mode", "what"),
    [
        (stat.S_IFCHR | 0o666, "a device"),
        (stat.S_IFBLK | 0o600, "a device"),
        (stat.S_IFIFO | 0o644, "a FIFO"),
    ],
)
def test_devices_and_fifos_are_refused(mode: int, what: str, tmp_path: Path) -> None:
    members = {"ok.txt": b"fine", "node": Member(mode=mode)}
    assert refused(tar_bytes(members), tmp_path).startswith(f"'node': {what}")
    assert refused(zip_bytes(members), tmp_path).startswith(f"'node': {what}")


@pytest.mark.parametrize("pack", ["zip", "tar"])
def test_duplicate_names_are_refused(pack: str, tmp_path: Path) -> None:
    members: list[tuple[str, bytes | Member]] = [("a.py", b"1"), ("./a.py", b"2")]
    message = refused(zip_bytes(members) if pack == "zip" else tar_bytes(members), tmp_path)
    assert message == "'./a.py': a duplicate name"


def test_a_file_cannot_be_a_directory_too(tmp_path: Path) -> None:
    members: list[tuple[str, bytes | Member]] = [("a", b"1"), ("a/b", b"2")]
    assert refused(zip_bytes(members), tmp_path) == "'a/b': a is a file"


def test_too_many_entries(tmp_path: Path) -> None:
    members = {f"f{i}": b"" for i in range(CAPS.files + 1)}
    for data in (zip_bytes(members), tar_bytes(members)):
        assert "more than 20 entries" in refused(data, tmp_path)


def test_a_file_over_the_cap(tmp_path: Path) -> None:
    members = {"big": os.urandom(CAPS.file_bytes + 1)}
    message = refused(zip_bytes(members), tmp_path)
    assert message == "'big': over the limit of 1 MiB for one file"


def test_the_total_over_the_cap(tmp_path: Path) -> None:
    members = {f"f{i}": os.urandom(CAPS.file_bytes - 10) for i in range(3)}
    message = refused(tar_bytes(members), tmp_path)
    assert message == "'f2': the files unpack to more than the limit of 2 MiB"


def test_an_upload_over_the_cap(tmp_path: Path) -> None:
    data = zip_bytes({"noise": os.urandom(CAPS.upload_bytes)})
    assert refused(data, tmp_path, step="upload").startswith("the archive is ")


@pytest.mark.parametrize("bomb", [zeros_zip, zeros_tgz])
def test_a_bomb_stops_at_the_cap_with_nothing_left(bomb: object, tmp_path: Path) -> None:
    # 1 GiB of zeros in about 1 MB: unpacking stops at the cap, counted as written.
    assert callable(bomb)
    data = bomb("zeros", 1 << 30)
    assert len(data) < CAPS.upload_bytes
    caps = ArchiveCaps(upload_bytes=CAPS.upload_bytes, file_bytes=1 << 30, total_bytes=8 << 20)
    dest = tmp_path / "v" / "1"
    with pytest.raises(SubmissionError, match="more than the limit of 8 MiB"):
        unpack(data, dest, caps)
    assert list((tmp_path / "v").iterdir()) == []


def test_a_zip_whose_header_lies_about_the_size(tmp_path: Path) -> None:
    # The header says 10 bytes; the data holds 2 MiB: the count is of the bytes, not the header.
    data = bytearray(zip_bytes({"f": bytes(2 << 20)}))
    for marker in (b"PK\x03\x04", b"PK\x01\x02"):
        at = data.index(marker)
        offset = 22 if marker == b"PK\x03\x04" else 24
        data[at + offset : at + offset + 4] = (10).to_bytes(4, "little")
    with pytest.raises(SubmissionError) as caught:
        unpack(bytes(data), tmp_path / "v", CAPS)
    assert caught.value.step == "unpack"
    assert not (tmp_path / "v").exists()
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("pack", ["zip", "tgz"])
def test_a_truncated_archive_is_one_line(pack: str, tmp_path: Path) -> None:
    members = {"a.bin": os.urandom(100_000), "b.bin": os.urandom(1000)}
    data = zip_bytes(members) if pack == "zip" else tar_bytes(members)
    message = refused(data[: len(data) // 2], tmp_path)
    assert message.startswith("the archive is broken: ")
    assert "\n" not in message


def test_bad_gzip_is_one_line(tmp_path: Path) -> None:
    data = bytearray(tar_bytes({"a": os.urandom(5000)}))
    data[len(data) // 2 : len(data) // 2 + 50] = bytes(50)
    message = refused(bytes(data), tmp_path)
    assert message.startswith("the archive is broken: ")
    assert "\n" not in message


def test_an_existing_destination_is_left_alone(tmp_path: Path) -> None:
    dest = tmp_path / "v"
    dest.mkdir()
    (dest / "keep").write_text("mine")
    with pytest.raises(OSError):
        unpack(zip_bytes(FILES), dest, CAPS)
    assert [p.name for p in tmp_path.iterdir()] == ["v"]
    assert (dest / "keep").read_text() == "mine"
