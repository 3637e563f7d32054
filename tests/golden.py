"""Golden files in tests/testdata/golden/: compare, or rewrite with VMPARITY_UPDATE_GOLDEN=1."""

import os
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "testdata" / "golden"
UPDATE = os.environ.get("VMPARITY_UPDATE_GOLDEN") == "1"


def check(name, text):
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path} missing: run with VMPARITY_UPDATE_GOLDEN=1 to create it"
    want = path.read_text(encoding="utf-8")
    assert text == want, f"output differs from {path} (VMPARITY_UPDATE_GOLDEN=1 rewrites it after review)"
