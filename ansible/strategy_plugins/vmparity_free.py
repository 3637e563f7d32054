"""The rounds' strategy (playbooks/bench.yml): Ansible's free strategy (every
metal host at its own pace), run by Mitogen as vmparity_linear.py is.
VMPARITY_MITOGEN=0 runs Ansible's own free strategy instead."""
import os

if os.environ.get("VMPARITY_MITOGEN", "1") == "0":
    from ansible.plugins.strategy.free import StrategyModule  # noqa: F401
else:
    from ansible_mitogen.plugins.strategy.mitogen_free import StrategyModule  # noqa: F401
