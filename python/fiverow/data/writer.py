"""Writing fiverow datasets from Python: :class:`Writer` hands finished
episodes to the C writer thread (the format of ``fiverow generate``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from ..env.pool import Pool
from ..runs.output import writer_spec
from .reader import MAX_PLAYERS, _h5py


class Writer:
    """Episodes played in Python (a training loop's self-play, an agent's
    games) written by the C writer thread into a fiverow dataset, the format
    of ``fiverow generate`` (docs/hdf5.md): readable with :func:`open`,
    replayable, packed into one file on :meth:`close`.

    >>> with data.Writer("games.h5", env, policy=True) as w:  # doctest: +SKIP
    ...     w.add(board=i, actions=a, seats=s, colours=c, winner=0, policy=p)

    ``players`` names the file's players (``Dataset.players``): two, the
    players of seats 0 and 1 of every game, or more, each game then saying
    which of them sat in each seat (``add(players=(i, j))``).
    """

    def __init__(
        self,
        path: str | Path,
        env: Any,
        *,
        obs: bool = False,
        policy: bool = False,
        players: Sequence[str] = ("python", "python"),
        overwrite: bool = False,
        gzip: int = 4,
        flush_seconds: float = 2.0,
        run: dict[str, Any] | None = None,
    ) -> None:
        names = [str(p) for p in players] if not isinstance(players, str) else []
        if not 1 <= len(names) <= MAX_PLAYERS:
            raise ValueError(
                f"players must name 1..{MAX_PLAYERS} players (seat 0's first), got {players!r}"
            )
        pool = env if isinstance(env, Pool) else getattr(env, "unwrapped", env).pool
        self.pool = pool
        self.players = names
        self.path = Path(path)
        self.record_obs, self.record_policy = obs, policy
        spec = writer_spec(
            path,
            pool,
            {"player_names": names, "players": names, **(run or {})},
            overwrite=overwrite,
            gzip=gzip,
            flush_seconds=flush_seconds,
        )
        self._writer = _core.EpisodeWriter(pool._batch, spec, obs, policy)
        self._games = 0
        self._forfeits: list[dict[str, Any]] = []
        self._closed = False

    def add(
        self,
        board: int,
        actions: npt.ArrayLike,
        seats: npt.ArrayLike,
        colours: npt.ArrayLike,
        winner: int,
        *,
        group: str | None = None,
        episode: int | None = None,
        obs: npt.ArrayLike | None = None,
        policy: npt.ArrayLike | None = None,
        truncated: bool = False,
        scores: tuple[int, int] = (0, 0),
        black_seat: int = 0,
        opening: int = -1,
        forfeit: str | None = None,
        players: tuple[int, int] = (0, 1),
    ) -> None:
        """One finished episode of ``board`` (of ``group``; the only one by
        default). ``episode`` is the board's episode number, which with the
        pool's seed rebuilds the game on replay (default: the board's
        current episode, right for a board whose episode just ended).
        ``forfeit``: why the loser lost, for a game that ended by a player's
        failure rather than by the rules (``winner`` is then the other seat);
        the file lists such games (:attr:`VariantData.forfeits`). A game
        forfeited before its first move has no episode to write (an episode
        has at least one step): it is listed in the file's ``forfeits``
        attribute only, with ``"moves": 0``. ``players``: the indices into the
        writer's ``players`` of seat 0's and seat 1's player."""
        if (
            len(players) != 2
            or not all(isinstance(p, int | np.integer) and not isinstance(p, bool) for p in players)
            or not all(0 <= p < len(self.players) for p in players)
        ):
            raise ValueError(
                f"players must be two indices into the writer's {len(self.players)} players "
                f"(0..{len(self.players) - 1}), got {players!r}"
            )
        if forfeit is not None and (not isinstance(forfeit, str) or winner not in (0, 1)):
            raise ValueError(
                "forfeit is the reason (a string) for a game won by the other seat "
                f"(winner 0 or 1), got forfeit={forfeit!r}, winner={winner!r}"
            )
        name = group or self.pool._order[0]
        if forfeit is not None and np.size(actions) == 0:
            self._forfeits.append(
                {
                    "variant": name,
                    "game": self._games,
                    "seat": 1 - int(winner),
                    "reason": forfeit,
                    "moves": 0,
                }
            )
            self._games += 1
            return
        g = self.pool.group(name)
        steps = np.shape(actions)[0] if np.ndim(actions) == 1 else -1
        shapes = {
            "obs": (obs, (steps, len(g.planes), g.height, g.width)),
            "policy": (policy, (steps, g.n_actions)),
        }
        for what, (array, shape) in shapes.items():
            if array is not None and np.shape(array) != shape:
                raise ValueError(
                    f"{what} must have shape {shape} (steps first), got {np.shape(array)}"
                )
        if episode is None:
            episode = int(self.pool.board(name, board)["episode"])
        self._writer.add(
            g.index,
            int(board),
            int(episode),
            self._games,
            np.ascontiguousarray(actions, dtype=np.int16),
            np.ascontiguousarray(seats, dtype=np.int8),
            np.ascontiguousarray(colours, dtype=np.int8),
            None if obs is None else np.ascontiguousarray(obs, dtype=np.uint8),
            None if policy is None else np.ascontiguousarray(policy, dtype=np.float32),
            int(winner),
            int(bool(truncated)),
            int(scores[0]),
            int(scores[1]),
            int(black_seat),
            int(opening),
            int(players[0]),
            int(players[1]),
        )
        if forfeit is not None:
            self._forfeits.append(
                {"variant": name, "game": self._games, "seat": 1 - int(winner), "reason": forfeit}
            )
        self._games += 1

    def flush(self) -> None:
        """Hand the episodes added so far to the writer thread (it compresses
        and writes them while the caller goes on)."""
        self._writer.flush()

    def close(self) -> None:
        """Write what is left and make the file one piece; the forfeited games
        are listed in its ``forfeits`` attribute (JSON)."""
        if self._closed:
            return
        self._closed = True
        self._writer.close()
        if self._forfeits:
            with _h5py().File(self.path, "r+") as f:
                f.attrs["forfeits"] = json.dumps(self._forfeits)

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
