"""vm-templates/domain.xml.j2 rendered for one guest variant with plain Jinja2,
as the guests role's template task renders it: to inspect a domain, to
`virsh define` a guest by hand (`vmparity lab domain-xml`), and for the tests.
"""

import os
from pathlib import Path

import jinja2

from . import checkout


def render(variant_name, variant, *, accel, ssh_port, image_dir, overlay, console_log, seed_disk,
           host_cpus=None, first_cpu=0, cmdline=None, name=None, template=checkout.DOMAIN_TEMPLATE):
    """The domain XML of `variant` (merged by vmparity.lab.variants, or already effective for `accel`),
    named vmparity-<variant_name> as the lab names its guests unless `name` says otherwise. With pinning,
    vCPU i runs on host CPU (first_cpu + i) mod host_cpus: two one-vCPU domains of one machine (the rack
    bed's nested KVM hosts) get a CPU each."""
    template = Path(template)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(template.parent)),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    image_dir = Path(image_dir)
    return env.get_template(template.name).render(
        name=name or f"vmparity-{variant_name}", variant_name=variant_name, variant=variant,
        accel=accel, ssh_port=ssh_port, kernel=str(image_dir / "vmlinuz"),
        initrd=str(image_dir / "initrd.img"), overlay=str(overlay),
        console_log=str(console_log), seed_disk=str(seed_disk) if seed_disk else "",
        host_cpus=host_cpus or os.cpu_count(), first_cpu=first_cpu, cmdline=cmdline or "")
