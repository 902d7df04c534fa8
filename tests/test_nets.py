"""Networks evaluated in C (fiverow.nets, csrc/players/net*.c): the file
format, the forward pass against torch's on every preset, the net player
(policy and search) and its refusals, and the baselines shipped with the
package."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch

import fiverow
from fiverow import nets, players
from fiverow.generate import generate
from fiverow.nets.model import Net

TOLERANCE = 1e-4


def random_net(obs_shape, n_actions, blocks=1, channels=6, seed=0, **heads) -> Net:
    """A small network with batch norm statistics that are not the identity
    (so that folding them in is tested)."""
    torch.manual_seed(seed)
    net = Net(obs_shape, n_actions, blocks, channels, **heads)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.3, 0.3)
    return net.eval()


def positions(variant, observation="absolute", boards=8, plies=6, **params):
    """Observations and legal masks of random positions (after 0..plies
    random moves), as the env gives them."""
    env = fiverow.make_vec(variant, num_envs=boards, seed=3, observation=observation, **params)
    obs, info = env.reset(seed=3)
    seen, masks = [obs.copy()], [info["action_mask"].copy()]
    for _ in range(plies):
        obs, _, _, _, info = env.step(env.sample_legal())
        seen.append(obs.copy())
        masks.append(info["action_mask"].copy())
    env.close()
    return np.concatenate(seen), np.concatenate(masks)


def torch_forward(net, obs):
    with torch.no_grad():
        logits, values = net(torch.from_numpy(np.array(obs)).float())
    return logits.numpy(), values.numpy()


def export_for(tmp_path, variant, observation="absolute", name="net.fnet", **params):
    env = fiverow.make_vec(variant, num_envs=1, observation=observation, **params)
    shape, n_actions = env.single_observation_space.shape, env.n_actions
    env.close()
    net = random_net(shape, n_actions)
    path = tmp_path / name
    nets.export(net, path, variant, params=params, observation=observation)
    return net, path


# ---- the forward pass equals torch's ----


@pytest.mark.parametrize("variant", fiverow.preset_names())
def test_forward_equals_torch_on_every_preset(tmp_path, variant):
    net, path = export_for(tmp_path, variant)
    loaded = nets.load(path)
    obs, _ = positions(variant, plies=3 if variant in ("gomorpion", "modlinseq") else 6)
    logits, values = loaded.forward(obs, num_threads=2)
    t_logits, t_values = torch_forward(net, obs)
    np.testing.assert_allclose(logits, t_logits, atol=TOLERANCE, rtol=TOLERANCE)
    np.testing.assert_allclose(values, t_values, atol=TOLERANCE, rtol=TOLERANCE)
    # float input, one observation without the batch axis
    one_logits, one_value = loaded.forward(obs[5].astype(np.float32))
    np.testing.assert_allclose(one_logits, t_logits[5], atol=TOLERANCE, rtol=TOLERANCE)
    assert abs(float(one_value) - float(t_values[5])) <= TOLERANCE


@pytest.mark.parametrize("variant", ["freestyle", "renju", "freestyle-swap2", "hex"])
def test_the_player_plays_torchs_best_legal_action(tmp_path, variant):
    """The net player (policy alone) reads the observation it was exported
    for, absolute or mover, and plays the legal action of highest logit; its
    policy is torch's softmax over the legal actions."""
    for observation in ("absolute", "mover"):
        net, path = export_for(tmp_path, variant, observation, name=f"{observation}.fnet")
        env = fiverow.make_vec(variant, num_envs=16, seed=5, observation=observation)
        obs, info = env.reset(seed=5)
        player = players.make("net", path=path)
        for _ in range(4):
            actions, policy = player.act(env, policy=True)
            logits, _ = torch_forward(net, obs)
            masked = np.where(info["action_mask"] > 0, logits, -np.inf)
            np.testing.assert_array_equal(actions, masked.argmax(axis=1))
            expected = np.exp(masked - masked.max(axis=1, keepdims=True))
            expected /= expected.sum(axis=1, keepdims=True)
            np.testing.assert_allclose(policy, expected, atol=1e-5)
            obs, _, _, _, info = env.step(actions)
        env.close()


