"""The bots' cgroup v2 path (referee/bots/cgroup.py), run for real: CPU bandwidth, the process
and memory limits, the counts read back, freezing and killing, on a kernel whose unified
hierarchy holds the cpu, memory and pids controllers.

On a cgroup v2 machine that is this one. Where the kernel keeps them on cgroup v1 (as here: a
controller bound to a v1 hierarchy cannot be had in any namespace), the checks run in a virtual
machine booted with virtme-ng, which shares this machine's files read-only: QEMU and a Debian
kernel (scripts/setup-vm), on the emulated CPU, so that no nested virtualisation is needed.
What runs there is ``tests/support/cgroup_v2_guest.py``; this test judges what it wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.bots.limits import MIB

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GUEST = ROOT / "tests" / "support" / "cgroup_v2_guest.py"
# The emulated machine boots and runs the checks in about 50 s on an idle 2-core machine; a
# busy one may take several times that.
VM_TIMEOUT = 1500
# Drivers udev would load for the emulated machine's devices and CPU (KVM, SATA, watchdogs, the
# PC speaker, accelerated crypto), none of which the checks use: loading them on the emulated
# CPU took half of the boot (about 20 s). virtme-ng loads the modules of its own file systems
# and consoles before udev starts, so the guest runs the same without these.
UNUSED_MODULES = (
    "kvm,kvm_amd,kvm_intel,irqbypass,ccp,iTCO_wdt,iTCO_vendor_support,ahci,libahci,libata,"
    "sr_mod,cdrom,sg,scsi_mod,scsi_common,intel_pmc_bxt,psmouse,evdev,i2c_i801,i2c_smbus,"
    "lpc_ich,i6300esb,serio_raw,pcspkr,watchdog,crct10dif_pclmul,crc32_pclmul,crc32c_intel,"
    "ghash_clmulni_intel,sha512_ssse3,sha256_ssse3,sha1_ssse3,aesni_intel,crypto_simd,cryptd,"
    "button,qemu_fw_cfg"
)


def unified_controllers() -> set[str]:
    for mount in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
        if (mount / "cgroup.controllers").exists():
            return set((mount / "cgroup.controllers").read_text().split())
    return set()


def kernel() -> Path:
    """The newest kernel in /boot whose modules are installed (virtme-ng loads 9p from them)."""
    found = sorted(
        path
        for path in Path("/boot").glob("vmlinuz-*")
        if Path("/lib/modules", path.name.removeprefix("vmlinuz-")).is_dir()
    )
    assert found, "no kernel in /boot with its modules: scripts/setup-vm installs one"
    return found[-1]


def run_in_vm(result: Path) -> subprocess.CompletedProcess[str]:
    bindir = Path(sys.executable).parent
    vng = bindir / "vng"
    assert vng.exists(), "virtme-ng is missing: scripts/setup test installs it"
    assert shutil.which("qemu-system-x86_64"), "QEMU is missing: scripts/setup-vm installs it"
    command = f"{sys.executable} {GUEST} {result}"
    argv = [str(vng), "--disable-kvm", "--run", str(kernel()), "--cpus", "2", "--memory", "1G"]
    argv += ["--append", f"module_blacklist={UNUSED_MODULES}"]
    argv += ["--rwdir", str(result.parent), "--cwd", str(ROOT), "--exec", command]
    env = {**os.environ, "PATH": f"{bindir}:{os.environ.get('PATH', '')}"}
    return subprocess.run(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=VM_TIMEOUT,
        check=False,
    )


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    assert os.geteuid() == 0, "cgroups are made as root, as the sandbox runs"
    out = tmp_path_factory.mktemp("cgroup-v2")
    result = out / "result.json"
    if {"cpu", "memory", "pids"} <= unified_controllers():
        done = subprocess.run(
            [sys.executable, str(GUEST), str(result)],
            capture_output=True,
            text=True,
            timeout=VM_TIMEOUT,
            check=False,
        )
    else:
        done = run_in_vm(result)
    why = f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert result.exists(), f"the checks wrote nothing ({why})"
    found: dict[str, Any] = json.loads(result.read_text())
    assert "error" not in found, found
    return found


def test_every_controller_is_on_cgroup_v2(seen: dict[str, Any]) -> None:
    assert seen["v1"] == [] and seen["v2_controllers"] == ["cpu", "memory", "pids"], seen["layout"]
    assert seen["description"] == "cgroup v2"


def test_cpu_max_holds_a_group_to_one_core(seen: dict[str, Any]) -> None:
    """Four spinners under ``cpus = 1``: at most one period's quota per bandwidth period the
    kernel counted, however loaded the machine (a period is counted for each 100 ms in which
    the group ran), and the CPU time limit broken once the group has used 3 s."""
    assert seen["cpu.max"] == "100000 100000"
    first, last = seen["spin"]["first"], seen["spin"]["last"]
    periods = last["nr_periods"] - first["nr_periods"]
    used = (last["usage_usec"] - first["usage_usec"]) / 1e6
    assert periods >= 10, seen["spin"]
    assert used <= (periods + 2) * 0.1, seen["spin"]
    assert seen["spin"]["breach"].startswith("the CPU time limit: its processes used"), seen
    assert seen["frozen_cpu"][0] == seen["frozen_cpu"][1]  # a frozen group runs nothing
    assert seen["killed"] is True and seen["left"] == []


def test_pids_max_refuses_the_ninth_process(seen: dict[str, Any]) -> None:
    assert seen["pids.max"] == "8"
    assert seen["forks"]["refused"] >= 1 and seen["forks"]["processes"] <= 8, seen["forks"]
    assert seen["forks_breach"].startswith("the process limit: it tried to have more than 8")


def test_memory_max_kills_the_hog(seen: dict[str, Any]) -> None:
    assert seen["memory.max"] == str(64 * MIB)
    assert seen["hog_status"] == -9 and seen["hog"]["oom_kills"] >= 1, seen
    assert seen["hog"]["peak"] <= 64 * MIB
    assert seen["hog_breach"].startswith("the memory limit of 64 MiB"), seen["hog_breach"]
