"""Where a run came from: the commit, branch and state of the checkout that ran it.

The lab writes `commit:`, `branch:` and `dirty:` into every result header
(docs/formats.md); files from elsewhere may lack them. Readers never guess:
a missing key reads as "unknown".
"""

KEYS = ("commit", "branch", "dirty")
UNKNOWN = "unknown"


def of(config):
    """{commit, branch, dirty} from a result header, "unknown" where absent or empty."""
    return {k: (config.get(k) or UNKNOWN) for k in KEYS}


def short_commit(commit):
    """The first 12 hex digits of a commit id; anything else (`unknown`, a tag) as it is."""
    c = commit or UNKNOWN
    return c[:12] if len(c) >= 12 and all(ch in "0123456789abcdef" for ch in c.lower()) else c


def label(config_or_prov):
    """`abc123def456` or `abc123def456+dirty` for the axis and the text output."""
    p = of(config_or_prov)
    return short_commit(p["commit"]) + ("+dirty" if p["dirty"] == "yes" else "")
