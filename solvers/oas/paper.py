"""Our 8-job batch in the shape of the OAS paper's §4.1 measurement (tests, experiments).

8 jobs of 1..6 tasks ``(id, τ, Tb [s], σ, PTBW [Mbit/s])`` on the 3 × 2 test bed. Jobs 2, 5 and 8
only compute (σ = 1); jobs 1, 6 and 7 communicate heavily (PTBW 300-600 with σ 0.5-0.8, so a
co-allocation of job 1 or 6 loads a link with 600-800 Mbit/s and excludes most others); job 4
needs the whole platform. Mean base time 86.25 s. The paper gives no numbers; these are ours.
"""

from __future__ import annotations

from solvers.oas.problem import OasJob

EIGHT_JOBS = (
    OasJob(1, 4, 100.0, 0.8, 600.0),
    OasJob(2, 2, 60.0, 1.0, 0.0),
    OasJob(3, 3, 120.0, 0.6, 300.0),
    OasJob(4, 6, 80.0, 0.9, 200.0),
    OasJob(5, 1, 50.0),
    OasJob(6, 2, 150.0, 0.5, 500.0),
    OasJob(7, 5, 90.0, 0.7, 300.0),
    OasJob(8, 3, 40.0, 1.0, 0.0),
)
