"""A tight formulation of the OAS problem: one binary per job, start slot and allocation pattern
(Blanco et al., "OAS: a MIP model for ordering and allocating parallel jobs on multi-cluster
systems", §3.2 and Fig. 2; models.md §4.3).

Why it is equivalent to the literal model of Fig. 2 (``paper_model``):

* Resources of one cluster with the same speed (a *speed class*) are interchangeable: every term
  of the model that depends on the allocation — SP_j (eq. 3, the slowest speed used), hence ct_j
  (18) and the slots the job holds (19)-(20), and the link load BW_j^k of eq. 4 (the number of
  tasks per cluster) — depends only on how many tasks go to each class. Such a count vector is a
  *pattern*; all of these terms become constants of the pattern.
* Any paper-model schedule maps to this model: take each job's pattern and start slot. At every
  slot a class hosts at most one task per resource (10), so pattern counts summed over the jobs
  running then stay within the class size, and the link loads are those of (21)-(22).
* Conversely, any solution of this model yields concrete resources: treat each class on its own
  and hand resources out in order of start slot, freeing those of jobs that have finished. A job
  holds its resources over one contiguous interval of slots, so when it starts the busy resources
  of its class are exactly those of the jobs running then, whose counts, plus its own, are at most
  the class size by the capacity row of that slot; enough resources are free, every time. This is
  greedy interval colouring; :func:`assign_resources` does it, deterministically (lowest index
  first).
* Both models minimise the largest finish slot over the same set of (pattern, start) choices, so
  they have the same optimum. Patterns that would saturate a link even when the job runs alone,
  starts that would end after θ, and starts before the jobs already running
  (``OasProblem.occupied``) leave the pattern room, are left out: they are infeasible in both.
  Running jobs hold a prefix of the slots, so room only grows with time and a pattern that fits
  in its first slot fits in every later one (:func:`solvers.oas.patterns.earliest_start`).

The LP relaxation is far tighter (a job is a convex combination of whole schedules instead of
fractional per-resource, per-slot variables), and it has no symmetry between equal resources.

Speed-ups, each exact (it removes no optimal makespan; proofs at the functions):

* the model is built from precomputed sparse index sets with ``quicksum`` (building is a small
  part of a solve: the time is all in HiGHS's branch and bound);
* :func:`makespan_lower_bound` (longest job, a chain of jobs that cannot overlap, total work over
  capacity) is a row on the makespan, and the chain and the work bound are also rows over the
  choices, which lifts the root LP bound (EIGHT: 9.5 → 15 slots of an optimum of 17);
* :func:`identical_job_pairs`: identical jobs start in their order in the batch.

Not done, on purpose: dropping "dominated" patterns (a slower class where an equally large
faster one gives the same link loads). Two patterns of one job always use τ_j resources, so the
faster one takes resources the slower one leaves free; another job may need exactly those at the
same time, and the pruned model then loses the optimum. ``test_slower_patterns_are_needed`` in
tests/oas/test_oas_models.py is such a batch (three 2-task jobs: 2 slots all at once, 3 slots
if every job must use the fastest class).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from solvers.oas.patterns import (
    Choice,
    Pattern,
    SpeedClass,
    all_choices,
    all_patterns,
    earliest_starts,
    job_options,
    speed_classes,
)
from solvers.oas.problem import JobPlacement, OasPlan, OasProblem

if TYPE_CHECKING:
    from pyomo.core import ConcreteModel


def build_fast_model(problem: OasProblem) -> ConcreteModel:
    """The pattern formulation; the objective is the makespan in slots. Solves nothing.

    Raises ValueError when some job cannot finish within θ on any link-feasible allocation.
    """
    import pyomo.core as pyo

    options = job_options(problem)
    choices = all_choices(problem, options)
    by_job: dict[int, list[Choice]] = {j: [] for j in range(len(problem.jobs))}
    for choice in choices:
        by_job[choice[0]].append(choice)
    model = pyo.ConcreteModel(name="oas_fast")
    model.starts = pyo.Set(
        initialize=choices, dimen=3, ordered=True, doc="(job, pattern, start slot) ending by θ"
    )
    model.x = pyo.Var(
        model.starts,
        domain=pyo.Binary,
        doc="1 if the job runs with this pattern from the slot after this start slot",
    )
    model.makespan = pyo.Var(
        domain=pyo.NonNegativeIntegers,
        bounds=(0, problem.slot_count),
        doc="Largest finish slot (9)",
    )
    x = model.x
    model.one_choice = pyo.Constraint(
        list(by_job),
        rule=lambda m, j: pyo.quicksum(x[c] for c in by_job[j]) == 1,
        doc="Each job runs once, with one pattern and one start (12), (15)",
    )
    model.finish = pyo.Constraint(
        list(by_job),
        rule=lambda m, j: (
            m.makespan
            >= pyo.quicksum((s + options[j][p].slots) * x[j, p, s] for _, p, s in by_job[j])
        ),
        doc="Makespan is at least each job's finish slot f_j = s_j + duration (9), (17), (19)",
    )
    running = _running_in(problem, options, choices)
    classes = speed_classes(problem)
    _add_capacity_rows(model, problem, options, classes, running)
    _add_link_rows(model, problem, options, running)
    _add_bound_rows(model, problem, options, classes, choices)
    _add_symmetry_rows(model, problem, by_job)
    model.objective = pyo.Objective(
        expr=model.makespan, sense=pyo.minimize, doc="Minimise the makespan in slots (9)"
    )
    return model


def makespan_lower_bound(problem: OasProblem) -> int:
    """A makespan no schedule can beat, in slots (θ is not consulted).

    The largest of: the earliest finish of each job (its fastest pattern on an idle platform);
    the durations of :func:`exclusive_jobs`, which run one after the other in any schedule, after
    the earliest start of any of them; and the fewest resource-slots the whole batch can occupy
    over the resource-slots the running jobs leave free (each slot offers one task per resource,
    (10)).
    """
    options = all_patterns(problem)
    earliest = earliest_starts(problem, options)
    finish = [
        min(s + p.slots for p, s in zip(patterns, starts, strict=True))
        for patterns, starts in zip(options, earliest, strict=True)
    ]
    shortest = [min(p.slots for p in patterns) for patterns in options]
    area = sum(
        min(job.tasks * p.slots for p in patterns)
        for job, patterns in zip(problem.jobs, options, strict=True)
    )
    chain_jobs = exclusive_jobs(problem)
    chain = 0
    if chain_jobs:
        chain = min(min(earliest[j]) for j in chain_jobs) + sum(shortest[j] for j in chain_jobs)
    busy = problem.busy_slots()
    span = -(-(area + sum(busy)) // len(busy))  # idle platform: exactly the area bound
    while sum(max(0, span - b) for b in busy) < area:
        span += 1
    return max(max(finish), chain, span)


def exclusive_jobs(problem: OasProblem) -> tuple[int, ...]:
    """Indices of jobs no two of which can run at the same time: τ_a + τ_b > |R| for each pair.

    Greedy: all jobs wider than half the platform (any two of them exceed it), then, widest
    first, each job that exceeds the platform together with every job already taken.
    """
    size = len(problem.resources)
    order = sorted(range(len(problem.jobs)), key=lambda j: (-problem.jobs[j].tasks, j))
    taken: list[int] = []
    for j in order:
        if all(problem.jobs[j].tasks + problem.jobs[k].tasks > size for k in taken):
            taken.append(j)
    return tuple(sorted(taken)) if len(taken) > 1 else ()


def _add_bound_rows(
    model: Any,
    problem: OasProblem,
    options: Sequence[Sequence[Pattern]],
    classes: Sequence[SpeedClass],
    choices: Sequence[Choice],
) -> None:
    """Valid rows that lift the LP bound on the makespan (none cuts off a schedule).

    * ``makespan_floor``: makespan >= :func:`makespan_lower_bound`.
    * ``exclusive_chain``: the jobs of :func:`exclusive_jobs` never overlap, so their chosen
      durations add up to at most the makespan.
    * ``class_area``: for every set S of speed classes, the resource-slots the chosen patterns
      hold in S are at most |S| · makespan, since nothing runs after the makespan ((10) summed
      over the slots 1..makespan). The LP alone does not see this: it may spread a job over many
      fractional starts. (Running jobs only lower the left side's room, so the row stays valid.)
    """
    import pyomo.core as pyo

    x = model.x
    model.makespan_floor = pyo.Constraint(
        expr=model.makespan >= makespan_lower_bound(problem),
        doc="Makespan >= longest job, chain of exclusive jobs, total work / resources",
    )
    chain = set(exclusive_jobs(problem))
    model.exclusive_chain = pyo.Constraint(
        expr=pyo.quicksum(options[j][p].slots * x[j, p, s] for j, p, s in choices if j in chain)
        <= model.makespan,
        doc="Jobs that pairwise exceed the platform run one after another",
    )
    subsets = [
        [g for g in range(len(classes)) if mask >> g & 1] for mask in range(1, 2 ** len(classes))
    ]
    if len(subsets) > 63:  # more than 6 classes: the whole platform and each class alone
        subsets = [list(range(len(classes)))] + [[g] for g in range(len(classes))]

    def area(m: Any, index: int) -> Any:
        subset = subsets[index]
        size = sum(len(classes[g].resources) for g in subset)
        held = pyo.quicksum(
            sum(options[j][p].counts[g] for g in subset) * options[j][p].slots * x[j, p, s]
            for j, p, s in choices
            if any(options[j][p].counts[g] for g in subset)
        )
        return held <= size * m.makespan

    model.class_area = pyo.Constraint(
        range(len(subsets)),
        rule=area,
        doc="Resource-slots held in a set of speed classes <= its size x makespan (10)",
    )


def identical_job_pairs(problem: OasProblem) -> list[tuple[int, int]]:
    """Pairs (a, b), a before b in the batch, of identical jobs (:func:`identical_job_groups`).

    Swapping the (pattern, start) of two identical jobs changes no slot's class or link load
    and no finish slot, so every schedule has a twin of equal makespan in which such jobs start
    in batch order; the rows s_a <= s_b keep only that twin.
    """
    return [(g[i], g[i + 1]) for g in identical_job_groups(problem) for i in range(len(g) - 1)]


def identical_job_groups(problem: OasProblem) -> list[list[int]]:
    """Indices of identical jobs (same τ, Tb, σ, PTBW, clusters), in batch order; groups of two
    or more."""
    groups: dict[tuple[int, float, float, float, tuple[int, ...]], list[int]] = {}
    for j, job in enumerate(problem.jobs):
        key = (job.tasks, job.base_time, job.sigma, job.task_bw, job.clusters)
        groups.setdefault(key, []).append(j)
    return [group for group in groups.values() if len(group) > 1]


def _add_symmetry_rows(model: Any, problem: OasProblem, by_job: dict[int, list[Choice]]) -> None:
    """s_a <= s_b for each pair of :func:`identical_job_pairs` (start slots as sums over x)."""
    import pyomo.core as pyo

    pairs = identical_job_pairs(problem)
    x = model.x

    def ordered(m: Any, index: int) -> Any:
        a, b = pairs[index]
        if not any(c[2] for c in by_job[a]):
            return pyo.Constraint.Skip  # job a can only start at 0: nothing to order
        start_a = pyo.quicksum(c[2] * x[c] for c in by_job[a] if c[2])
        start_b = pyo.quicksum(c[2] * x[c] for c in by_job[b] if c[2])
        return start_a <= start_b

    model.identical_order = pyo.Constraint(
        range(len(pairs)),
        rule=ordered,
        doc="Identical jobs start in batch order (symmetry breaking)",
    )


def _running_in(
    problem: OasProblem, options: Sequence[Sequence[Pattern]], choices: Sequence[Choice]
) -> dict[int, list[Choice]]:
    """For each slot t (1-based), the choices that hold slot t: start < t <= start + duration."""
    running: dict[int, list[Choice]] = {t: [] for t in range(1, problem.slot_count + 1)}
    for j, p, start in choices:
        for t in range(start + 1, start + options[j][p].slots + 1):
            running[t].append((j, p, start))
    return running


def _add_capacity_rows(
    model: Any,
    problem: OasProblem,
    options: Sequence[Sequence[Pattern]],
    classes: Sequence[SpeedClass],
    running: dict[int, list[Choice]],
) -> None:
    """Per speed class and slot: tasks of the running jobs <= resources of the class that no job
    already running holds then (10).

    Rows that no combination of choices could break are left out.
    """
    import pyomo.core as pyo

    busy = problem.busy_slots()
    free = {
        (g, t): sum(1 for r in speed_class.resources if busy[r] < t)
        for g, speed_class in enumerate(classes)
        for t in running
    }
    rows = [
        (g, t)
        for g in range(len(classes))
        for t in running
        if sum(options[j][p].counts[g] for j, p, _ in running[t]) > free[g, t]
    ]

    def capacity(m: Any, g: int, t: int) -> Any:
        demand = sum(
            options[j][p].counts[g] * m.x[j, p, s]
            for j, p, s in running[t]
            if options[j][p].counts[g]
        )
        return demand <= free[g, t]

    model.class_capacity = pyo.Constraint(
        rows,
        rule=capacity,
        doc="One task per resource and slot, counted per speed class (10)",
    )


def _add_link_rows(
    model: Any,
    problem: OasProblem,
    options: Sequence[Sequence[Pattern]],
    running: dict[int, list[Choice]],
) -> None:
    """Per link and slot: eq. 4 load of the running jobs <= MBW_k less what the jobs already
    running draw then (21)-(22)."""
    import pyomo.core as pyo

    room = {(k, t): problem.link_room(k, t) for k in range(problem.cluster_count) for t in running}
    rows = [
        (k, t)
        for k in range(problem.cluster_count)
        for t in running
        if sum(options[j][p].link_load[k] for j, p, _ in running[t]) > room[k, t]
    ]

    def link(m: Any, k: int, t: int) -> Any:
        load = sum(
            options[j][p].link_load[k] * m.x[j, p, s]
            for j, p, s in running[t]
            if options[j][p].link_load[k] > 0
        )
        return load <= room[k, t]

    model.link_capacity = pyo.Constraint(
        rows,
        rule=link,
        doc="Available bandwidth ABW_{k,t} = MBW_k - sum_j BW_{j,k,t} stays >= 0 (21)-(22)",
    )


def read_fast_plan(problem: OasProblem, model: Any) -> OasPlan:
    """The plan in the loaded solution of ``model``, with concrete resources per job."""
    options = job_options(problem)
    chosen: dict[int, tuple[int, int]] = {}
    for j, p, s in model.starts:
        if model.x[j, p, s].value is not None and model.x[j, p, s].value > 0.5:
            chosen[j] = (p, s)
    runs = [
        (chosen[j][1], chosen[j][1] + options[j][chosen[j][0]].slots, options[j][chosen[j][0]])
        for j in range(len(problem.jobs))
    ]
    resources = assign_resources(problem, runs)
    eta = problem.slot_size
    placements = tuple(
        JobPlacement(job.id, start * eta, finish * eta, held, start, finish)
        for job, (start, finish, _), held in zip(problem.jobs, runs, resources, strict=True)
    )
    return OasPlan(placements, max(p.end for p in placements))


def load_fast_plan(problem: OasProblem, model: Any, plan: OasPlan) -> None:
    """Set ``model``'s variables to a slotted ``plan`` (a MIP start); ValueError without slots."""
    options = job_options(problem)
    classes = speed_classes(problem)
    class_of = {r: g for g, speed_class in enumerate(classes) for r in speed_class.resources}
    for index in model.x:
        model.x[index].set_value(0)
    runs: list[tuple[int, int]] = []  # (pattern, start slot) per job
    for j, job in enumerate(problem.jobs):
        p = plan.placement(job.id)
        if p.start_slot is None:
            raise ValueError(f"job {job.id} has no slots: a MIP start needs a slotted plan")
        counts = [0] * len(classes)
        for r in p.resources:
            counts[class_of[r]] += 1
        pattern = next(i for i, option in enumerate(options[j]) if option.counts == tuple(counts))
        runs.append((pattern, p.start_slot))
    for group in identical_job_groups(problem):  # swap identical jobs into start order
        ordered = sorted((runs[j] for j in group), key=lambda run: run[1])
        for j, run in zip(group, ordered, strict=True):
            runs[j] = run  # identical jobs share their pattern list
    for j, (pattern, start) in enumerate(runs):
        model.x[j, pattern, start].set_value(1)
    model.makespan.set_value(max(p.finish_slot or 0 for p in plan.placements))


def assign_resources(
    problem: OasProblem, runs: Sequence[tuple[int, int, Pattern]]
) -> list[tuple[int, ...]]:
    """Concrete resources for (start slot, finish slot, pattern) runs, one tuple per run.

    Greedy interval colouring per speed class in order of start slot (ties: run order), lowest
    free index first, after the jobs already running (their intervals all start at 0). Raises
    RuntimeError if the runs overload a class at some slot, which a solution of the fast model
    never does.
    """
    classes = speed_classes(problem)
    free_from = list(problem.busy_slots())  # first slot at which each resource is free
    held: list[tuple[int, ...]] = [()] * len(runs)
    for index in sorted(range(len(runs)), key=lambda i: (runs[i][0], i)):
        start, finish, pattern = runs[index]
        taken: list[int] = []
        for speed_class, count in zip(classes, pattern.counts, strict=True):
            free = [r for r in speed_class.resources if free_from[r] <= start]
            if len(free) < count:
                raise RuntimeError(
                    f"speed class {speed_class} overloaded at slot {start + 1}: "
                    f"{count} tasks, {len(free)} free resources"
                )
            taken += free[:count]
        for r in taken:
            free_from[r] = finish
        held[index] = tuple(sorted(taken))
    return held
