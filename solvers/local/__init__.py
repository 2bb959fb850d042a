"""Local batch policies, one per cluster: FCFS, EASY, conservative backfilling, LSF."""
