"""Every GLIBC_TUNABLES setting an explain fix prints is one this machine's glibc applies."""

import os
import re
import subprocess
from pathlib import Path

import pytest

import resultgen
from vmparity.decide import explain
from vmparity.results import inputs
from vmparity import table

LOADER = next((p for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2")
               if Path(p).exists()), None)
SETTING = re.compile(r"GLIBC_TUNABLES=([a-z0-9_.]+)=(0x[0-9a-f]+)")


def applied(name, value):
    env = dict(os.environ, GLIBC_TUNABLES=f"{name}={value}")
    out = subprocess.run([LOADER, "--list-tunables"], env=env, capture_output=True, text=True, check=True).stdout
    m = re.search(rf"^{re.escape(name)}: (0x[0-9a-f]+)", out, re.M)
    return m and m.group(1)


def fixes(tmp_path, guest_nt, slower):
    """Explain a guest whose threshold differs from metal's; `slower` picks which side NT stores hurt."""
    metal = dict(resultgen.METAL, **{"memcpy-tunables-l3-3q": "glibc.cpu.x86_non_temporal_threshold=0x1800000"})
    guest = dict(metal, target="guest-nosmt", **{"target-kind": "kvm-guest", "nt-threshold": guest_nt,
                                                 "threads-per-core": "1", "topoext": "no",
                                                 "memcpy-tunables-l3-3q": "glibc.cpu.x86_non_temporal_threshold=0x1800000"})
    files = [resultgen.target_file(tmp_path, metal, seed=1, count=6), resultgen.target_file(tmp_path, guest, seed=2, count=6)]
    if not slower:  # make the NT side faster: swap which file is the baseline
        files.reverse()
    t = table.build(inputs.load_all(files))
    return [e.fix for e in explain.explain(t, t.configs, explain.load_rules()).explanations if e.rule["id"] == "nt-threshold"]


@pytest.mark.skipif(LOADER is None or subprocess.run([LOADER or "false", "--list-tunables"], capture_output=True).returncode,
                    reason="no glibc loader with --list-tunables here")
@pytest.mark.parametrize("slower", [True, False])
def test_every_printed_tunable_takes_effect(tmp_path, slower):
    texts = fixes(tmp_path, "0xc0000", slower)
    settings = [m for text in texts for m in SETTING.findall(text)]
    assert texts and settings, texts
    for name, value in settings:
        assert applied(name, value) == value, f"glibc ignores GLIBC_TUNABLES={name}={value} printed in a fix"
    assert "…" not in " ".join(texts)
