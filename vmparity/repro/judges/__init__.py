"""One judge per seed, one file each (as golang.org/x/perf's benchmath keeps
one assumption per file). A judge takes the seed's scenario, one Target and
the metal it is measured against, and returns a Verdict (verdict.py)."""

from .align import judge_align
from .fence import judge_fence
from .memcpy import judge_memcpy
from .snowflake import judge_snowflake
from .storefwd import judge_storefwd

JUDGES = {"000": judge_storefwd, "001": judge_fence, "002": judge_memcpy, "003": judge_align, "004": judge_snowflake}
