#!/usr/bin/python
# Lists the vmparity lab's libvirt domains with libvirt-python (state,
# forwarded SSH port, disks, console log): community.libvirt.virt does not
# report these.
from __future__ import annotations

DOCUMENTATION = r"""
module: vmparity_domains
short_description: List the vmparity lab's libvirt domains with their state and forwarded SSH port
description:
  - Reads every libvirt domain whose name starts with I(prefix) and, when I(state_dir) is
    given, which has a disk inside I(state_dir).
  - Returns each domain's state, forwarded SSH port, disks, console log and the lab
    metadata written by vm-templates/domain.xml.j2. Never changes anything.
options:
  uri:
    description: libvirt connection URI.
    type: str
    default: qemu:///system
  prefix:
    description: Only domains whose name starts with this.
    type: str
    required: true
  state_dir:
    description: Only domains with a disk inside this directory (the lab's own).
    type: path
  absent_daemon_ok:
    description:
      - When libvirt cannot be reached and I(state_dir) holds no rendered domain XML any more
        (a teardown already removed the lab), report no domains instead of failing, so that
        a second teardown succeeds and changes nothing.
    type: bool
    default: false
requirements: [libvirt-python]
author: vmparity
"""

EXAMPLES = r"""
- name: Read the lab's domains
  vmparity_domains:
    prefix: vmparity-
    state_dir: /root/.cache/vmparity/lab
  register: lab_domains
"""

RETURN = r"""
domains:
  description: One entry per domain (name, state, active, type, variant, accel, ssh_port, console_log, disks, tcg_adjustments).
  returned: always
  type: list
  elements: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.vmparity_libvirt import HAS_LIBVIRT, LIBVIRT_IMPORT_ERROR, lab_domains


def main():
    module = AnsibleModule(
        argument_spec=dict(
            uri=dict(type="str", default="qemu:///system"),
            prefix=dict(type="str", required=True),
            state_dir=dict(type="path"),
            absent_daemon_ok=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    if not HAS_LIBVIRT:
        module.fail_json(msg=f"libvirt-python is not importable by the interpreter on this host: {LIBVIRT_IMPORT_ERROR}")
    try:
        domains = lab_domains(module.params["uri"], module.params["prefix"], module.params["state_dir"])
    except Exception as exc:  # libvirt.libvirtError: daemon down, bad URI
        state_dir = module.params["state_dir"]
        xml_dir = os.path.join(state_dir, "domains") if state_dir else None
        # a domain XML left there means a guest may still be defined; an empty
        # directory (a host that ran no guest) leaves nothing to remove
        leftovers = bool(xml_dir and os.path.isdir(xml_dir)
                         and any(name.endswith(".xml") for name in os.listdir(xml_dir)))
        if module.params["absent_daemon_ok"] and state_dir and not leftovers:
            module.exit_json(changed=False, domains=[], daemon_unreachable=str(exc))
        module.fail_json(msg=f"cannot read libvirt domains at {module.params['uri']}: {exc}"
                             + (f" (the lab's domain XML is still in {state_dir}/domains: start libvirtd to remove them)"
                                if leftovers else ""))
    module.exit_json(changed=False, domains=domains)


if __name__ == "__main__":
    main()
