"""Adapters to other programs and libraries: ``fiverow.pettingzoo`` (PettingZoo
AEC env) and ``fiverow.openspiel`` (OpenSpiel games), each needing that
library (an optional extra), and ``fiverow.engines`` (Gomocup brains both
ways, no extra). They sit on the vector env: the rules stay in C."""
