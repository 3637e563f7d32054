"""The cached image is complete, reused when the recipe is unchanged, and a
failed build leaves no half-built cache behind."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from conftest import CACHE_DIR, VM_TEMPLATES

pytestmark = pytest.mark.lab
BUILD = VM_TEMPLATES / "image" / "build-image.sh"


def test_current_image_is_complete(image_dir):
    for name in ("rootfs.tar", "base.qcow2", "vmlinuz", "initrd.img", "recipe.sha256"):
        assert (image_dir / name).stat().st_size > 0, f"{image_dir / name} missing or empty"
    info = subprocess.run(["qemu-img", "info", "--output=json", str(image_dir / "base.qcow2")],
                          capture_output=True, text=True, check=True).stdout
    assert '"format": "qcow2"' in info


def test_unchanged_recipe_is_reused(image_dir):
    started = time.monotonic()
    run = subprocess.run([str(BUILD)], capture_output=True, text=True, check=True,
                         env={**os.environ, "CACHE_DIR": str(CACHE_DIR)})
    assert f"build-image: cached {image_dir}" in run.stdout
    assert time.monotonic() - started < 30     # a cache hit never debootstraps


def test_failed_build_leaves_no_partial_cache(tmp_path):
    # another suite name changes the recipe hash; the mirror is a closed loopback port
    env = {**os.environ, "CACHE_DIR": str(tmp_path), "IMAGE_SUITE": "bookworm",
           "IMAGE_MIRROR": "http://127.0.0.1:9/debian"}
    run = subprocess.run([str(BUILD)], capture_output=True, text=True, env=env)
    assert run.returncode != 0
    assert "build-image: debootstrap failed" in run.stderr
    left = sorted(p.name for p in (tmp_path / "image").iterdir())
    assert left == [".lock", "debs"], f"half-built cache left behind: {left}"
