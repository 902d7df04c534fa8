"""fiverow.Match with a Python agent in a seat (any object with act(env))."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow import players


class Wrapped:
    """A built-in player driven from Python, as a network agent would be."""

    def __init__(self, name: str) -> None:
        self.player = players.make(name)
        self.name = f"py-{name}"
        self.calls = 0

    def act(self, env):
        self.calls += 1
        return self.player.act(env)


def test_an_agent_plays_with_seats_alternating():
    agent = Wrapped("heuristic")
    result = fiverow.Match(
        "freestyle", agent, "random", games=40, seed=3, params={"size": 9}
    ).play()
    assert agent.calls > 0
    assert result.player_a == "py-heuristic" and result.player_b == "random"
    total = result.total()
    assert total.games == 40
    assert total.wins >= 38  # the heuristic beats random (>= 95% in docs/players.md)
    games = result.games
    assert list(games["game"]) == list(range(40))
    assert np.sum(games["seat0_player"] == 0) == 20  # player A first in half of the games
    assert np.all(games["length"] >= 9)  # a five needs at least nine plies


def test_agent_results_match_the_built_in_path_statistically():
    """Heuristic (from Python) against random wins from either seat; random
    wrapped against the heuristic loses."""
    r = fiverow.Match("caro", "heuristic", Wrapped("random"), games=30, seed=1).play()
    assert r.total().wins >= 28
    r = fiverow.Match(
        ["freestyle", "strip"], Wrapped("random"), "heuristic", games=20, seed=1
    ).play()
    assert [v.variant for v in r.variants] == ["freestyle", "strip"]
    assert r.total().losses >= 18


def test_agent_matches_are_deterministic():
    def play():
        return (
            fiverow.Match(
                "freestyle", Wrapped("heuristic(epsilon=0.3)"), "random", games=16, seed=9
            )
            .play()
            .games
        )

    a, b = play(), play()
    assert np.array_equal(a, b)


def test_bad_agents_are_named():
    class Short:
        name = "short"

        def act(self, env):
            return np.zeros(env.num_envs - 1, dtype=np.int64)

    with pytest.raises(ValueError, match=r"player A \(short\) gave actions of shape"):
        fiverow.Match("freestyle", Short(), "random", games=4).play()
    with pytest.raises(TypeError, match="has act"):
        fiverow.Match("freestyle", object(), "random", games=4)
    with pytest.raises(ValueError, match="player kind"):
        fiverow.Match("freestyle", Wrapped("random"), "grandmaster", games=4)


class Floats:
    name = "floats"

    def act(self, env):
        return env.sample_legal() + 0.5


class AlwaysCentre:
    name = "centre"

    def act(self, env):
        return np.full(env.num_envs, 12, dtype=np.int64)  # the centre of 5x5: legal once


def test_agent_actions_must_be_legal_integers_and_errors_name_the_player():
    with pytest.raises(ValueError, match=r"player A \(floats\) gave actions of dtype float64"):
        fiverow.Match("freestyle", Floats(), "random", games=2, params={"size": 5}).play()
    with pytest.raises(ValueError, match=r"player B \(centre\) gave illegal actions \(board \d"):
        fiverow.Match(
            "freestyle", "random", AlwaysCentre(), games=2, alternate=False, params={"size": 5}
        ).play()


@pytest.mark.parametrize(
    "variants, games",
    [
        (["freestyle", "caro"], 5),
        (["freestyle", "caro", "strip"], 10),
        ({"freestyle": 1, "caro": 100}, 3),
        (["freestyle", "caro"], 1),
    ],
)
def test_agent_matches_play_exactly_the_games_asked(variants, games):
    result = fiverow.Match(
        variants, Wrapped("random"), "random", games=games, params={"size": 7}
    ).play()
    assert len(result.games) == games
    assert sum(v.games for v in result.variants) == games
    assert [v.variant for v in result.variants] == list(
        variants if isinstance(variants, list) else variants.keys()
    )


def test_agent_match_records_keep_black_seat_and_opening():
    games = (
        fiverow.Match("renju-soosorv8", Wrapped("random"), "random", games=12, seed=3).play().games
    )
    assert set(games["opening"]) - {-1}, "soosorv games have an opening"
    assert (games["opening"] >= 0).all()
    assert set(games["black_seat"]) == {0, 1}