def test_to_torch_rebuilds_the_files_network(tmp_path):
    net, path = export_for(tmp_path, "freestyle", size=9)
    rebuilt = nets.to_torch(path)
    obs, _ = positions("freestyle", size=9)
    for a, b in zip(torch_forward(net, obs), torch_forward(rebuilt, obs), strict=True):
        np.testing.assert_allclose(a, b, atol=TOLERANCE, rtol=TOLERANCE)
    tensors = nets.read_tensors(path)
    assert list(tensors) == nets.tensor_names(1)
    assert tensors["stem.weight"].shape == (6, 4, 3, 3)


def test_channels_that_fill_no_register_block_and_heads_of_any_size(tmp_path):
    """Channel counts that are not a multiple of the convolution's block of
    four, more policy planes, another value width, several blocks."""
    env = fiverow.make_vec("torus", num_envs=1, height=7, width=11)
    shape, n_actions = env.single_observation_space.shape, env.n_actions
    net = random_net(shape, n_actions, blocks=3, channels=5, policy_channels=3, value_hidden=7)
    path = tmp_path / "odd.fnet"
    nets.export(net, path, "torus", params={"height": 7, "width": 11})
    obs, _ = positions("torus", height=7, width=11)
    logits, values = nets.load(path).forward(obs)
    t_logits, t_values = torch_forward(net, obs)
    np.testing.assert_allclose(logits, t_logits, atol=TOLERANCE, rtol=TOLERANCE)
    np.testing.assert_allclose(values, t_values, atol=TOLERANCE, rtol=TOLERANCE)
    info = nets.inspect(path)
    assert (info["blocks"], info["channels"], info["policy_channels"]) == (3, 5, 3)
    assert info["value_hidden"] == 7 and info["params"]["width"] == 11


# ---- the file ----


def test_inspect_reports_what_the_file_was_exported_for(tmp_path):
    _, path = export_for(tmp_path, "renju", "mover")
    info = nets.inspect(path)
    assert info["variant"] == "renju" and info["observation"] == "mover"
    assert info["planes"] == list(fiverow.make_vec("renju", 1, observation="mover").planes)
    assert (info["height"], info["width"], info["n_actions"]) == (15, 15, 225)
    assert info["version"] == nets.VERSION and info["bytes"] == path.stat().st_size
    assert info["params"]["rule"] == "renju" and info["text"]["fiverow"] == fiverow.__version__
    json.dumps(info)  # plain values
    assert path.read_bytes()[:8] == nets.MAGIC


