#!/usr/bin/env python3
"""Render domain.xml.j2 for one variant with plain Jinja2 (as the lab's Ansible
template task does), e.g. to inspect or `virsh define` a guest by hand:

    render_domain.py smt-topoext --accel qemu --ssh-port 2222 \
        --image-dir ~/.cache/vmparity/image/current --overlay /path/smt.qcow2 \
        --console-log /path/smt.log --seed-disk /path/seed.img
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import jinja2

sys.path.insert(0, str(Path(__file__).parent))
import variants_check  # noqa: E402  (sibling module, also run as a command)

TEMPLATE = Path(__file__).with_name("domain.xml.j2")


def render(variant_name: str, variant: dict, *, accel: str, ssh_port: int, image_dir: Path,
           overlay: Path, console_log: Path, seed_disk: Path | None, host_cpus: int | None = None,
           cmdline: str | None = None) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATE.parent)),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env.get_template(TEMPLATE.name).render(
        name=f"vmparity-{variant_name}", variant_name=variant_name, variant=variant,
        accel=accel, ssh_port=ssh_port, kernel=str(image_dir / "vmlinuz"),
        initrd=str(image_dir / "initrd.img"), overlay=str(overlay),
        console_log=str(console_log), seed_disk=str(seed_disk) if seed_disk else "",
        host_cpus=host_cpus or os.cpu_count(), cmdline=cmdline or "")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("variant")
    p.add_argument("--variants", default=str(variants_check.DEFAULT_FILE))
    p.add_argument("--accel", choices=("kvm", "qemu"), required=True)
    p.add_argument("--ssh-port", type=int, required=True)
    p.add_argument("--image-dir", type=Path, required=True)
    p.add_argument("--overlay", type=Path, required=True)
    p.add_argument("--console-log", type=Path, required=True)
    p.add_argument("--seed-disk", type=Path)
    p.add_argument("--host-cpus", type=int)
    args = p.parse_args(argv)
    try:
        variants = variants_check.load(args.variants)
    except variants_check.VariantError as exc:
        print(f"render_domain: {exc}", file=sys.stderr)
        return 1
    if args.variant not in variants:
        print(f"render_domain: {args.variants}: no variant '{args.variant}' "
              f"(known: {', '.join(variants)})", file=sys.stderr)
        return 1
    sys.stdout.write(render(args.variant, variants[args.variant], accel=args.accel,
                            ssh_port=args.ssh_port, image_dir=args.image_dir.resolve(),
                            overlay=args.overlay, console_log=args.console_log,
                            seed_disk=args.seed_disk, host_cpus=args.host_cpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
