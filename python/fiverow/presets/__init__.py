"""Named presets, one TOML file each (shipped as package data of fiverow)."""
