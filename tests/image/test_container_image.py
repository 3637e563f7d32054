"""The container image: rootfs.tar imported with `docker import`, docker/Dockerfile
built on it, and each container variant run with --network none."""
from __future__ import annotations

import os

import pytest

import container_variants
import lab_image
from conftest import CACHE_DIR, DOCKER_DIR

pytestmark = pytest.mark.lab

PROBE = ["sh", "-c", "nproc; cat /sys/fs/cgroup/cpu.max 2>/dev/null || "
         "echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us);"
         " ls /sys/class/net; python3 -c 'import platform; print(platform.libc_ver()[1])'"]


def test_import_build_and_run_every_variant(image_dir, docker_client):
    assert lab_image.main(["--cache-dir", str(CACHE_DIR)]) == 0
    base, bench = f"vmparity-base:{image_dir.name}", f"vmparity-bench:{image_dir.name}"
    assert docker_client.images.get(base).id == docker_client.images.get("vmparity-base:current").id
    host_cpus = os.cpu_count()
    for name, v in container_variants.resolve(DOCKER_DIR / "variants.yml", host_cpus).items():
        kwargs = {"nano_cpus": int(v["cpus"] * 1e9)} if v["cpus"] else {}
        out = docker_client.containers.run(bench, PROBE, network_mode="none", remove=True,
                                           mem_limit=f"{v['memory_mib']}m", **kwargs).decode()
        nproc, quota, *rest = out.split("\n")
        print(f"\ncontainer {name}: nproc={nproc} cpu quota/period={quota!r} {rest}")
        assert nproc == str(host_cpus)                 # a quota never hides CPUs: seed 004's pitfall
        if v["cpus"]:
            q, period = quota.split()
            assert abs(int(q) / int(period) - v["cpus"]) < 0.01
        else:
            assert quota.split()[0] in ("max", "-1")
        assert rest[:-2] == ["lo"]                     # --network none: loopback only
        assert rest[-2] == "2.36"                      # the guest's glibc (bookworm)
