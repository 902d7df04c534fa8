"""A Discrete action space that knows which actions are legal now."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws uniformly among the
    actions legal in the env's current state (``info["action_mask"]``), so that
    random agents, ``gymnasium.utils.env_checker.check_env`` included, play legal
    moves. With ``mask=`` or ``probability=`` it behaves exactly like ``Discrete``.
    It compares equal to ``Discrete(n)``.

    ``legal_mask`` is called for the current mask; without one (``None``) the
    space samples like ``Discrete(n)``. Pickling keeps ``n``, ``start`` and the
    random generator but not ``legal_mask`` (it refers to a live env): an
    unpickled copy, such as the one ``AsyncVectorEnv`` sends to its workers, is
    not connected to any env and samples like ``Discrete(n)``. ``deepcopy``
    likewise returns a plain ``Discrete``."""

    def __init__(
        self,
        n: int,
        legal_mask: Callable[[], npt.NDArray[Any]] | None = None,
        seed: Any = None,
        start: int = 0,
    ) -> None:
        super().__init__(n, seed=seed, start=start)
        self._legal_mask = legal_mask

    def sample(  # type: ignore[override]
        self,
        mask: npt.NDArray[Any] | None = None,
        probability: npt.NDArray[Any] | None = None,
    ) -> np.int64:
        if mask is None and probability is None and self._legal_mask is not None:
            legal = self._legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        # the mask source is a live env (C buffers): a pickled copy samples like Discrete
        state = dict(self.__dict__)
        state["_legal_mask"] = None
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> spaces.Discrete:
        # a copy is a plain Discrete: it cannot follow another env's state
        copy = spaces.Discrete(int(self.n), start=int(self.start))
        copy.np_random.bit_generator.state = self.np_random.bit_generator.state
        return copy
