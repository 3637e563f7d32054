"""The lab's default strategy (ansible.cfg): Ansible's linear strategy, run by
Mitogen (pyproject's lab extra). Mitogen keeps one Python per target for the
play and runs each task in it, where Ansible starts a Python per task: on a TCG
guest, or on the nested KVM host, that start is emulated and costs seconds per
task (docs/lab.md, "Ansible and Mitogen", has the figures).
VMPARITY_MITOGEN=0 runs Ansible's own linear strategy instead."""
import os

if os.environ.get("VMPARITY_MITOGEN", "1") == "0":
    from ansible.plugins.strategy.linear import StrategyModule  # noqa: F401
else:
    from ansible_mitogen.plugins.strategy.mitogen_linear import StrategyModule  # noqa: F401
