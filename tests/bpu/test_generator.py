"""The hyper-exponential generator (issue 19, Deliver 4): the two-phase fit, the moments of a
million draws, and the moldable jobs it streams."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from emulator.cli import main
from workloads.bsp_csv import read_bsp_csv
from workloads.hyperexp import HyperExponential, MoldableWorkload, moldable_jobs, moments


def test_the_balanced_fit_has_the_asked_mean_and_cv_exactly() -> None:
    fit = HyperExponential.fit(100.0, 3.0)
    p, r1, r2 = fit.p, fit.rate1, fit.rate2
    second = 2 * (p / r1**2 + (1 - p) / r2**2)
    assert fit.mean == pytest.approx(100.0)
    assert math.sqrt(second - fit.mean**2) / fit.mean == pytest.approx(3.0)
    assert p / r1 == pytest.approx((1 - p) / r2)  # balanced means
    assert HyperExponential.fit(5.0, 1.0) == HyperExponential(0.5, 0.2, 0.2)  # exponential


@pytest.mark.parametrize(("mean", "cv"), [(60.0, 1.0), (600.0, 2.0), (30.0, 4.0)])
def test_a_million_draws_have_the_asked_mean_and_cv_within_2_percent(
    mean: float, cv: float
) -> None:
    draws = HyperExponential.fit(mean, cv).sample(np.random.default_rng(7), 1_000_000)
    got_mean, got_cv = moments(draws)
    assert got_mean == pytest.approx(mean, rel=0.02)
    assert got_cv == pytest.approx(cv, rel=0.02)


def test_a_cv_below_one_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match=r"a hyper-exponential has CV >= 1, got 0\.5"):
        HyperExponential.fit(10.0, 0.5)


def test_moldable_jobs_are_seeded_and_carry_bpus_and_home_sites() -> None:
    spec = MoldableWorkload(("a", "b"), arrival_mean=10.0, service_mean=100.0, bpu_high=4)
    first = list(moldable_jobs(spec, 500, seed=3))
    assert first == list(moldable_jobs(spec, 500, seed=3))
    assert first != list(moldable_jobs(spec, 500, seed=4))
    assert [s.job_id for s in first] == list(range(1, 501))
    assert all(b.submit >= a.submit for a, b in itertools.pairwise(first))
    for item in first:
        moldable = item.request.moldable
        assert moldable is not None and 1 <= moldable.power <= 4
        assert item.request.origin in ("a", "b") and not item.request.clusters
        assert item.request.time_limit == math.ceil(item.runtime * 1.5)
    pinned = next(moldable_jobs(MoldableWorkload(("a",), pin_home=True), 1))
    assert pinned.request.clusters == ("a",)


def test_batchlab_workload_generate_writes_csv_that_reads_back_the_same_jobs(
    tmp_path: Path,
) -> None:
    out = tmp_path / "jobs.csv"
    argv = ["workload", "generate", "-n", "200", "-p", "bpu-3sites", "--service-cv", "2"]
    assert main([*argv, "--bpu", "2-6", "--seed", "5", "--out", str(out)]) == 0
    spec = MoldableWorkload(("north", "south", "east"), service_cv=2.0, bpu_low=2, bpu_high=6)
    assert list(read_bsp_csv(out)) == list(moldable_jobs(spec, 200, seed=5))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--arrival-cv", "0.5"], "a hyper-exponential has CV >= 1, got 0.5"),
        (["--bpu", "x"], "--bpu must be LOW-HIGH in whole BPUs, got 'x'"),
        (["--out", "w.txt"], "the file must end in .csv or .swf"),
    ],
)
def test_bad_generator_arguments_fail_in_one_line(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["workload", "generate", "-n", "5", "-p", "bpu-3sites", "--out", str(tmp_path / "w.csv")]
    assert main([*argv, *extra]) == 1
    err = capsys.readouterr().err
    assert err.startswith("batchlab: error: ") and message in err and err.count("\n") == 1
