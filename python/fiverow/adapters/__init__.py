"""Adapters to other libraries' game interfaces, each needing that library (an
optional extra): ``fiverow.pettingzoo`` (PettingZoo AEC env) and
``fiverow.openspiel`` (OpenSpiel games). They sit on the vector env: the rules
stay in C."""
