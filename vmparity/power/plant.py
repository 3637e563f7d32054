"""Plant a known effect into a result file's text: the values of chosen
benchmarks scaled, in the units a change of speed moves (results/spec.speed_units).

An effect of +e % is a slowdown by the factor 1 + e/100: time per operation
multiplied, throughput divided. −e % is the same factor the other way (a
speed-up), so the two are symmetric in log space, the scale the noise rule
works in. Counts (instructions, flushes) are left as they are.
"""

import math

from ..results.spec import known_units, speed_units


class Overflow(ValueError):
    """An effect that would scale a value beyond a finite number (its args: the value)."""


def factor(effect_pct):
    """The time factor of a planted effect in %: +10 -> 1.1, -10 -> 1/1.1."""
    f = 1 + abs(effect_pct) / 100
    return f if effect_pct >= 0 else 1 / f


def scale_lines(text, names, effect_pct, declared_higher=()):
    """The text with every result line of a benchmark in `names` scaled by the effect.
    declared_higher: units the file declares better=higher beyond format.yaml's."""
    f = factor(effect_pct)
    speed, higher = speed_units(), {u for u, h in known_units().items() if h} | set(declared_higher)
    out = []
    for line in text.split("\n"):
        fields = line.split()
        if len(fields) >= 4 and fields[0] in names:
            line = line_of(scale_fields(fields, f, speed, higher))
        out.append(line)
    return "\n".join(out)


def scale_fields(fields, f, units, higher):
    """A result line's fields with its values in `units` made slower by the time factor f
    (a unit in `higher`, better=higher, divided by it); the rest as they were."""
    pairs = list(zip(fields[2::2], fields[3::2]))
    scaled = [(_scaled(v, f if u not in higher else 1 / f) if u in units else v, u) for v, u in pairs]
    return [fields[0], fields[1], *(x for pair in scaled for x in pair)]


def line_of(fields):
    """A result line of its fields: name, iterations, then `<value> <unit>` pairs, tab-separated."""
    return "\t".join([fields[0], fields[1], *(f"{v} {u}" for v, u in zip(fields[2::2], fields[3::2]))])


def plantable(benchmarks):
    """(name, unit) pairs of a parsed file's benchmarks that an effect would move."""
    speed = speed_units()
    return [(name, u) for name, b in benchmarks.items() for u in b.units if u in speed]


def _scaled(value, f):
    out = float(value) * f
    if not math.isfinite(out):  # the copy would hold `inf`, which no result file may
        raise Overflow(value)
    return repr(out)
