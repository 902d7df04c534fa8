"""One page per preset, written when the build starts (docs/presets/, not kept
in git): its description, its board a few seeded random moves in, drawn by
fiverow's own SVG renderer, and its parameters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

import fiverow
from fiverow.render import svg

MOVES = 8  # random moves shown on each board (seeded: the same picture every build)


def board(name: str) -> str:
    env = fiverow.make(name)
    env.reset(seed=1)
    for _ in range(MOVES):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    picture = svg(env)
    env.close()
    return picture


def page(name: str) -> str:
    config = fiverow.resolve(name)
    rows = "\n".join(f"| `{k}` | `{v}` |" for k, v in config.params.items())
    return f"""# {name}

{config.description}

```{{raw}} html
<figure class="fiverow-board">
{board(name)}
<figcaption>{name} after {MOVES} random moves (seed 1), drawn by
<code>fiverow.render.svg</code>.</figcaption>
</figure>
```

```python
import fiverow

env = fiverow.make_vec("{name}", num_envs=64, seed=0)
obs, info = env.reset()
obs, reward, terminated, truncated, info = env.step(env.sample_legal())
```

| parameter | value |
|---|---|
{rows}

The parameters and what they mean: [Variants and parameters](../variants.md).
"""


def write_pages(app: Sphinx) -> None:
    out = Path(app.srcdir) / "presets"
    out.mkdir(exist_ok=True)
    names = fiverow.preset_names()
    for name in names:
        text = page(name)
        path = out / f"{name}.md"
        if not path.exists() or path.read_text() != text:  # unchanged pages are not rebuilt
            path.write_text(text)
    for stale in out.glob("*.md"):
        if stale.stem not in names:
            stale.unlink()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", write_pages)
    return {"parallel_read_safe": True}