def damaged(path: Path, how: str) -> bytes:
    data = bytearray(path.read_bytes())
    if how == "magic":
        data[:8] = b"NOTANET!"
    elif how == "version":
        data[8:12] = struct.pack("<I", nets.VERSION + 1)
    elif how == "truncated":
        data = data[: len(data) // 2]
    elif how == "header":
        data = data[:30]
    elif how == "flipped":
        data[len(data) // 2] ^= 0x10
    elif how == "trailing":
        data += b"\0" * 8
    elif how == "planes":  # a header number out of range
        data[16:20] = struct.pack("<I", 1000)
    elif how == "count":  # a tensor's count disagrees with the header (checksum made right)
        text_bytes = struct.unpack_from("<I", data, 48)[0]
        at = 52 + text_bytes
        data[at : at + 4] = struct.pack("<I", struct.unpack_from("<I", data, at)[0] + 1)
        data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    elif how == "nan":
        text_bytes = struct.unpack_from("<I", data, 48)[0]
        at = 52 + text_bytes + 4
        data[at : at + 4] = struct.pack("<f", float("nan"))
        data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    return bytes(data)


@pytest.mark.parametrize(
    "how,words",
    [
        ("magic", "not a fiverow network file"),
        ("version", f"format version {nets.VERSION + 1}; this fiverow reads version"),
        ("truncated", "truncated"),
        ("header", "truncated"),
        ("flipped", "checksum"),
        ("trailing", "bytes after the end of the network"),
        ("planes", "planes is 1000"),
        ("count", "tensor stem.weight holds"),
        ("nan", "not finite"),
    ],
)
def test_a_bad_file_gives_one_line_naming_it(tmp_path, how, words):
    _, good = export_for(tmp_path, "freestyle", size=9)
    bad = tmp_path / f"{how}.fnet"
    bad.write_bytes(damaged(good, how))
    for attempt in (lambda: nets.load(bad), lambda: players.make("net", path=bad)):
        with pytest.raises(ValueError) as e:
            attempt()
        message = str(e.value)
        assert "\n" not in message and str(bad) in message and words in message, message
    with pytest.raises(nets.NetworkFileError):
        nets.inspect(bad)


def test_a_missing_file_and_a_missing_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such network file"):
        nets.load(tmp_path / "nothing.fnet")
    with pytest.raises(FileNotFoundError):
        players.make(f"net(path={tmp_path / 'nothing.fnet'})")
    with pytest.raises(ValueError, match="needs a network file"):
        players.make("net")
    with pytest.raises(ValueError, match="unknown baseline network 'nope'"):
        players.make("net:nope")
    with pytest.raises(ValueError, match="not both"):
        players.make("net:freestyle", path=tmp_path / "x.fnet")
    with pytest.raises(ValueError, match="only mcts takes a number"):
        players.make("heuristic:3")
    with pytest.raises(ValueError, match="unknown parameter"):
        players.make("heuristic(path=x)")


def test_a_file_written_again_is_read_again(tmp_path):
    """Players name their network by path; a file exported again at the same
    path (same size) is the new network on the next call."""
    env = fiverow.make_vec("freestyle", num_envs=32, seed=1, size=9)
    env.reset(seed=1)
    path = tmp_path / "net.fnet"
    moves = []
    for seed in (1, 2):
        nets.export(random_net((4, 9, 9), 81, seed=seed), path, "freestyle", params={"size": 9})
        moves.append(players.make("net", path=path).act(env))
    assert (moves[0] != moves[1]).any()
    expected = nets.load(path).forward(env.unwrapped.pool.groups[env.config.name].obs)[0]
    np.testing.assert_array_equal(
        moves[1], np.where(env.action_masks(), expected, -np.inf).argmax(1)
    )


# ---- export refuses what it cannot hold ----


class Doubled(Net):
    def forward(self, x):
        logits, value = super().forward(x)
        return 2 * logits, value


def test_export_refuses_a_module_it_cannot_represent(tmp_path):
    path = tmp_path / "net.fnet"
    with pytest.raises(ValueError, match=r"\.stem is not an nn.Sequential"):
        nets.export(torch.nn.Linear(3, 3), path, "freestyle")
    wrong_size = Net((4, 9, 9), 81, 1, 4)
    with pytest.raises(ValueError, match=r"\.policy\[3\] maps 162 -> 81, the variant needs 450"):
        nets.export(wrong_size, path, "freestyle")
    padded = Net((4, 9, 9), 81, 1, 4)
    padded.tower[0].c1 = torch.nn.Conv2d(4, 4, 3, padding=1, padding_mode="circular", bias=False)
    with pytest.raises(ValueError, match=r"\.tower\[0\]\.c1 must be a 3x3 convolution"):
        nets.export(padded, path, "freestyle", params={"size": 9})
    with pytest.raises(ValueError, match="forward pass differs"):
        nets.export(Doubled((4, 9, 9), 81, 1, 4), path, "freestyle", params={"size": 9})
    assert not path.exists()  # nothing is left behind
    with pytest.raises(ValueError, match="observation must be one of"):
        nets.export(wrong_size, path, "freestyle", observation="relative")


# ---- the player ----


def test_a_network_refuses_a_variant_of_another_observation(tmp_path):
    """Another board size, or the same shape with other planes (hex's
    on_board against renju's forbidden plane: 5 planes of 15x15 each)."""
    _, path = export_for(tmp_path, "renju")
    player = players.make("net", path=path)
    for variant, params in (("renju", {"size": 13}), ("hex", {}), ("freestyle", {})):
        env = fiverow.make_vec(variant, num_envs=2, **params)
        env.reset()
        with pytest.raises(ValueError, match="was exported for renju: it reads 5 planes"):
            player.act(env)
        with pytest.raises(ValueError, match="was exported for renju"):
            fiverow.make_vec(variant, num_envs=2, opponent=player, **params).reset()
    with pytest.raises(ValueError, match="was exported for renju"):
        fiverow.Match("freestyle", player, "random", games=2).play()
    with pytest.raises(ValueError, match="was exported for renju"):
        generate(tmp_path / "g.h5", "hex", games=2, black=player, white="random")
    assert not (tmp_path / "g.h5").exists()


def test_names_read_back(tmp_path):
    _, path = export_for(tmp_path, "freestyle", size=9)
    p = players.make(f"net(path={path},simulations=8,temperature=0.5,seed=3)")
    assert p.kind == "net" and p.simulations == 8 and p.temperature == 0.5 and p.seed == 3
    assert p.name == f"net(path={path},simulations=8,temperature=0.5,seed=3)"
    assert players.make(p.name) == p
    assert players.make("net:freestyle(simulations=4)").name == "net:freestyle(simulations=4)"
    assert players.make("net", path=nets.baseline("renju")).name == "net:renju"
    assert "net" in players.KINDS and "path" in players.KIND_PARAMS["net"]
    assert "path" not in players.make("heuristic").spec()  # other kinds keep their specs
    for bad, words in (
        ("simulations=-1", "simulations must be in 0..1000000"),
        ("temperature=-1", "temperature must be in"),
        ("c_puct=-1", "c_puct must be"),
    ):
        with pytest.raises(ValueError, match=words):
            players.make(f"net(path={path},{bad})")
    relative = os.path.relpath(path)
    assert players.make("net", path=relative).path == str(path)  # kept as an absolute path


def test_temperature_draws_reproducibly(tmp_path):
    _, path = export_for(tmp_path, "freestyle", size=9)
    env = fiverow.make_vec("freestyle", num_envs=64, seed=2, size=9)
    env.reset(seed=2)
    best = players.make("net", path=path).act(env)
    hot = [players.make("net", path=path, temperature=5.0, seed=s).act(env) for s in (0, 0, 1)]
    np.testing.assert_array_equal(hot[0], hot[1])
    assert (hot[0] != hot[2]).any() and (hot[0] != best).any()
    assert env.action_masks()[np.arange(64), hot[2]].all()


def test_search_plays_legal_moves_takes_wins_and_ignores_threads(tmp_path):
    _, path = export_for(tmp_path, "freestyle", size=9)
    player = players.make("net", path=path, simulations=24)
    runs = []
    for threads in (1, 2):
        env = fiverow.make_vec("freestyle", num_envs=12, seed=4, size=9, num_threads=threads)
        env.reset(seed=4)
        moves = []
        for _ in range(6):
            actions, policy = player.act(env, policy=True)
            assert env.action_masks()[np.arange(12), actions].all()
            np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=1e-5)
            assert (policy[np.arange(12), actions] > 0).all()
            moves.append(actions)
            env.step(actions)
        runs.append(np.array(moves))
    np.testing.assert_array_equal(runs[0], runs[1])
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9, autoreset_mode="disabled")
    env.reset()
    rows = ["........."] * 3 + [".XXXX....", ".OOO....."] + ["........."] * 3 + ["....O...."]
    env.load_position(0, rows, to_play="black")
    win = {3 * 9 + 0, 3 * 9 + 5}
    for sims in (1, 8):
        assert int(players.make("net", path=path, simulations=sims).act(env)[0]) in win


