"""Helpers of single rule families: renju's forbidden points and openings,
MODLINSEQ's addresses and sequences (public as ``fiverow.renju`` and
``fiverow.modlinseq``)."""
