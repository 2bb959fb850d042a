"""The literal OAS mixed-integer model of Fig. 2 (Blanco et al., "OAS: a MIP model for ordering and
allocating parallel jobs on multi-cluster systems", §3.2, constraints (9)-(23); models.md §4.3).

Every paper constraint is one Pyomo component named after its number (``c10`` … ``c22``; a Block
when its linearisation needs several rows). The nonlinear parts are replaced by exact
linearisations, each written beside the constraint it implements:

* the max() of (11) and (17), and SP_j as a max over allocated resources (eq. 3);
* the quadratic link load t_j^k · (τ_j - t_j^k) of eq. 4, and its product with "j runs in t";
* (19)/(20), which read literally admit only durations with Tb·ct/η integral, are read as eq. 8
  rounded up to whole slots: the job holds ceil(Tb·ct/η) contiguous slots.

Jobs already running when the plan begins (``OasProblem.occupied``, the project's extension for
re-planning; none in the paper) enter only (10), which leaves a resource no room in the slots a
running job holds it, and (21), where MBW_k becomes what the running jobs leave of the link.

Slots are 1-based (t ∈ 1..θ) as in the paper: s_j = start slot - 1 (16), so job j holds the slots
s_j + 1 … f_j, i.e. the time [s_j · η, f_j · η). Jobs are indexed by position in
``problem.jobs``, resources by position in ``problem.resources``, links by cluster index.
Nothing is solved here; ``solve.solve`` does that.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from solvers.oas.problem import JobPlacement, OasPlan, OasProblem

if TYPE_CHECKING:
    from pyomo.core import ConcreteModel


def slowdown_levels(problem: OasProblem) -> tuple[float, ...]:
    """The distinct values SP^r = 1/Γ^r can take, smallest first (the range of SP_j)."""
    return tuple(sorted({r.slowdown for r in problem.resources}))


def build_paper_model(problem: OasProblem) -> ConcreteModel:
    """The model of Fig. 2 with exact linearisations; the objective is the makespan in slots."""
    import pyomo.core as pyo

    m = pyo.ConcreteModel(name="oas_paper")
    _add_sets(m, problem)
    _add_variables(m, problem)
    _add_ordering(m, problem)
    _add_timing(m, problem)
    _add_bandwidth(m, problem)
    # (9): minimise max_j f_j. Epigraph: makespan >= f_j for all j; at an optimum it is the max.
    m.c09 = pyo.Constraint(
        m.J,
        rule=lambda m, j: m.makespan >= m.f[j],
        doc="(9) makespan is at least every finish slot f_j",
    )
    m.objective = pyo.Objective(
        expr=m.makespan,
        sense=pyo.minimize,
        doc="(9) minimise the makespan of the set of jobs, in slots",
    )
    return m


def _add_sets(m: Any, problem: OasProblem) -> None:
    import pyomo.core as pyo

    levels = slowdown_levels(problem)
    m.J = pyo.Set(initialize=range(len(problem.jobs)), doc="J: jobs to allocate (line 5)")
    m.R = pyo.Set(initialize=range(len(problem.resources)), doc="R: processing resources (line 1)")
    m.K = pyo.Set(initialize=range(problem.cluster_count), doc="L: inter-cluster links (line 2)")
    m.T = pyo.RangeSet(1, problem.slot_count, doc="T: time slots 1..θ (lines 10-11)")
    m.LV = pyo.Set(initialize=range(len(levels)), doc="Possible values of SP_j (eq. 3)")
    m.KF = pyo.Set(
        initialize=[k for k, mbw in enumerate(problem.link_capacity) if math.isfinite(mbw)],
        doc="Links with a finite capacity MBW_k (an infinite one needs no row)",
    )
    m.JKM = pyo.Set(
        dimen=3,
        initialize=[
            (j, k, n)
            for j in range(len(problem.jobs))
            for k in range(problem.cluster_count)
            for n in _task_counts(problem, j, k)
        ],
        doc="(j, k, n): job j may put n = t_j^k tasks in cluster k",
    )


def _task_counts(problem: OasProblem, j: int, k: int) -> range:
    """The values t_j^k can take: 0 .. min(τ_j, resources of cluster k)."""
    size = sum(1 for r in problem.resources if r.cluster == k)
    return range(min(problem.jobs[j].tasks, size) + 1)


def _add_variables(m: Any, problem: OasProblem) -> None:
    import pyomo.core as pyo

    theta = problem.slot_count
    top = max(slowdown_levels(problem))
    m.Z = pyo.Var(
        m.J, m.R, domain=pyo.Binary, doc="Fig. 2 line 13: Z[j,r] = 1 if j is assigned to r"
    )
    for j, job in enumerate(problem.jobs):  # a job restricted to some clusters (``-M``)
        for r, resource in enumerate(problem.resources):
            if not job.may_use(resource.cluster):
                m.Z[j, r].fix(0)
    m.X = pyo.Var(
        m.J, m.R, m.T, domain=pyo.Binary, doc="line 14: X[j,r,t] = 1 if j uses r in slot t"
    )
    m.Y = pyo.Var(m.J, m.T, domain=pyo.Binary, doc="line 15: Y[j,t] = 1 if j starts in slot t")
    m.s = pyo.Var(
        m.J,
        domain=pyo.NonNegativeReals,
        bounds=(0, theta - 1),
        doc="line 16: s_j, the slots before j starts",
    )
    m.f = pyo.Var(
        m.J,
        domain=pyo.NonNegativeReals,
        bounds=(0, theta),
        doc="line 17: f_j, the slot in which j completes",
    )
    m.SP = pyo.Var(m.J, bounds=(1, top), doc="line 18: SP_j, the processing slowdown of j")
    m.ct = pyo.Var(
        m.J, domain=pyo.NonNegativeReals, doc="(18), (23): ct_j, the time cost of j (eq. 2)"
    )
    m.BW = pyo.Var(
        m.J,
        m.K,
        m.T,
        domain=pyo.NonNegativeReals,
        doc="line 19: BW[j,k,t], bandwidth j uses on link k in slot t",
    )
    m.ABW = pyo.Var(m.KF, m.T, doc="line 20: ABW[k,t], bandwidth left on link k in slot t")
    m.makespan = pyo.Var(
        domain=pyo.NonNegativeReals,
        bounds=(0, theta),
        doc="line 21: the makespan, the latest finish slot",
    )
    # Auxiliary binaries of the linearisations below.
    m.L = pyo.Var(m.J, m.LV, domain=pyo.Binary, doc="L[j,l] = 1 if SP_j is slowdown level l")
    m.E = pyo.Var(m.J, m.T, domain=pyo.Binary, doc="E[j,t] = 1 if f_j is attained in slot t")
    m.U = pyo.Var(m.JKM, domain=pyo.Binary, doc="U[j,k,n] = 1 if t_j^k = n")


def _active(m: Any, problem: OasProblem, j: int, t: int) -> Any:
    """A_jt = sum_r X[j,r,t] / τ_j: exactly 0 or 1 under (11)-(13) (all τ_j resources or none)."""
    return sum(m.X[j, r, t] for r in m.R) / problem.jobs[j].tasks


def _add_ordering(m: Any, problem: OasProblem) -> None:
    """Constraints (10)-(17): who runs where, and when."""
    import pyomo.core as pyo

    theta = problem.slot_count
    busy = problem.busy_slots()  # a job already running holds r in slots 1..busy[r]
    m.c10 = pyo.Constraint(
        m.R,
        m.T,
        rule=lambda m, r, t: sum(m.X[j, r, t] for j in m.J) <= (0 if t <= busy[r] else 1),
        doc="(10) a resource runs at most one task per slot, none while a running job holds it",
    )
    # (11) Z = max_t X over binaries, exactly: Z >= X[t] for every t, and Z <= sum_t X[t].
    m.c11 = pyo.Block(doc="(11) Z[j,r] = max_t X[j,r,t]")
    m.c11.lower = pyo.Constraint(
        m.J,
        m.R,
        m.T,
        rule=lambda b, j, r, t: m.Z[j, r] >= m.X[j, r, t],
        doc="Z is at least every X over t",
    )
    m.c11.upper = pyo.Constraint(
        m.J,
        m.R,
        rule=lambda b, j, r: m.Z[j, r] <= sum(m.X[j, r, t] for t in m.T),
        doc="Z is 0 when no X over t is 1",
    )
    m.c12 = pyo.Constraint(
        m.J,
        rule=lambda m, j: sum(m.Z[j, r] for r in m.R) == problem.jobs[j].tasks,
        doc="(12) job j gets exactly τ_j resources",
    )
    m.c13 = pyo.Constraint(
        m.J,
        m.R,
        m.T,
        rule=lambda m, j, r, t: (
            sum(m.X[j, q, t] for q in m.R) >= problem.jobs[j].tasks * m.X[j, r, t]
        ),
        doc="(13) in a slot where j runs, it runs on τ_j resources",
    )
    m.c14 = pyo.Constraint(
        [(j, r, t, early) for j in m.J for r in m.R for t in m.T for early in range(1, t)],
        rule=lambda m, j, r, t, early: m.X[j, r, early] <= 1 - m.Y[j, t],
        doc="(14) nothing of j runs before its start slot",
    )
    m.c15 = pyo.Constraint(
        m.J, rule=lambda m, j: sum(m.Y[j, t] for t in m.T) == 1, doc="(15) j starts exactly once"
    )
    m.c16 = pyo.Constraint(
        m.J, rule=lambda m, j: m.s[j] == sum(t * m.Y[j, t] for t in m.T) - 1, doc="(16) s_j from Y"
    )
    # (17) f_j = max_{r,t} t·X[j,r,t], exactly: f_j >= t·X[j,r,t] everywhere (f above the max),
    # and a selector E[j,·] picks one slot where j runs with f_j <= t + θ·(1 - E[j,t]) (f is
    # attained). E[j,t] <= A_jt lets E choose only a slot in which j runs.
    m.c17 = pyo.Block(doc="(17) f_j = max over r, t of t·X[j,r,t]")
    m.c17.lower = pyo.Constraint(
        m.J,
        m.R,
        m.T,
        rule=lambda b, j, r, t: m.f[j] >= t * m.X[j, r, t],
        doc="f_j is at least every slot j runs in",
    )
    m.c17.pick = pyo.Constraint(
        m.J, rule=lambda b, j: sum(m.E[j, t] for t in m.T) == 1, doc="one slot attains the max"
    )
    m.c17.attained = pyo.Constraint(
        m.J,
        m.T,
        rule=lambda b, j, t: m.E[j, t] <= _active(m, problem, j, t),
        doc="the attaining slot is one where j runs",
    )
    m.c17.upper = pyo.Constraint(
        m.J,
        m.T,
        rule=lambda b, j, t: m.f[j] <= t + theta * (1 - m.E[j, t]),
        doc="f_j is at most the attaining slot",
    )


def _add_timing(m: Any, problem: OasProblem) -> None:
    """Eq. 3 and constraints (18)-(20): how long j runs on what it got."""
    import pyomo.core as pyo

    levels = slowdown_levels(problem)
    eta = problem.slot_size
    # Eq. 3, SP_j = max over allocated r of SP^r. SP^r takes few values ("levels"); a selector
    # L[j,·] picks one level, which must cover every allocated resource (Z[j,r] = 1 forces a level
    # >= SP^r) and be attained by one (level l only if some r with SP^r = level l is allocated).
    # Covering and attained together make the level exactly the max.
    m.c03 = pyo.Block(doc="(eq. 3) SP_j = max over allocated resources of 1/Γ^r")
    m.c03.pick = pyo.Constraint(
        m.J, rule=lambda b, j: sum(m.L[j, lv] for lv in m.LV) == 1, doc="one slowdown level per job"
    )
    m.c03.value = pyo.Constraint(
        m.J,
        rule=lambda b, j: m.SP[j] == sum(levels[lv] * m.L[j, lv] for lv in m.LV),
        doc="SP_j is the picked level",
    )
    m.c03.covers = pyo.Constraint(
        m.J,
        m.R,
        rule=lambda b, j, r: (
            m.Z[j, r]
            <= sum(m.L[j, lv] for lv in m.LV if levels[lv] >= problem.resources[r].slowdown)
        ),
        doc="the level is at least SP^r of every allocated resource",
    )
    m.c03.attained = pyo.Constraint(
        m.J,
        m.LV,
        rule=lambda b, j, lv: (
            m.L[j, lv] <= sum(m.Z[j, r] for r in m.R if problem.resources[r].slowdown == levels[lv])
        ),
        doc="the level is SP^r of some allocated resource",
    )
    m.c18 = pyo.Constraint(
        m.J,
        rule=lambda m, j: m.ct[j] == problem.jobs[j].sigma * m.SP[j] + (1 - problem.jobs[j].sigma),
        doc="(18) ct_j = sigma_j·SP_j + (1 - sigma_j)",
    )
    # (19) literally (f_j - s_j)·η <= Tb_j·ct_j; with (20) that forces Tb_j·ct_j/η integral. Read
    # with eq. 8 rounded up to the slot grid instead: f_j - s_j = ceil(Tb_j·ct_j/η). ct_j is a
    # function of the picked level, so the ceiling is a constant per level: sum_l d_jl·L[j,l].
    m.c19 = pyo.Constraint(
        m.J,
        rule=lambda m, j: (
            m.f[j] - m.s[j]
            == sum(problem.jobs[j].slots_needed(levels[lv], eta) * m.L[j, lv] for lv in m.LV)
        ),
        doc="(19) j spans ceil(Tb_j·ct_j/η) slots from s_j + 1 to f_j",
    )
    # (20) is linear as printed. With (14) and (17) every used slot lies in s_j+1..f_j, τ_j slots
    # of X per slot, so sum X <= τ_j·(f_j - s_j); (20) gives sum X >= τ_j·ceil(Tb_j·ct_j/η) =
    # τ_j·(f_j - s_j) by (19). Equality: every slot of the span is used — the slots are contiguous.
    m.c20 = pyo.Constraint(
        m.J,
        rule=lambda m, j: (
            sum(m.X[j, r, t] for r in m.R for t in m.T) * eta
            >= problem.jobs[j].base_time * m.ct[j] * problem.jobs[j].tasks
        ),
        doc="(20) the slots j uses cover Tb_j·ct_j on each of its τ_j resources",
    )


def _add_bandwidth(m: Any, problem: OasProblem) -> None:
    """Eq. 4 and constraints (21)-(22): no link saturates in any slot."""
    import pyomo.core as pyo

    counts = {(j, k): _task_counts(problem, j, k) for j in m.J for k in m.K}
    bandwidth = {(j, k, n): problem.jobs[j].link_bandwidth(n) for j, k, n in m.JKM}
    # big-M: the largest BW_j^k that j can put on link k
    peak = {(j, k): max(bandwidth[j, k, n] for n in counts[j, k]) for j, k in counts}

    # Eq. 4, BW_j^k = t_j^k·PTBW_j·(τ_j - t_j^k)/(τ_j - 1), quadratic in the integer t_j^k =
    # sum_{r in k} Z[j,r]. Enumerate its values: U[j,k,n] = 1 iff t_j^k = n (one n, and
    # sum_n n·U = t_j^k); then BW_j^k = sum_n bw_j(n)·U[j,k,n] is linear and exact.
    m.c04 = pyo.Block(doc="(eq. 4) BW_j^k for t_j^k tasks of j in cluster k")
    m.c04.pick = pyo.Constraint(
        m.J,
        m.K,
        rule=lambda b, j, k: sum(m.U[j, k, n] for n in counts[j, k]) == 1,
        doc="one value of t_j^k",
    )
    m.c04.count = pyo.Constraint(
        m.J,
        m.K,
        rule=lambda b, j, k: (
            sum(n * m.U[j, k, n] for n in counts[j, k])
            == sum(m.Z[j, r] for r in m.R if problem.resources[r].cluster == k)
        ),
        doc="t_j^k is the number of j's resources in cluster k",
    )
    m.c04.load = pyo.Expression(
        m.J,
        m.K,
        rule=lambda b, j, k: sum(bandwidth[j, k, n] * m.U[j, k, n] for n in counts[j, k]),
        doc="BW_j^k of eq. 4",
    )
    # BW[j,k,t] = BW_j^k · A_jt, a product of a bounded continuous term in [0, M] and the 0/1
    # expression A_jt. McCormick is exact for a binary factor: BW <= M·A, BW <= BW_j^k,
    # BW >= BW_j^k - M·(1 - A), BW >= 0 (the variable's domain).
    m.c04.off = pyo.Constraint(
        m.J,
        m.K,
        m.T,
        rule=lambda b, j, k, t: m.BW[j, k, t] <= peak[j, k] * _active(m, problem, j, t),
        doc="no load in slots where j does not run",
    )
    m.c04.at_most = pyo.Constraint(
        m.J,
        m.K,
        m.T,
        rule=lambda b, j, k, t: m.BW[j, k, t] <= m.c04.load[j, k],
        doc="the load is at most BW_j^k",
    )
    m.c04.on = pyo.Constraint(
        m.J,
        m.K,
        m.T,
        rule=lambda b, j, k, t: (
            m.BW[j, k, t] >= m.c04.load[j, k] - peak[j, k] * (1 - _active(m, problem, j, t))
        ),
        doc="the full BW_j^k in slots where j runs",
    )
    # (21) with jobs already running: MBW_k is what they leave of the link in slot t (never < 0).
    m.c21 = pyo.Constraint(
        m.KF,
        m.T,
        rule=lambda m, k, t: (
            m.ABW[k, t] == problem.link_room(k, t) - sum(m.BW[j, k, t] for j in m.J)
        ),
        doc="(21) ABW[k,t] = MBW_k - sum_j BW[j,k,t]",
    )
    m.c22 = pyo.Constraint(
        m.KF, m.T, rule=lambda m, k, t: m.ABW[k, t] >= 0, doc="(22) no link saturates in any slot"
    )


def read_paper_plan(problem: OasProblem, model: Any) -> OasPlan:
    """The plan in the loaded solution of ``model``: resources from Z, slots from s_j and f_j."""
    eta = problem.slot_size
    placements = []
    for j, job in enumerate(problem.jobs):
        start, finish = round(model.s[j].value), round(model.f[j].value)
        held = tuple(r for r in range(len(problem.resources)) if model.Z[j, r].value > 0.5)
        placements.append(JobPlacement(job.id, start * eta, finish * eta, held, start, finish))
    return OasPlan(tuple(placements), max(p.end for p in placements))


def load_paper_plan(problem: OasProblem, model: Any, plan: OasPlan) -> None:
    """Set every variable of ``model`` to the values a slotted ``plan`` implies (a MIP start).

    Raises ValueError for a plan without slots.
    """
    levels = slowdown_levels(problem)
    for component in (model.Z, model.X, model.Y, model.L, model.E, model.U, model.BW):
        for index in component:
            component[index].set_value(0)
    for j, job in enumerate(problem.jobs):
        p = plan.placement(job.id)
        if p.start_slot is None or p.finish_slot is None:
            raise ValueError(f"job {job.id} has no slots: a MIP start needs a slotted plan")
        slowdown = max(problem.resources[r].slowdown for r in p.resources)
        model.s[j].set_value(p.start_slot)
        model.f[j].set_value(p.finish_slot)
        model.Y[j, p.start_slot + 1].set_value(1)
        model.E[j, p.finish_slot].set_value(1)
        model.SP[j].set_value(slowdown)
        model.ct[j].set_value(job.time_cost(slowdown))
        model.L[j, levels.index(slowdown)].set_value(1)
        for r in p.resources:
            model.Z[j, r].set_value(1)
            for t in range(p.start_slot + 1, p.finish_slot + 1):
                model.X[j, r, t].set_value(1)
        for k in range(problem.cluster_count):
            here = sum(1 for r in p.resources if problem.resources[r].cluster == k)
            model.U[j, k, here].set_value(1)
            for t in range(p.start_slot + 1, p.finish_slot + 1):
                model.BW[j, k, t].set_value(job.link_bandwidth(here))
    for k, t in model.ABW:
        model.ABW[k, t].set_value(
            problem.link_room(k, t) - sum(model.BW[j, k, t].value for j in model.J)
        )
    model.makespan.set_value(max(p.finish_slot or 0 for p in plan.placements))
