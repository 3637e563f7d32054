#!/usr/bin/python
# Gives every guest of the lab a stable forwarded SSH port on 127.0.0.1:
# kept in a state file so a second lab-up renders the same domain XML
# (idempotent), and chosen free of other listeners and other domains' ports.
from __future__ import annotations

DOCUMENTATION = r"""
module: vmparity_ssh_ports
short_description: Assign stable, free SSH forwarding ports to the lab's guests
description:
  - Reads the assignments in I(state_file); keeps a guest's port while it is free or
    held by that guest's own domain; gives a new guest the first port in
    I(first)..I(last) that nothing listens on and no libvirt domain forwards.
options:
  names:
    description: Domain names that need a port.
    type: list
    elements: str
    required: true
  state_file:
    description: JSON file holding the assignments (name -> port).
    type: path
    required: true
  first:
    description: First port of the range.
    type: int
    default: 22200
  last:
    description: Last port of the range.
    type: int
    default: 22299
  address:
    description: Address the ports are forwarded on.
    type: str
    default: 127.0.0.1
  uri:
    description: libvirt connection URI.
    type: str
    default: qemu:///system
requirements: [libvirt-python]
author: vmparity
"""

EXAMPLES = r"""
- name: Give every guest a port
  vmparity_ssh_ports:
    names: [vmparity-nosmt, vmparity-hpet-clock]
    state_file: /root/.cache/vmparity/lab/ports.json
  register: ports
"""

RETURN = r"""
ports:
  description: Domain name -> port.
  returned: always
  type: dict
"""

import json
import os
import socket

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.vmparity_libvirt import HAS_LIBVIRT, LIBVIRT_IMPORT_ERROR, all_forwarded_ports


def bindable(address, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((address, port))
            return True
        except OSError:
            return False


def main():
    module = AnsibleModule(
        argument_spec=dict(
            names=dict(type="list", elements="str", required=True),
            state_file=dict(type="path", required=True),
            first=dict(type="int", default=22200),
            last=dict(type="int", default=22299),
            address=dict(type="str", default="127.0.0.1"),
            uri=dict(type="str", default="qemu:///system"),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if not HAS_LIBVIRT:
        module.fail_json(msg=f"libvirt-python is not importable by the interpreter on this host: {LIBVIRT_IMPORT_ERROR}")
    if not 1024 <= p["first"] <= p["last"] <= 65535:
        module.fail_json(msg=f"port range {p['first']}..{p['last']}: expected 1024 <= first <= last <= 65535")

    saved = {}
    if os.path.exists(p["state_file"]):
        try:
            with open(p["state_file"], encoding="utf-8") as f:
                saved = json.load(f)
            if not isinstance(saved, dict):
                raise ValueError("expected a JSON object name -> port")
        except ValueError as exc:
            module.fail_json(msg=f"{p['state_file']}: {exc}; remove it to reassign ports")
    try:
        forwarded = all_forwarded_ports(p["uri"])  # port -> domain name
    except Exception as exc:
        module.fail_json(msg=f"cannot read libvirt domains at {p['uri']}: {exc}")

    ports = {}
    taken = set(forwarded)
    for name in p["names"]:
        port = saved.get(name)
        if isinstance(port, int) and (forwarded.get(port) == name
                                      or (port not in forwarded and bindable(p["address"], port))):
            ports[name] = port
            taken.add(port)
    for name in p["names"]:
        if name in ports:
            continue
        for port in range(p["first"], p["last"] + 1):
            if port not in taken and port not in ports.values() and bindable(p["address"], port):
                ports[name] = port
                taken.add(port)
                break
        else:
            module.fail_json(msg=f"no free port in {p['first']}..{p['last']} on {p['address']} for {name}; "
                                 "widen guests_ssh_port_first/last")

    merged = dict(saved, **ports)
    changed = merged != saved
    if changed and not module.check_mode:
        os.makedirs(os.path.dirname(p["state_file"]), exist_ok=True)
        tmp = p["state_file"] + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(merged, f, indent=2, sort_keys=True)
        os.replace(tmp, p["state_file"])
    module.exit_json(changed=changed, ports=ports)


if __name__ == "__main__":
    main()
