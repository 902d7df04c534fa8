"""The environments: variant configs, the pool of C boards, the Gymnasium
vector env and its single-board view, spaces, notation and registration."""
