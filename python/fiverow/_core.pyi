"""Type stubs of the C extension (csrc/python/module.c)."""

from collections.abc import Sequence
from typing import Any

PARAM_NAMES: str
MAX_THREADS: int

def resolve(params: dict[str, str]) -> str: ...
def rule_families() -> dict[str, tuple[str, tuple[str, ...]]]: ...
def param_table() -> list[tuple[str, list[str] | None, int, int, bool, str | None]]: ...
def max_threads() -> int: ...

class Batch:
    def __init__(
        self,
        groups: Sequence[tuple[dict[str, Any], int]],
        num_threads: int,
        autoreset: int,
        illegal: int,
        obs_kind: int,
    ) -> None: ...
    def group_info(self, group: int) -> dict[str, Any]: ...
    def bind(self, group: int, name: str, array: Any) -> None: ...
    def reset(self, seed: int | None = None, masks: Sequence[Any] | None = None) -> None: ...
    def step(
        self, actions: Sequence[Any]
    ) -> tuple[int, list[tuple[int, int, int, str]]] | None: ...
    def set_opponent(self, kind: int, player: dict[str, Any] | None, agent_seat: int) -> None: ...
    def opponent_step(
        self, actions: Sequence[Any]
    ) -> tuple[int, list[tuple[int, int, int, str]]] | None: ...
    def sample(self) -> None: ...
    def rollout(self, steps: int) -> dict[str, int]: ...
    def get_state(self, group: int, index: int) -> bytes: ...
    def set_state(self, group: int, index: int, state: bytes) -> None: ...
    def clone(self, group: int, src: int, dst: int) -> None: ...
    def load_position(
        self,
        group: int,
        index: int,
        cells: bytes,
        colour: int,
        status: bytes | None = None,
        scores: tuple[int, int] | None = None,
    ) -> tuple[int, ...] | None: ...
    def observe(self, group: int, index: int, seat: int, kind: int) -> bytes: ...
    def board(self, group: int, index: int) -> dict[str, Any]: ...
    def windows(self, group: int, k: int) -> list[tuple[int, ...]]: ...
    def load_tiles(
        self, group: int, index: int, values: bytes, hands: bytes | None = None
    ) -> None: ...
    def segments(self, group: int, index: int) -> list[tuple[int, ...]]: ...
    def neighbours(self, group: int, cell: int) -> tuple[tuple[int, int], ...]: ...

def renju_forbidden(cells: bytes, height: int, width: int) -> list[tuple[int, int]]: ...
def openings() -> tuple[str, ...]: ...
def opening_of(wx: int, wy: int, bx: int, by: int) -> int: ...
def opening_stones() -> tuple[tuple[tuple[int, int], ...], ...]: ...

# csrc/python/module_play.c: players, self-play, replays

def check_player(player: dict[str, Any]) -> None: ...
def pvs_probe(batch: Batch, group: int, board: int, player: dict[str, Any]) -> dict[str, Any]: ...
def opening_cells(
    batch: Batch, group: int, openings: Sequence[Sequence[tuple[int, int]]]
) -> list[list[int]]: ...
def act(
    batch: Batch,
    player: dict[str, Any],
    actions: Sequence[Any],
    policies: Sequence[Any] | None = None,
) -> None: ...
def replay(
    batch: Batch,
    group: int,
    seed: int,
    key_group: int,
    key_board: int,
    episode: int,
    actions: Any,
    obs: Any,
    masks: Any,
    rewards: Any,
    kind: int = 0,
) -> None: ...
def pack(path: str) -> None: ...
def assemble(path: str, shards: Sequence[int], pack: bool, run_json: str | None = None) -> None: ...
def hdf5_version() -> tuple[int, int, int]: ...
def cpu_path() -> str: ...

class SelfPlay:
    def __init__(
        self,
        batch: Batch,
        players: Sequence[dict[str, Any]],
        seed: int,
        alternate: bool,
        record_obs: bool,
        record_policy: bool,
        writer: dict[str, Any] | None = None,
    ) -> None: ...
    def run(self, games: int) -> int: ...
    def seek(self, game: int) -> None: ...
    def set_book(self, group: int, openings: Sequence[Sequence[tuple[int, int]]]) -> None: ...
    def stop(self) -> None: ...
    def progress(self) -> tuple[int, int]: ...
    def take_records(self) -> bytes: ...
    def close(self) -> None: ...
    @classmethod
    def record_size(cls) -> int: ...

# csrc/python/module_search.c: the batched search

class Search:
    def __init__(
        self,
        batch: Batch,
        simulations: int,
        c_puct: float,
        dirichlet_alpha: float,
        dirichlet_fraction: float,
        leaves_per_round: int,
        reuse_tree: bool,
        seed: int,
    ) -> None: ...
    def begin(self) -> None: ...
    def select(
        self,
        obs: Sequence[Any],
        masks: Sequence[Any],
        to_play: Sequence[Any],
        boards: Sequence[Any],
    ) -> list[int]: ...
    def expand(self, priors: Sequence[Any], values: Sequence[Any]) -> None: ...
    def results(self, visits: Sequence[Any], root_values: Sequence[Any]) -> None: ...
    def actions(self, temperature: float, out: Sequence[Any]) -> None: ...
    def advance(self, actions: Sequence[Any]) -> None: ...
    def abort(self) -> None: ...
    def run_uniform(self) -> None: ...
    def nodes(self) -> int: ...

# csrc/python/module_writer.c: episodes played in Python, written by the C writer

class EpisodeWriter:
    def __init__(
        self, batch: Batch, writer: dict[str, Any], record_obs: bool, record_policy: bool
    ) -> None: ...
    def add(
        self,
        group: int,
        board: int,
        episode: int,
        game: int,
        actions: Any,
        seats: Any,
        colours: Any,
        obs: Any,
        policy: Any,
        winner: int,
        truncated: int,
        score0: int,
        score1: int,
        black_seat: int,
        opening: int,
        player0: int = 0,
        player1: int = 1,
    ) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...

# csrc/python/module_solve.c: the threat-space solver

def solve(
    batch: Batch, group: int, index: int, kind: int, max_depth: int, max_nodes: int
) -> tuple[int, list[int] | None, int]: ...
def solve_group(
    batch: Batch, group: int, kind: int, max_depth: int, max_nodes: int
) -> list[tuple[int, list[int] | None]]: ...

# csrc/python/module_batches.c: training batches rebuilt from recorded games

class BatchFarm:
    def __init__(self, batch: Batch, kind: int, perms: Any, first: Any, count: Any) -> None: ...
    def fill(
        self,
        group: Any,
        seed: Any,
        key_group: Any,
        board: Any,
        episode: Any,
        start: Any,
        length: Any,
        winner: Any,
        actions: Any,
        policy: Any | None,
        game: Any,
        ply: Any,
        symmetry: Any,
        obs: Any,
        mask: Any,
        action: Any,
        out_policy: Any | None,
        value: Any,
    ) -> tuple[int, str] | None: ...

# csrc/python/module_net.c: networks evaluated in C

NET_VERSION: int

class Net:
    shape: dict[str, Any]
    text: str
    parameters: int
    path: str
    def __init__(self, path: str) -> None: ...
    def forward(self, obs: Any, logits: Any, values: Any, threads: int) -> None: ...
