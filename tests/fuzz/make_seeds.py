"""Write the seed corpora under tests/fuzz/corpus/ (committed; rerun this only
to change them): for every variant the targets know, a few inputs in each
target's format (see the comment at the top of each fuzz_*.c)."""

from __future__ import annotations

import random
import shutil

from run_fuzz import HERE, variant_lines


def h5_seed(rng: random.Random, name: bytes, mode: int, rows: int = 2) -> bytes:
    """Every attribute in `mode` (1: as the writer writes it), two segments."""
    out = bytes([len(name)]) + name + bytes([0, 0])  # one variant name
    out += bytes(
        [mode, 1, mode, mode, mode, mode]
    )  # format, layout (segments), variants, created, run
    out += bytes([3, 2, 1, 0])  # recorded: 2 ints
    out += bytes([3, 0, 7])  # seed: a scalar
    out += bytes([1])  # the group is there
    out += bytes([mode])  # config
    out += bytes([3, 3, 4, 15, 15])  # obs_shape
    out += bytes([3, 0, 100]) + bytes([3, 0, 0])  # n_actions, key_group
    out += bytes([3, 2, 20, 2])  # counts
    for cols in (0, 1, 1):  # index, steps, episodes
        out += bytes([1, rows, cols, int(cols > 0)]) + bytes(
            rng.randrange(8) for _ in range(rows * max(cols, 1))
        )
    return out


def main() -> None:
    rng = random.Random(17)
    n = len(variant_lines())
    seeds: dict[str, list[bytes]] = {
        t: [] for t in ("actions", "state", "position", "params", "h5")
    }
    for p in range(n):
        for mode in (p % 18, (p + 7) % 18):
            seeds["actions"].append(
                bytes([p, mode, p]) + bytes(rng.randrange(256) for _ in range(300))
            )
        patches = bytes(
            x
            for _ in range(4)
            for x in (rng.randrange(256), rng.randrange(256), 1, 1 << rng.randrange(8))
        )
        seeds["state"].append(bytes([p, p & 1, 10 + p, 1, 1]) + patches)
        seeds["state"].append(bytes([p, 0, 5, 1, 1]))  # the state as it is
        cells = bytes(rng.choice((0, 0, 0, 0, 0, 150, 200)) for _ in range(1024))
        seeds["position"].append(bytes([p, p & 1, 0, 0]) + cells)
        seeds["position"].append(bytes([p, 1, 8 + 4, 3]) + cells)
    lines = variant_lines()
    for line in lines:
        seeds["params"].append(line.replace(" ", "\n").encode())
    seeds["params"].append(b"size=40\n")
    seeds["params"].append(b"rule=renju\nprotocol=swap2\nsize=7\n")
    for mode in (1, 2, 3):
        seeds["h5"].append(h5_seed(rng, b"freestyle", mode))
    seeds["h5"].append(h5_seed(rng, b"renju", 1, rows=0))  # no segment: packs in full
    seeds["h5"].append(h5_seed(rng, b"caro", 1, rows=1))
    for target, items in seeds.items():
        d = HERE / "corpus" / target
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        for k, data in enumerate(items):
            (d / f"seed-{k:03d}").write_bytes(data)


if __name__ == "__main__":
    main()
