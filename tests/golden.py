"""Golden playthroughs: one seeded random game per preset, every board, mask
and reward written out as text (OpenSpiel-style), diffed by test_golden.py.

Regenerate after an intended change of behaviour: python tests/golden.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import fiverow

GOLDEN = Path(__file__).parent / "data" / "golden"
SEED = 20261121
#: Presets played on a smaller board, so that the file stays readable.
SMALLER = {"gomorpion": {"size": 9}}


def playthrough(preset: str) -> str:
    overrides = SMALLER.get(preset, {})
    env = fiverow.make_vec(preset, num_envs=1, seed=SEED, autoreset_mode="disabled", **overrides)
    obs, info = env.reset()
    lines = [
        f"variant {preset} {overrides or ''}".rstrip(),
        f"seed {SEED}",
        f"planes {' '.join(env.planes)}",
        "",
    ]
    step = 0
    while True:
        mask = info["action_mask"][0]
        legal = np.flatnonzero(mask)
        lines.append(f"step {step}  to_play {int(info['to_play'][0])}  legal {len(legal)}")
        lines.append("mask " + np.packbits(mask).tobytes().hex())
        lines.append(env.render_env(0, "ansi").rstrip("\n"))
        action = int(env.sample_legal()[0])
        obs, reward, terminated, truncated, info = env.step(np.array([action]))
        step += 1
        lines.append(
            f"action {action} ({env.action_name(action)})  reward {float(reward[0]):+.0f}  "
            f"rewards {info['rewards'][0].tolist()}  terminated {bool(terminated[0])}  "
            f"truncated {bool(truncated[0])}"
        )
        if "scores" in info:
            lines.append(
                f"scores {info['scores'][0].tolist()}  cast {info['cast_points'][0].tolist()}  "
                f"casts {int(info['casts'][0])}"
            )
        lines.append("obs-sum " + " ".join(str(int(x)) for x in obs[0].sum(axis=(1, 2))))
        lines.append("")
        if terminated[0] or truncated[0]:
            break
    lines.append(f"end  winner {int(info['winner'][0])}  length {int(info['episode_length'][0])}")
    lines.append(env.render_env(0, "ansi").rstrip("\n"))
    return "\n".join(lines) + "\n"


def golden_presets() -> list[str]:
    return fiverow.preset_names()


def main() -> int:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for preset in golden_presets():
        (GOLDEN / f"{preset}.txt").write_text(playthrough(preset))
        print(f"wrote {GOLDEN / preset}.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
