"""The one place fiverow's version is written: the package (fiverow.__version__,
`fiverow --version`, every dataset's fiverow_version attribute) and the wheel's
metadata (pyproject.toml reads it) all take it from here."""

__version__ = "0.2.0"
