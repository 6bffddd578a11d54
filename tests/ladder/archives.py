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


def _files(folder: Path, names: list[str]) -> dict[str, bytes | Member]:
    return {name: (folder / name).read_bytes() for name in names}


def _tree(folder: Path, pattern: str) -> dict[str, bytes | Member]:
    """The files of ``folder`` that ``pattern`` matches, by their paths below it; no EAAI
    bridge (a bot of its own, which the greedy bot does not need)."""
    found = sorted(p for p in folder.glob(pattern) if "Eaai" not in p.name)
    return {str(p.relative_to(folder)): p.read_bytes() for p in found}


# -O0: the test is of the pipeline, and the generated gRPC code takes twice as long at -O1.
CPP_BUILD = """set -eu
mkdir -p gen
protoc --proto_path="$GINREF_PROTO" --cpp_out=gen --grpc_out=gen \\
    --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" ginrummy/v1/ginrummy.proto
flags="-std=c++17 -O0 -Igen -I. $(pkg-config --cflags grpc++ protobuf)"
for src in gen/ginrummy/v1/ginrummy.pb.cc gen/ginrummy/v1/ginrummy.grpc.pb.cc bot.cc greedy_bot.cc
do
    g++ $flags -c "$src" -o "$(basename "$src" .cc).o" &
done
wait
g++ -o greedy_bot *.o $(pkg-config --libs grpc++ protobuf) -lpthread
rm -rf gen *.o
"""

GO_BUILD = """set -eu
module=github.com/ginref/ginref
gopath=/tmp/gopath
mkdir -p "$gopath/src/$module/sample_bots/go"
protoc --proto_path="$GINREF_PROTO" --go_out="$gopath/src" --go-grpc_out="$gopath/src" \\
    ginrummy/v1/ginrummy.proto
cp -r ginrefbot greedy_bot "$gopath/src/$module/sample_bots/go/"
GOPATH="$gopath:$GINREF_GOPATH" GOCACHE=/tmp/gocache \\
    go build -o bot "$module/sample_bots/go/greedy_bot"
"""

JAVA_JARS = (
    "grpc-api grpc-core grpc-context grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub "
    "protobuf guava perfmark-api gson geronimo-annotation-1.3-spec netty-buffer netty-codec "
    "netty-codec-http netty-codec-http2 netty-codec-socks netty-common netty-handler "
    "netty-handler-proxy netty-resolver netty-transport netty-transport-native-unix-common"
)
JAVA_BUILD = f"""set -eu
cp=classes
for jar in {JAVA_JARS}; do cp="$cp:$GINREF_JAVA_JARS/$jar.jar"; done
mkdir -p gen classes
protoc --proto_path="$GINREF_PROTO" --java_out=gen --grpc-java_out=gen \\
    --plugin=protoc-gen-grpc-java="$(command -v grpc_java_plugin)" ginrummy/v1/ginrummy.proto
find gen src -name '*.java' > sources.txt
javac -nowarn -encoding UTF-8 --release 17 -d classes -cp "$cp" @sources.txt
rm -rf gen sources.txt
cat > run.sh <<RUN
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dio.netty.machineId=02:00:00:00:00:01 \\\\
    -cp "$cp" org.ginref.bots.GreedyBot
RUN
"""


def sample_archive(language: str) -> bytes:
    """The sample greedy bot of ``language`` as an entrant would submit it: its sources, a
    build script that uses the season's image (GINREF_PROTO and the rest), and a manifest."""
    if language == "python":
        members = _files(BOTS, ["greedy_bot.py"])
        members["ginref-bot.toml"] = manifest("python", "{python} greedy_bot.py")
        return zip_bytes(members)
    if language == "javascript":
        members = _files(BOTS / "js", ["cards.js", "client.js", "deal.js", "greedy.js"])
        # The repository's client finds the proto beside it; a submission's, in the image.
        client = members["client.js"]
        assert isinstance(client, bytes)
        old = b"path.resolve(__dirname, '..', '..', 'proto')"
        assert old in client
        members["client.js"] = client.replace(old, b"process.env.GINREF_PROTO")
        members["ginref-bot.toml"] = manifest("javascript", "node greedy.js")
        return tar_bytes(members)
    if language == "cpp":
        members = _files(BOTS / "cpp", ["bot.h", "bot.cc", "greedy_bot.cc"])
        members["build.sh"] = CPP_BUILD.encode()
        members["ginref-bot.toml"] = manifest("cpp", "./greedy_bot", "sh build.sh")
        return tar_bytes(members)
    if language == "go":
        members = _tree(BOTS / "go", "ginrefbot/*.go") | _tree(BOTS / "go", "greedy_bot/*.go")
        members["build.sh"] = GO_BUILD.encode()
        members["ginref-bot.toml"] = manifest("go", "./bot", "sh build.sh")
        return zip_bytes(members)
    if language == "java":
        members = _tree(BOTS / "java", "src/**/*.java")
        members["build.sh"] = JAVA_BUILD.encode()
        members["ginref-bot.toml"] = manifest("java", "sh run.sh", "sh build.sh")
        return zip_bytes(members)
    raise ValueError(language)
