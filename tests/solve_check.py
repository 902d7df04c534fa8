"""Checks of the solver's lines by replaying them through the environment:
a VCF line must win whatever the defender plays among its legal replies."""

from __future__ import annotations

from typing import Any

import numpy as np

import fiverow
from fiverow import players, solve

HEURISTIC = players.make("heuristic")


class Lab:
    """A vector env with a board per action, where positions are set up from
    state bytes and stepped together."""

    def __init__(self, preset: str, **params: Any) -> None:
        probe = fiverow.make_vec(preset, num_envs=1, **params)
        n = probe.n_actions
        probe.close()
        self.env = fiverow.make_vec(preset, num_envs=n, seed=0, **params)
        self.env.reset(seed=0)
        self.n = n

    def play(self, states: list[bytes], actions: list[int]) -> list[dict]:
        """Board i from states[i] plays actions[i]: the boards after (status
        0 ongoing, 1 terminated, 2 truncated; winner; seat to act; legal
        actions; state bytes)."""
        env = self.env
        for i, state in enumerate(states):
            env.set_state(i, state)
        moves = env.sample_legal().copy()
        moves[: len(actions)] = actions
        _, _, terminated, truncated, info = env.step(moves)
        return [
            {
                "state": env.get_state(i),
                "status": 1 if terminated[i] else 2 if truncated[i] else 0,
                "winner": int(info["winner"][i]),
                "seat": int(info["to_play"][i]),
                "legal": np.flatnonzero(info["action_mask"][i]).tolist(),
            }
            for i in range(len(states))
        ]

    def info(self, i: int) -> dict:
        b = self.env.board(i)
        return {
            "state": self.env.get_state(i),
            "status": b["status"],
            "winner": b["winner"],
            "seat": b["seat"],
            "legal": np.flatnonzero(self.env.action_masks()[i]).tolist(),
        }

    def state_info(self, state: bytes) -> dict:
        self.env.set_state(0, state)
        return self.info(0)

    def immediate_wins(self, states: list[bytes], attacker: int) -> list[bool]:
        """Does the attacker (to act on each board) win at once? The heuristic
        takes a win when there is one; the env says whether it was one."""
        for i, state in enumerate(states):
            self.env.set_state(i, state)
        moves = HEURISTIC.act(self.env)
        _, _, terminated, _, info = self.env.step(moves)
        return [
            bool(terminated[i]) and int(info["winner"][i]) == attacker for i in range(len(states))
        ]


def assert_forced_win(lab: Lab, state: bytes, line: list[int], *, budget: int = 12) -> int:
    """Replay a VCF line from state (the attacker to act): the attacker's moves
    are legal; after each of them every legal reply of the defender either
    loses at once, is the line's reply, or leaves a position where the solver
    finds a VCF that passes this same check. Returns the number of defender
    positions examined."""
    start = lab.state_info(state)
    attacker = start["seat"]
    assert start["status"] == 0
    examined = 0
    for j in range(0, len(line), 2):
        assert line[j] in lab.state_info(state)["legal"], (j, line)
        after = lab.play([state], [line[j]])[0]
        if j == len(line) - 1:
            assert after["status"] == 1 and after["winner"] == attacker, line
            return examined
        assert after["status"] == 0, line
        assert line[j + 1] in after["legal"], (j, line)
        replies = after["legal"]
        outcomes = []
        for k in range(0, len(replies), lab.n):
            chunk = replies[k : k + lab.n]
            outcomes += lab.play([after["state"]] * len(chunk), chunk)
        examined += 1
        open_states = []
        for r, o in zip(replies, outcomes, strict=True):
            if o["status"] == 1:
                assert o["winner"] == attacker, "a reply won for the defender"
                continue
            assert o["status"] == 0, "a reply drew or truncated the game"
            if r != line[j + 1]:
                open_states.append((r, o["state"]))
        wins = lab.immediate_wins([s for _, s in open_states], attacker) if open_states else []
        for (r, s), won in zip(open_states, wins, strict=True):
            if won:
                continue
            # a reply the line does not show and that does not lose at once
            # (caro: a stone past a five's end): the attacker must still win
            assert budget > 0, "too many side lines"
            budget -= 1
            lab.env.set_state(0, s)
            side = solve.vcf(lab.env, 0)
            assert side is not None, f"reply {r} to {line[: j + 1]} escapes"
            examined += assert_forced_win(lab, s, side, budget=budget)
        state = [o for r, o in zip(replies, outcomes, strict=True) if r == line[j + 1]][0]["state"]
    raise AssertionError(f"the line does not end with the attacker's move: {line}")