def test_search_plays_an_opening_protocol(tmp_path):
    """Swap2's choices and colour swaps: seats act twice in a row."""
    _, path = export_for(tmp_path, "freestyle-swap2", size=9)
    result = fiverow.Match(
        "freestyle-swap2",
        players.make("net", path=path, simulations=8),
        "random",
        games=4,
        seed=1,
        params={"size": 9},
    ).play()
    assert result.total().games == 4


# ---- everywhere a player goes ----


def test_the_net_player_plays_everywhere_a_player_does(tmp_path):
    _, path = export_for(tmp_path, "freestyle", size=9)
    spec = f"net(path={path})"
    env = fiverow.make_vec("freestyle", num_envs=8, seed=0, size=9, opponent=spec)
    env.reset(seed=0)
    for _ in range(12):
        env.step(env.sample_legal())
    env.close()
    match = fiverow.Match("freestyle", spec, "random", games=6, seed=1, params={"size": 9}).play()
    assert match.total().games == 6
    out = tmp_path / "games.h5"
    result = generate(
        out,
        "freestyle",
        games=4,
        black=spec,
        white=f"net(path={path},simulations=4)",
        policy=True,
        params={"size": 9},
    )
    assert result.games == 4
    with fiverow.data.open(out) as ds:
        assert ds.players == [spec, f"net(path={path},simulations=4)"]
    report = fiverow.balance.run(["freestyle"], players=[spec], games=4, seed=1, params={"size": 9})
    assert len(report.results[0].winners) == 4


