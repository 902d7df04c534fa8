"""Every preset's seeded game, step by step, equals its stored playthrough."""

from __future__ import annotations

import difflib

import pytest

from golden import GOLDEN, golden_presets, playthrough


@pytest.mark.parametrize("preset", golden_presets())
def test_golden_playthrough(preset):
    path = GOLDEN / f"{preset}.txt"
    assert path.exists(), f"no golden file for {preset}: run python tests/golden.py"
    expected = path.read_text()
    actual = playthrough(preset)
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(True), actual.splitlines(True), "stored", "now"
                )
            )[:60]
        )
        pytest.fail(f"{preset} playthrough changed:\n{diff}")
