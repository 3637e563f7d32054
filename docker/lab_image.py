#!/usr/bin/env python3
"""Make the lab's container image from the cached root filesystem (docker SDK).

    lab_image.py [--cache-dir DIR] [--import-only]

1. `docker import` $CACHE_DIR/image/current/rootfs.tar as vmparity-base:<hash>
   (and vmparity-base:current, the Dockerfile's default base), unless present;
2. build docker/Dockerfile on it as vmparity-bench:<hash>.
<hash> is the image recipe hash (the cache directory's name), so container and
guests provably come from the same debootstrap. Prints the tags it made.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import docker
import docker.errors

HERE = Path(__file__).parent
BASE_REPO, BENCH_REPO = "vmparity-base", "vmparity-bench"


class LabImageError(RuntimeError):
    pass


def current_image_dir(cache_dir: Path) -> Path:
    link = cache_dir / "image" / "current"
    target = link.resolve()
    if not (target / "rootfs.tar").is_file() or not (target / "recipe.sha256").is_file():
        raise LabImageError(f"{link}: no complete image there (expected rootfs.tar and "
                            "recipe.sha256); build it first with `make image`")
    return target


def _has(client: docker.DockerClient, tag: str) -> bool:
    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False


def import_base(client: docker.DockerClient, image_dir: Path) -> str:
    tag = f"{BASE_REPO}:{image_dir.name}"
    if not _has(client, tag):
        print(f"lab_image: docker import {image_dir / 'rootfs.tar'} as {tag}", flush=True)
        # streamed from the file with its length, never read into memory whole
        client.api.import_image_from_file(str(image_dir / "rootfs.tar"),
                                          repository=BASE_REPO, tag=image_dir.name)
    client.images.get(tag).tag(BASE_REPO, "current")
    return tag


def build_bench(client: docker.DockerClient, base_tag: str, hash_: str) -> str:
    tag = f"{BENCH_REPO}:{hash_}"
    print(f"lab_image: docker build {HERE} FROM {base_tag} as {tag}", flush=True)
    try:
        # our base has everything: no network for the build either
        client.images.build(path=str(HERE), tag=tag, buildargs={"BASE_IMAGE": base_tag},
                            network_mode="none", rm=True, forcerm=True)
    except docker.errors.BuildError as exc:
        log = "".join(chunk.get("stream", "") for chunk in exc.build_log)
        raise LabImageError(f"{HERE / 'Dockerfile'}: build failed: {exc.msg}\n{log}") from exc
    return tag


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cache-dir", type=Path,
                   default=Path(os.environ.get("CACHE_DIR", Path.home() / ".cache" / "vmparity")))
    p.add_argument("--import-only", action="store_true", help="only import the base image")
    args = p.parse_args(argv)
    try:
        image_dir = current_image_dir(args.cache_dir)
        client = docker.from_env()
        client.ping()
    except LabImageError as exc:
        print(f"lab_image: {exc}", file=sys.stderr)
        return 1
    except docker.errors.DockerException as exc:
        print(f"lab_image: cannot reach dockerd ({exc}); start it, e.g. "
              "`dockerd --bridge=none --iptables=false`", file=sys.stderr)
        return 1
    try:
        base = import_base(client, image_dir)
        print(base)
        if not args.import_only:
            print(build_bench(client, base, image_dir.name))
    except (LabImageError, docker.errors.APIError) as exc:
        print(f"lab_image: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
