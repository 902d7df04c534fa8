"""Run inside the venv the wheel was installed into (tests/test_wheel.py),
from a directory outside the source tree: every preset steps, the baseline
networks shipped in the wheel play (in C, no torch), `fiverow generate`
writes a small dataset, h5py and fiverow.data read it back."""

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import h5py  # its own HDF5 copy, loaded beside fiverow's

import fiverow
from fiverow import _core, data, nets, players

site = Path(fiverow.__file__).resolve().parent.parent
assert site.name == "site-packages", fiverow.__file__
assert version("fiverow") == fiverow.__version__

for name in fiverow.preset_names():
    env = fiverow.make_vec(name, num_envs=4, seed=0)
    env.reset(seed=0)
    for _ in range(6):
        env.step(env.sample_legal())
    env.close()

for name, (variant, params) in {
    "freestyle": ("freestyle", {}),
    "renju": ("renju", {}),
    "freestyle-9x9": ("freestyle", {"size": 9}),
}.items():
    assert nets.baseline(name).is_relative_to(site), nets.baseline(name)
    env = fiverow.make_vec(variant, num_envs=4, seed=0, **params)
    env.reset(seed=0)
    for _ in range(3):
        actions = players.make(f"net:{name}(simulations=2)").act(env)
        assert env.action_masks()[range(4), actions].all()
        env.step(actions)
    env.close()

cli = str(Path(sys.executable).parent / "fiverow")
shown = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout
assert shown.split() == ["fiverow", fiverow.__version__], shown
out = Path("smoke.h5")
subprocess.run(
    [cli, "generate", "--mix", "all", "--games", "24", "--seed", "1", "--out", str(out), "--quiet"],
    check=True,
)
with h5py.File(out, "r") as f:
    assert f.attrs["format"] == data.FORMAT
    run = json.loads(f.attrs["run"])
    assert run["fiverow_version"] == fiverow.__version__, run
with data.open(out) as ds:
    episodes = sum(ds.summary()[v]["episodes"] for v in ds.variants)
    assert episodes == 24, ds.summary()
    first = ds.variants[0]
    assert len(ds[first].replay(0).actions) == ds[first].episode(0).length
print(
    json.dumps(
        {
            "cpu_path": _core.cpu_path(),
            "hdf5": _core.hdf5_version(),
            "h5py": h5py.__version__,
            "presets": len(fiverow.preset_names()),
            "episodes": episodes,
        }
    )
)
