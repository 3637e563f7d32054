"""A fix's verdict in words (decide/verification.py decides it and says why as data).

The sentence is what verdicts.json stores beside each verdict and what the
report shows: the numbers that decided it, so a reader can check the cut.
"""

from ..decide import verification as v_


def _closed(v):
    """'53 %' with the share's interval beside it where it is wider than a rounding."""
    low, high = v.share_interval or (v.share, v.share)
    between = f" ({low:.0%} … {high:.0%})" if high - low > 5e-3 else ""
    return f"{v.share:.0%}{between}"


def reason(v):
    """Why the Verdict v is what it is, in one sentence."""
    if v.why == v_.NOT_SHOWN:
        return f"the explained difference did not show beyond noise in this run ({v.measured} row(s) measured)"
    if v.why == v_.CLOSED:
        return (f"the fix closed {_closed(v)} of the gap (median), at least half of it; {v.moved} of {v.rows} row(s) "
                f"moved toward metal beyond noise, {v.closed} now within noise of it")
    if v.why == v_.SOME_CLOSED:
        return (f"the fix moved {v.moved} of {v.rows} row(s) toward metal beyond noise and closed {_closed(v)} of the "
                f"gap (median), not shown to be {v_.VERIFIED_SHARE:.0%} or more")
    if v.why == v_.UNSEEABLE:
        return (f"no row moved beyond noise, but none could have: the largest gap, {v.gap:.1f} %, is within the band "
                "between the target and its fix" + (f" ({v.band:.1f} % or more)" if v.band is not None else "")
                + f", so even closing it whole would not show; more rounds decide (median share of the gap closed "
                f"{v.share:.0%})")
    why = (f"the fix moved {v.away} of {v.rows} row(s) away from metal" if v.why == v_.AWAY
           else f"the fix changed none of {v.rows} row(s) beyond noise")
    return (f"{why} (median share of the gap closed {v.share:.0%}): the rule's key is not what carries this "
            f"difference here")


def closed_alike_reason(v, sibling, other):
    """Why a fix that closed the gap is not shown to be its cause: the sibling closed it alike."""
    its_fields = ", ".join(sorted({c["field"] for c in sibling.get("changes") or []})) or "nothing this fix changes"
    return (f"the fix closed {v.share:.0%} of the gap, but {sibling['target']}, which changes only {its_fields} and "
            f"keeps what this fix changes, closed {other.share:.0%} of it too: these rows moved with a new "
            f"instance of the target, not with the fix ({reason(v)})")
