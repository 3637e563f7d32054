"""The result-format data (format.yaml): known units, their direction, required keys."""

from functools import lru_cache
from importlib import resources

import yaml


@lru_cache(maxsize=1)
def spec():
    with resources.files("vmparity.results").joinpath("format.yaml").open(encoding="utf-8") as f:
        # libyaml's safe loader where PyYAML has it: the same data in 0.4 ms instead of 7, read by every
        # command that compares (start-up, `make bench-startup`); the pure-Python one otherwise
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@lru_cache(maxsize=1)
def known_units():
    """Map unit -> True when higher is better."""
    return {unit: better == "higher" for unit, better in spec()["units"].items()}


def required_keys():
    return list(spec()["required-keys"])


def series_keys():
    """Fingerprint keys whose values make a history series like-for-like."""
    return list(spec()["series-keys"])


def speed_units():
    """Units a change of speed moves (time per operation, throughput)."""
    return set(spec()["speed-units"])


def core_clock_units():
    """The speed units counted in core clocks (ns x the core clock measured beside them), not time."""
    return set(spec()["core-clock-units"])


def reference_units():
    """The speed units counted against a reference copy timed beside the measurement."""
    return set(spec()["reference-units"])


def time_units():
    """The speed units counted in time (ns/op, B/s, TSC cycles/op …): neither core clocks nor
    a reference's, so that the host's turbo bins and memory traffic move them."""
    return speed_units() - core_clock_units() - reference_units()
