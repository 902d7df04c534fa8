"""Studies built on runs: the balance study (seat advantage and the variants'
balance: :mod:`.balance`, its report and plots)."""