def test_engine_and_play_commands(tmp_path):
    _, path = export_for(tmp_path, "freestyle")
    spec = f"net(path={path},simulations=2)"
    engine = subprocess.run(
        [sys.executable, "-m", "fiverow", "engine", "--player", spec],
        input="START 15\nBEGIN\nTURN 7,8\nSTART 20\nBEGIN\nEND\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert engine.returncode == 0, engine.stderr
    lines = engine.stdout.splitlines()
    assert lines[0] == "OK" and lines[3] == "OK"
    for move in (lines[1], lines[2]):
        x, y = map(int, move.split(","))
        assert 0 <= x < 15 and 0 <= y < 15
    assert lines[4].startswith("ERROR network") and "of 20x20" in lines[4]
    play = subprocess.run(
        [sys.executable, "-m", "fiverow", "play", "--opponent", spec, "--seat", "white"],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert play.returncode == 0, play.stderr
    assert "X" in play.stdout  # the network's first stone


# ---- the baselines ----


@pytest.mark.parametrize("name", sorted(nets.BASELINES))
def test_baselines_ship_and_play(name):
    path = nets.baseline(name)
    assert path.is_file() and path.stat().st_size <= 600_000, path
    info = nets.load(path).info
    variant, params = {
        "freestyle": ("freestyle", {}),
        "renju": ("renju", {}),
        "freestyle-9x9": ("freestyle", {"size": 9}),
    }[name]
    assert info.variant == variant and info.height == params.get("size", 15)
    player = players.make(f"net:{name}")
    assert player.name == f"net:{name}" and player.path == str(path)
    env = fiverow.make_vec(variant, num_envs=16, seed=7, **params)
    obs, info_ = env.reset(seed=7)
    torch_net = nets.to_torch(path)
    for _ in range(8):
        actions = player.act(env)
        assert env.action_masks()[np.arange(16), actions].all()
        logits, _ = torch_forward(torch_net, obs)
        c_logits, _ = nets.load(path).forward(obs)
        np.testing.assert_allclose(c_logits, logits, atol=TOLERANCE, rtol=TOLERANCE)
        obs, _, _, _, info_ = env.step(actions)
    searched = players.make(f"net:{name}(simulations=4)").act(env)
    assert env.action_masks()[np.arange(16), searched].all()
