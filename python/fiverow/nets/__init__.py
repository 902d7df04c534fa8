"""Networks evaluated in C: a trained torch network as a player, with no
torch at play time.

>>> from fiverow import nets, players
>>> net = nets.load(nets.baseline("freestyle-9x9"))
>>> net.info.variant, net.info.height, net.info.width
('freestyle', 9, 9)
>>> player = players.make("net:freestyle-9x9")  # the same file, as a built-in player

:func:`export` writes a torch module of the examples' architecture
(:class:`fiverow.nets.model.Net`: residual 3x3 convolutions with batch norm,
a policy and a value head) to a versioned network file, batch norm folded
into the convolutions; :func:`load` reads one (:class:`Network`: its
:class:`NetworkInfo` and a batched forward pass in C); :func:`to_torch`
rebuilds the torch module from a file. ``players.make("net(path=...)")`` is
the built-in player that plays a file (C, OpenMP over boards; see
docs/players.md), ``players.make("net:freestyle")`` one of the
:data:`BASELINES` shipped with the package (docs/training.md).
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core

#: The first bytes of a network file.
MAGIC = b"FIVERNET"
#: The format version this fiverow writes and reads.
VERSION: int = _core.NET_VERSION
#: The file name ending the baselines use (any name works).
SUFFIX = ".fnet"
#: The networks shipped with the package: ``players.make("net:NAME")``.
BASELINES: dict[str, str] = {
    "freestyle": "freestyle.fnet",
    "renju": "renju.fnet",
    "freestyle-9x9": "freestyle-9x9.fnet",
}
#: magic, version, observation kind, planes, height, width, actions,
#: channels, blocks, policy channels, value hidden units, text bytes
_HEADER = struct.Struct("<8sI9II")
OBSERVATIONS = ("absolute", "mover")


class NetworkFileError(ValueError):
    """A file that is not a network file, is damaged or truncated, or has
    another format version. The message names the file."""


@dataclass(frozen=True)
class NetworkInfo:
    """What a network file says about itself."""

    path: Path
    version: int
    #: the preset (or variant name) and its parameters it was exported for
    variant: str
    params: dict[str, Any]
    #: ``"absolute"`` or ``"mover"``: the observation kind it reads
    observation: str
    planes: tuple[str, ...]
    height: int
    width: int
    n_actions: int
    channels: int
    blocks: int
    policy_channels: int
    value_hidden: int
    #: float parameters
    parameters: int
    bytes: int
    #: every key=value line of the file's text block (``fiverow``: the
    #: version that exported it; ``note``: what the exporter wrote)
    text: dict[str, str] = field(default_factory=dict)

    @property
    def obs_shape(self) -> tuple[int, int, int]:
        """The observation this network reads: (planes, height, width)."""
        return (len(self.planes), self.height, self.width)

    def as_dict(self) -> dict[str, Any]:
        """The info as plain JSON-able values."""
        out = asdict(self)
        out["path"] = str(self.path)
        out["planes"] = list(self.planes)
        return out


def _text_lines(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, eq, value = line.partition("=")
        if eq:
            out[key] = value
    return out


class Network:
    """A network file loaded for evaluation in C (:func:`load`)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        p = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
        try:
            self._net = _core.Net(str(p))
        except ValueError as e:
            raise NetworkFileError(str(e)) from None
        shape = self._net.shape
        text = _text_lines(self._net.text)
        try:
            params = json.loads(text.get("params", "{}"))
        except json.JSONDecodeError:
            params = {}
        planes = tuple(text.get("planes", "").split(","))
        self.info = NetworkInfo(
            path=p,
            version=VERSION,
            variant=text.get("variant", ""),
            params=params,
            observation=shape["observation"],
            planes=planes,
            height=shape["height"],
            width=shape["width"],
            n_actions=shape["n_actions"],
            channels=shape["channels"],
            blocks=shape["blocks"],
            policy_channels=shape["policy_channels"],
            value_hidden=shape["value_hidden"],
            parameters=self._net.parameters,
            bytes=p.stat().st_size,
            text=text,
        )

    def __repr__(self) -> str:
        i = self.info
        return (
            f"Network({str(i.path)!r}: {i.variant} {i.height}x{i.width}, {i.observation} "
            f"observation of {len(i.planes)} planes, {i.blocks} blocks x {i.channels} channels, "
            f"{i.parameters} parameters)"
        )

    def forward(
        self, obs: npt.ArrayLike, num_threads: int | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Logits ``float32[B, n_actions]`` and values ``float32[B]`` (tanh, for
        the seat to move) of observations ``[B, planes, height, width]``
        (uint8 or bool as the environment gives them, or floats), in C with
        ``num_threads`` threads (default: all). One observation without the
        batch axis gives ``([n_actions], value)`` without it."""
        x = np.asarray(obs)
        single = x.ndim == 3
        if single:
            x = x[None]
        if x.ndim != 4 or x.shape[1:] != self.info.obs_shape:
            raise ValueError(
                f"obs must have shape [B, {', '.join(map(str, self.info.obs_shape))}] "
                f"(this network's observation), got {list(np.shape(obs))}"
            )
        if x.dtype == np.bool_ or x.dtype == np.uint8:
            x = np.ascontiguousarray(x, dtype=np.uint8)
        else:
            x = np.ascontiguousarray(x, dtype=np.float32)
        logits = np.empty((len(x), self.info.n_actions), dtype=np.float32)
        values = np.empty(len(x), dtype=np.float32)
        threads = _core.max_threads() if num_threads is None else int(num_threads)
        if threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self._net.forward(x, logits, values, threads)
        if single:
            return logits[0], values[0]
        return logits, values

    def player(self, **params: Any) -> Any:
        """The built-in player that plays this network (``simulations``,
        ``temperature``, ``c_puct``, ``seed``: see docs/players.md)."""
        from .. import players  # noqa: PLC0415 (players imports this module)

        return players.make("net", path=str(self.info.path), **params)


def load(path: str | os.PathLike[str]) -> Network:
    """Read a network file. A file that is not one, or damaged, truncated or
    of another format version raises :class:`NetworkFileError` (a
    ``ValueError``) with one line naming the file; a missing one
    ``FileNotFoundError``."""
    return Network(path)


def inspect(path: str | os.PathLike[str]) -> dict[str, Any]:
    """What a network file holds, as a dict of plain values (the file is read
    and checked whole, as :func:`load` does)."""
    return load(path).info.as_dict()


def baseline(name: str) -> Path:
    """The file of a baseline shipped with the package (:data:`BASELINES`)."""
    if name not in BASELINES:
        raise ValueError(
            f"unknown baseline network {name!r}; the baselines: {', '.join(BASELINES)}"
        )
    return Path(str(resources.files("fiverow.nets") / "baselines" / BASELINES[name]))


def baseline_name(path: str | os.PathLike[str]) -> str | None:
    """The baseline a path is the file of, or None."""
    p = os.path.abspath(os.fspath(path))
    for name in BASELINES:
        if os.path.abspath(baseline(name)) == p:
            return name
    return None


# ---- the file ----


def tensor_names(blocks: int) -> list[str]:
    """The tensors of a file, in their order."""
    names = ["stem.weight", "stem.bias"]
    for b in range(blocks):
        names += [f"tower.{b}.conv{k}.{w}" for k in (1, 2) for w in ("weight", "bias")]
    names += ["policy.conv.weight", "policy.conv.bias", "policy.linear.weight"]
    names += ["policy.linear.bias", "value.conv.weight", "value.conv.bias"]
    names += ["value.linear1.weight", "value.linear1.bias"]
    names += ["value.linear2.weight", "value.linear2.bias"]
    return names


def read_tensors(path: str | os.PathLike[str]) -> dict[str, npt.NDArray[np.float32]]:
    """The file's tensors (batch norm folded), by :func:`tensor_names`, with
    their torch shapes; the file is checked by :func:`load` first."""
    info = load(path).info
    data = Path(path).read_bytes()
    text_bytes = _HEADER.unpack_from(data)[-1]
    at = _HEADER.size + text_bytes
    C, P, cells = info.channels, len(info.planes), info.height * info.width
    pc, vh, A = info.policy_channels, info.value_hidden, info.n_actions
    shapes = [(C, P, 3, 3), (C,)]
    shapes += [(C, C, 3, 3), (C,)] * (2 * info.blocks)
    shapes += [(pc, C, 1, 1), (pc,), (A, pc * cells), (A,), (1, C, 1, 1), (1,)]
    shapes += [(vh, cells), (vh,), (1, vh), (1,)]
    out = {}
    for name, shape in zip(tensor_names(info.blocks), shapes, strict=True):
        (count,) = struct.unpack_from("<I", data, at)
        array = np.frombuffer(data, dtype="<f4", count=count, offset=at + 4)
        out[name] = array.astype(np.float32).reshape(shape)
        at += 4 + 4 * count
    return out


def _write(path: Path, header: tuple[int, ...], text: str, tensors: list[npt.NDArray[Any]]) -> None:
    """The file, written next to its place and moved there at once (a reader
    never sees half a file; the players' cache sees a new file)."""
    body = bytearray(_HEADER.pack(MAGIC, VERSION, *header, len(text.encode())))
    body += text.encode()
    for t in tensors:
        flat = np.ascontiguousarray(t, dtype="<f4").reshape(-1)
        body += struct.pack("<I", flat.size)
        body += flat.tobytes()
    body += struct.pack("<I", zlib.crc32(bytes(body)) & 0xFFFFFFFF)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(bytes(body))
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


# ---- export from torch ----

_ARCHITECTURE = (
    "fiverow.nets exports the residual network of fiverow.nets.model.Net "
    "(examples/alphazero.py): .stem = Sequential(Conv2d 3x3 padding 1, BatchNorm2d, ReLU), "
    ".tower = Sequential of blocks with .c1/.b1/.c2/.b2 (3x3 convolutions, batch norms), "
    ".policy = Sequential(Conv2d 1x1, ReLU, Flatten, Linear), "
    ".value = Sequential(Conv2d 1x1, ReLU, Flatten, Linear, ReLU, Linear, Tanh)"
)


def _expect(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(f"export: {what}; {_ARCHITECTURE}")


def _layers(seq: Any, kinds: tuple[type, ...], where: str) -> list[Any]:
    from torch import nn

    _expect(isinstance(seq, nn.Sequential), f"{where} is not an nn.Sequential")
    layers = list(seq)
    _expect(
        len(layers) == len(kinds)
        and all(isinstance(m, k) for m, k in zip(layers, kinds, strict=True)),
        f"{where} holds {[type(m).__name__ for m in layers]}, not {[k.__name__ for k in kinds]}",
    )
    return layers


def _conv(conv: Any, where: str, size: int, cin: int, cout: int | None) -> None:
    from torch import nn

    _expect(isinstance(conv, nn.Conv2d), f"{where} is a {type(conv).__name__}, not a Conv2d")
    pad = (size - 1) // 2
    _expect(
        tuple(conv.kernel_size) == (size, size)
        and tuple(conv.stride) == (1, 1)
        and tuple(conv.dilation) == (1, 1)
        and conv.groups == 1
        and conv.padding_mode == "zeros"
        and tuple(conv.padding) == (pad, pad),
        f"{where} must be a {size}x{size} convolution, stride 1, padding {pad} (zeros), "
        f"no groups or dilation",
    )
    _expect(conv.in_channels == cin, f"{where} takes {conv.in_channels} channels, not {cin}")
    if cout is not None:
        _expect(
            conv.out_channels == cout, f"{where} gives {conv.out_channels} channels, not {cout}"
        )


def _folded(conv: Any, bn: Any, where: str) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """A 3x3 convolution with its batch norm (eval mode: running statistics)
    folded in: weight and bias."""
    from torch import nn

    _expect(isinstance(bn, nn.BatchNorm2d), f"{where}'s batch norm is a {type(bn).__name__}")
    _expect(
        bn.running_mean is not None and bn.num_features == conv.out_channels,
        f"{where}'s batch norm must track running statistics of {conv.out_channels} channels",
    )
    w = conv.weight.detach().double().cpu().numpy()
    b = conv.bias.detach().double().cpu().numpy() if conv.bias is not None else np.zeros(w.shape[0])
    mean = bn.running_mean.detach().double().cpu().numpy()
    var = bn.running_var.detach().double().cpu().numpy()
    gamma = bn.weight.detach().double().cpu().numpy() if bn.weight is not None else 1.0
    beta = bn.bias.detach().double().cpu().numpy() if bn.bias is not None else 0.0
    scale = gamma / np.sqrt(var + bn.eps)
    return w * np.reshape(scale, (-1, 1, 1, 1)), (b - mean) * scale + beta


def _plain(t: Any) -> npt.NDArray[Any]:
    return np.asarray(t.detach().double().cpu().numpy())


def _tensors(
    module: Any, obs_shape: tuple[int, int, int], n_actions: int
) -> tuple[tuple[int, ...], list[npt.NDArray[Any]]]:
    """The header's architecture numbers and the tensors, checked."""
    from torch import nn

    planes, height, width = obs_shape
    cells = height * width
    _expect(
        isinstance(module, nn.Module), f"a torch nn.Module is needed, got {type(module).__name__}"
    )
    stem = _layers(getattr(module, "stem", None), (nn.Conv2d, nn.BatchNorm2d, nn.ReLU), ".stem")
    _conv(stem[0], ".stem[0]", 3, planes, None)
    channels = stem[0].out_channels
    tensors = list(_folded(stem[0], stem[1], ".stem"))
    tower: Any = getattr(module, "tower", None)
    _expect(isinstance(tower, nn.Sequential), ".tower is not an nn.Sequential")
    for b, block in enumerate(tower):
        where = f".tower[{b}]"
        for name in ("c1", "b1", "c2", "b2"):
            _expect(hasattr(block, name), f"{where} has no .{name}")
        for k in (1, 2):
            _conv(getattr(block, f"c{k}"), f"{where}.c{k}", 3, channels, channels)
            tensors += _folded(getattr(block, f"c{k}"), getattr(block, f"b{k}"), f"{where}.c{k}")
    policy = _layers(
        getattr(module, "policy", None), (nn.Conv2d, nn.ReLU, nn.Flatten, nn.Linear), ".policy"
    )
    _conv(policy[0], ".policy[0]", 1, channels, None)
    pc = policy[0].out_channels
    _expect(policy[0].bias is not None, ".policy[0] needs a bias")
    _expect(
        policy[3].in_features == pc * cells and policy[3].out_features == n_actions,
        f".policy[3] maps {policy[3].in_features} -> {policy[3].out_features}, "
        f"the variant needs {pc * cells} -> {n_actions}",
    )
    value = _layers(
        getattr(module, "value", None),
        (nn.Conv2d, nn.ReLU, nn.Flatten, nn.Linear, nn.ReLU, nn.Linear, nn.Tanh),
        ".value",
    )
    _conv(value[0], ".value[0]", 1, channels, 1)
    _expect(value[0].bias is not None, ".value[0] needs a bias")
    hidden = value[3].out_features
    _expect(value[3].in_features == cells, f".value[3] takes {value[3].in_features}, not {cells}")
    _expect(
        value[5].in_features == hidden and value[5].out_features == 1,
        f".value[5] must map {hidden} -> 1",
    )
    for linear, where in (
        (policy[3], ".policy[3]"),
        (value[3], ".value[3]"),
        (value[5], ".value[5]"),
    ):
        _expect(linear.bias is not None, f"{where} needs a bias")
    tensors += [_plain(policy[0].weight), _plain(policy[0].bias)]
    tensors += [_plain(policy[3].weight), _plain(policy[3].bias)]
    tensors += [_plain(value[0].weight), _plain(value[0].bias)]
    tensors += [_plain(value[3].weight), _plain(value[3].bias)]
    tensors += [_plain(value[5].weight), _plain(value[5].bias)]
    for name, t in zip(tensor_names(len(tower)), tensors, strict=True):
        if not np.all(np.isfinite(t)):
            raise ValueError(f"export: {name} holds values that are not finite")
    arch = (channels, len(tower), pc, hidden)
    return arch, tensors


def export(
    module: Any,
    path: str | os.PathLike[str],
    variant: str = "freestyle",
    *,
    params: Mapping[str, Any] | None = None,
    observation: str = "absolute",
    note: str = "",
    verify: bool = True,
) -> Network:
    """Write ``module`` (:class:`fiverow.nets.model.Net`'s architecture, in
    eval mode: batch norm's running statistics are folded into the
    convolutions) to a network file at ``path`` for ``variant`` (a preset,
    with ``params`` overrides) and its ``observation`` kind (``"absolute"``,
    what :class:`fiverow.data.Batches` gives by default, or ``"mover"``).
    A module the format cannot hold raises ``ValueError`` saying what
    differs. With ``verify`` (the default) the file is read back and its C
    forward pass compared with the module's on random observations; a
    difference (a module whose ``forward`` computes something else) removes
    the file and raises ``ValueError``. ``note`` is kept in the file's text
    (e.g. how it was trained). Returns the loaded :class:`Network`."""
    import torch

    from .._version import __version__
    from ..env.vector import make_vec

    if observation not in OBSERVATIONS:
        raise ValueError(
            f"observation must be one of {', '.join(OBSERVATIONS)}, got {observation!r}"
        )
    if "\n" in note:
        raise ValueError("note must be one line")
    env = make_vec(variant, num_envs=1, observation=observation, **dict(params or {}))
    try:
        obs_shape = tuple(int(x) for x in env.single_observation_space.shape or ())
        planes, n_actions, config = tuple(env.planes), int(env.n_actions), env.config
    finally:
        env.close()
    arch, tensors = _tensors(module, obs_shape, n_actions)  # type: ignore[arg-type]
    text = (
        f"variant={variant}\nparams={json.dumps(config.params, sort_keys=True)}\n"
        f"observation={observation}\nplanes={','.join(planes)}\nfiverow={__version__}\n"
        + (f"note={note}\n" if note else "")
    )
    header = (OBSERVATIONS.index(observation), *obs_shape, n_actions, *arch)
    out = Path(path)
    _write(out, header, text, tensors)
    net = Network(out)
    if verify:
        rng = np.random.default_rng(0)
        x = (rng.random((8, *obs_shape)) < 0.3).astype(np.uint8)
        logits, values = net.forward(x)
        training = module.training
        module.eval()
        try:
            with torch.no_grad():
                t_logits, t_values = module(torch.from_numpy(x).float())
        finally:
            module.train(training)
        t_logits = t_logits.double().numpy()
        t_values = t_values.double().numpy().reshape(-1)
        worst = max(
            float(np.max(np.abs(logits - t_logits) / (1e-3 + 1e-3 * np.abs(t_logits)))),
            float(np.max(np.abs(values - t_values) / (1e-3 + 1e-3 * np.abs(t_values)))),
        )
        if not worst <= 1.0:
            out.unlink()
            raise ValueError(
                "export: the file's forward pass differs from the module's on random "
                "observations: the module's forward() is not the architecture the format "
                f"holds; {_ARCHITECTURE}"
            )
    return net


def to_torch(path: str | os.PathLike[str]) -> Any:
    """The torch module (:class:`fiverow.nets.model.Net`) of a network file,
    in eval mode: its convolutions carry the folded weights, its batch norms
    are the identity (``eps`` 0, zero mean, unit variance) with the folded
    bias. Fine-tune it, or compare it with the C forward pass."""
    import torch

    from .model import Net

    info = load(path).info
    t = read_tensors(path)
    net = Net(
        info.obs_shape,
        info.n_actions,
        info.blocks,
        info.channels,
        policy_channels=info.policy_channels,
        value_hidden=info.value_hidden,
    )
    convs: list[tuple[Any, Any, str]] = [(net.stem[0], net.stem[1], "stem")]
    for b, block in enumerate(net.tower):
        convs += [
            (block.c1, block.b1, f"tower.{b}.conv1"),
            (block.c2, block.b2, f"tower.{b}.conv2"),
        ]
    with torch.no_grad():
        for conv, bn, name in convs:
            conv.weight.copy_(torch.from_numpy(t[f"{name}.weight"]))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(t[f"{name}.bias"]))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.eps = 0.0
        linear: dict[str, Any] = {
            "policy.conv": net.policy[0],
            "policy.linear": net.policy[3],
            "value.conv": net.value[0],
            "value.linear1": net.value[3],
            "value.linear2": net.value[5],
        }
        for name, layer in linear.items():
            layer.weight.copy_(torch.from_numpy(t[f"{name}.weight"]).reshape(layer.weight.shape))
            layer.bias.copy_(torch.from_numpy(t[f"{name}.bias"]))
    return net.eval()
