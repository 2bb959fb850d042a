"""The ``bpu`` grid policy: the BPU paper's hybrid scheduler for moldable jobs (models.md §4.4).

Kaur et al. (IJATCSE 2013), "Scheduling Process": a job is first handled by its local site's
scheduler; if that site lacks the processing capacity, the job joins the end of the global
queue, which is served FCFS; each job there goes to the site chosen "fastest first" from the table
of average unallocated BPUs, on the processors chosen "best fit" (least excess BPU, then fewest
processors), co-allocated across sites in table order when no single site suffices. The table is
rebuilt after every allocation and completion: here, from the live free cores at each pass (which
comes with every arrival and every job end) and after each start within the pass. The pure parts
are in :mod:`solvers.bpu.selection`.

Options: ``local_first`` (yes: a job whose home site ``request.origin`` can run it when it
arrives starts there at once, ahead of the global queue, as the paper's local scheduler would;
no: every job goes through the global queue) and ``coalloc`` (no: a job that no single site
can take waits).

Choices the paper leaves open, made here:

- the local scheduler's test is the global one restricted to the home site (best fit on it);
  a job without a home site, or whose home site is not one of the platform's, is global at once;
- FCFS is strict: the first global job that cannot start blocks the ones behind it (the paper
  names no backfilling). Nothing is reserved; the blocked job is explained and retried. A job
  restricted to some sites (``-M``) blocks only the jobs that may use one of those sites, so
  jobs pinned to their home sites (the local-only baseline) queue FCFS per site;
- a processor is a core, so ``--cpus-per-task`` is not applied to moldable jobs;
- rigid jobs (no ``request.moldable``) are served in the same queue, sites and order, as a need
  of ``tasks`` task slots, each slot rated 1 (so best fit is exact and takes the faster classes
  first); their run time is then paced by the slowest node, as everywhere in the emulator;
- a job may use the clusters its request names (all if none); other placement constraints are
  not applied by this policy;
- within a speed class, the lowest-numbered free nodes are taken, as Slurm's select plugin does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from emulator.api import Decision, Explain, GridPolicy, GridView, Start
from emulator.model.bpu import bpu_ratings
from emulator.model.job import Job, JobState, Reason, Request
from emulator.model.platform import Platform
from solvers.bpu.selection import Pick, SiteFree, coallocate, select, site_table


@dataclass(frozen=True, slots=True)
class _Class:
    """One speed class of a cluster: its BPU rating per core and its nodes (local indices, in
    order, and as contiguous runs for counting)."""

    rating: float
    local: tuple[int, ...]
    runs: tuple[tuple[int, int], ...]
    label: str  # " x speed R", for the explanations


@dataclass(frozen=True, slots=True)
class _Site:
    name: str
    ids: tuple[int, ...]  # platform node id by local index
    processors: int  # cores in total
    classes: tuple[_Class, ...]  # fastest first
    ratings: tuple[float, ...] = field(init=False)  # of the classes
    spans: tuple[tuple[int, int, int], ...] = field(init=False)  # (class, low, high) of each run

    def __post_init__(self) -> None:
        object.__setattr__(self, "ratings", tuple(c.rating for c in self.classes))
        spans = tuple((i, lo, hi) for i, c in enumerate(self.classes) for lo, hi in c.runs)
        object.__setattr__(self, "spans", spans)

    def count(self, node_free: Sequence[int]) -> tuple[tuple[float, int], ...]:
        """``(rating, free processors)`` of each class, from the cluster's free cores."""
        counts = [0] * len(self.classes)
        if isinstance(node_free, bytearray):  # one-core nodes: the has-free mask, counted in C
            count = node_free.count
            for i, low, high in self.spans:
                counts[i] += count(1, low, high)
        else:
            for i, low, high in self.spans:
                counts[i] += sum(node_free[low:high])
        return tuple(zip(self.ratings, counts, strict=True))


def _runs(local: Sequence[int]) -> tuple[tuple[int, int], ...]:
    runs: list[tuple[int, int]] = []
    for i in local:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return tuple(runs)


def _layout(platform: Platform) -> tuple[_Site, ...]:
    ratings = bpu_ratings(platform)
    sites = []
    for cluster in platform.clusters:
        by_rating: dict[float, list[int]] = {}
        for node in cluster.nodes:
            by_rating.setdefault(ratings[node.id], []).append(node.local)
        classes = tuple(
            _Class(
                rating,
                tuple(by_rating[rating]),
                _runs(by_rating[rating]),
                f" x speed {round(rating, 3)}",
            )
            for rating in sorted(by_rating, reverse=True)
        )
        sites.append(
            _Site(cluster.name, tuple(n.id for n in cluster.nodes), cluster.cores, classes)
        )
    return tuple(sites)


@dataclass
class Bpu(GridPolicy):
    """BPU hybrid scheduler: home site first, global FCFS, fastest-first sites, best-fit BPUs."""

    name = "bpu"
    default_local = "fcfs"
    routes_all = True  # the paper's global queue sees every job that its home site cannot take

    coalloc: bool = True
    local_first: bool = True
    _platform: Platform | None = field(default=None, init=False, repr=False)
    _sites: tuple[_Site, ...] = field(default=(), init=False, repr=False)
    # each site's free processors as last known (counted, or left by a start), and the
    # cluster version of the last count: a site whose version stays is not recounted, and a
    # count that comes out the same keeps the object
    _last: list[SiteFree] = field(default_factory=list, init=False, repr=False)
    _versions: list[int] = field(default_factory=list, init=False, repr=False)
    _texts: dict[tuple[int, tuple[int, ...]], tuple[str, float]] = field(
        default_factory=dict, init=False, repr=False
    )
    # a moldable head that blocked every site as the first job of its pass, its request and
    # the free processors it saw: its choice depends on nothing else, so while all three stay
    # (and it is still explained as waiting for resources) the next pass ends where it did
    _held: tuple[Job, Request, list[tuple[tuple[float, int], ...]]] | None = field(
        default=None, init=False, repr=False
    )

    def schedule(self, view: GridView) -> Iterator[Decision]:
        if view.platform is not self._platform:
            self._platform, self._sites = view.platform, _layout(view.platform)
            self._versions = [-1] * len(self._sites)  # none counted yet
            self._last = [SiteFree(k, s.name, s.processors, ()) for k, s in enumerate(self._sites)]
            self._texts.clear()
            self._held = None
        queue = view.queue
        if not queue:
            return
        free = self._free(view)
        started: set[int] = set()
        if self.local_first:
            for job in view.arrived:
                if job.state is not JobState.PENDING or job.cluster != -1:
                    continue  # left the grid queue since it arrived
                home = self._home(job)
                if home is None:
                    continue
                picks = self._choose(view, job, [free[home]], coalloc=False)
                if picks is not None:
                    started.add(job.id)
                    yield self._start(view, job, picks, free, "home site ")
                    self._counted(view, picks)
        if not any(site.free_bpus for site in free):
            return
        head = next((job for job in queue if job.id not in started), None)
        held, self._held = self._held, None
        if (
            held is not None
            and head is held[0]
            and head.request is held[1]
            and head.reason is Reason.RESOURCES
            and held[2] == [site.classes for site in free]
        ):
            self._held = held
            return  # the same head on the same free processors: it blocks all sites again
        blocked: set[int] = set()  # sites a blocked job waits for: FCFS holds on them
        whole_table: list[SiteFree] | None = None  # of all sites, until the next start
        for job in queue:
            if job.id in started:
                continue
            allowed = self._allowed(job, free)
            if blocked and any(site.index in blocked for site in allowed):
                continue
            if allowed is not free:
                table = site_table(allowed)
            elif whole_table is None:
                table = whole_table = site_table(free)
            else:
                table = whole_table
            picks = self._choose(view, job, table, self.coalloc)
            if picks is None:
                if job.reason is not Reason.RESOURCES:
                    yield Explain(job, Reason.RESOURCES, _blocked(job, table))
                blocked.update(site.index for site in allowed)
                if len(blocked) == len(free):
                    if job is head and job.request.moldable is not None:
                        self._held = (job, job.request, [site.classes for site in free])
                    return  # strict FCFS: nothing behind it may pass
                continue
            whole_table = None
            yield self._start(view, job, picks, free, "")
            self._counted(view, picks)

    def _choose(
        self, view: GridView, job: Job, table: list[SiteFree], coalloc: bool
    ) -> list[Pick] | None:
        """Site and processors (fastest first, best fit), or co-allocation in table order."""
        if job.request.moldable is None:
            table = [self._slots(view, site, job.request.cpus_per_task) for site in table]
        need = _need(job)
        pick = select(table, need)
        if pick is not None:
            return [pick]
        return coallocate(table, need) if coalloc else None

    # --- the sites' free processors -----------------------------------------------------------
    def _free(self, view: GridView) -> list[SiteFree]:
        """Each site's free processors per class, recounted only for the sites whose version
        (a start, an end, a node in or out of service) moved since the last count."""
        last, versions = self._last, self._versions
        for k, state in enumerate(view.clusters):
            version = state.version
            if version != versions[k]:
                site = self._sites[k]
                classes = site.count(state.node_free)
                if classes != last[k].classes:
                    last[k] = SiteFree(k, site.name, site.processors, classes)
                versions[k] = version
        return list(last)

    def _counted(self, view: GridView, picks: list[Pick]) -> None:
        """After the engine applied a start: the sites it took from hold what :meth:`_start`
        left in ``_last`` (it took exactly the picked processors), so their new version needs
        no recount."""
        for pick in picks:
            k = pick.site.index
            self._versions[k] = view.clusters[k].version

    def _slots(self, view: GridView, site: SiteFree, cpt: int) -> SiteFree:
        """A rigid job's view of a site: free task slots per class, each rated 1."""
        if cpt == 1:
            classes = tuple((1.0, free) for _, free in site.classes)
        else:
            node_free = view.clusters[site.index].node_free
            classes = tuple(
                (1.0, sum(node_free[i] // cpt for i in c.local))
                for c in self._sites[site.index].classes
            )
        return SiteFree(site.index, site.name, site.processors, classes)

    def _home(self, job: Job) -> int | None:
        origin = job.request.origin
        if not origin or (job.request.clusters and origin not in job.request.clusters):
            return None
        for k, site in enumerate(self._sites):
            if site.name == origin:
                return k
        return None

    def _allowed(self, job: Job, free: list[SiteFree]) -> list[SiteFree]:
        names = job.request.clusters
        return free if not names else [site for site in free if site.name in names]

    # --- starting -------------------------------------------------------------------------------
    def _start(
        self, view: GridView, job: Job, picks: list[Pick], free: list[SiteFree], home: str
    ) -> Start:
        """The start of ``job`` on ``picks``; ``free`` loses what it takes (the table is rebuilt
        from it for the next job)."""
        slot = 1 if job.request.moldable is not None else job.request.cpus_per_task
        text = self._explain(job, picks, free, home)
        nodes: list[int] = []
        cores: list[int] = []
        for pick in picks:
            k = pick.site.index
            site, node_free = self._sites[k], view.clusters[k].node_free
            # one-core nodes: the has-free mask, where the free ones are found in C
            mask = node_free if slot == 1 and isinstance(node_free, bytearray) else None
            for cls, count in zip(site.classes, pick.counts, strict=True):
                if not count:
                    continue
                if mask is not None:
                    nodes.extend(_first_free(mask, cls.runs, site.ids, count))
                    cores.extend([1] * count)
                    continue
                left = count
                for i in cls.local:
                    if not left:
                        break
                    room = node_free[i] // slot
                    if room:
                        take = min(room, left)
                        nodes.append(site.ids[i])
                        cores.append(take * slot)
                        left -= take
            before = free[k]
            taken = tuple(
                [
                    (rating, have - count * slot)
                    for (rating, have), count in zip(before.classes, pick.counts, strict=True)
                ]
            )
            free[k] = self._last[k] = SiteFree(k, before.name, before.processors, taken)
        return Start(job, nodes=tuple(nodes), cores=tuple(cores), explanation=text)

    def _explain(self, job: Job, picks: list[Pick], free: list[SiteFree], home: str) -> str:
        """``BPU: east (avg free 0.62): 2 x speed 1.5 + 1 x speed 1.0 = 4.0 BPU >= 4.0``: the
        site's average before the start, and ``speed``, the BPU rating of a core."""
        parts = []
        total = 0.0
        for pick in picks:
            site = free[pick.site.index]
            counts, bpus = self._counts_text(pick)
            total += bpus
            parts.append(f"{site.name} (avg free {site.average:.2f}): {counts}")
        head = "BPU co-allocated: " if len(picks) > 1 else f"BPU: {home}"
        if job.request.moldable is None:
            return f"{head}{' + '.join(parts)} = {job.request.tasks} tasks"
        return f"{head}{' + '.join(parts)} = {total:.1f} BPU >= {_need(job):.1f}"

    def _counts_text(self, pick: Pick) -> tuple[str, float]:
        """``2 x speed 1.5 + 1 x speed 1.0`` and its BPUs, for a pick's counts on its site:
        kept, as a site's few classes and small counts recur from job to job."""
        key = (pick.site.index, pick.counts)
        known = self._texts.get(key)
        if known is None:
            classes = self._sites[pick.site.index].classes
            text = " + ".join(
                f"{count}{cls.label}"
                for cls, count in zip(classes, pick.counts, strict=True)
                if count
            )
            bpus = sum(c.rating * n for c, n in zip(classes, pick.counts, strict=True))
            known = self._texts[key] = (text, bpus)
        return known


def _first_free(
    has_free: bytearray, runs: Sequence[tuple[int, int]], ids: Sequence[int], count: int
) -> list[int]:
    """Platform ids of the ``count`` lowest-numbered free one-core nodes in ``runs``."""
    taken: list[int] = []
    for low, high in runs:
        position = has_free.find(1, low, high)
        while position >= 0 and len(taken) < count:
            taken.append(ids[position])
            position = has_free.find(1, position + 1, high)
        if len(taken) == count:
            break
    return taken


def _need(job: Job) -> float:
    moldable = job.request.moldable
    return moldable.power if moldable is not None else float(job.request.tasks)


def _blocked(job: Job, table: Sequence[SiteFree]) -> str:
    if job.request.moldable is None:
        free = sum(count for site in table for _, count in site.classes)
        most = max((sum(count for _, count in site.classes) for site in table), default=0)
        return (
            f"waits for {job.request.tasks} tasks ({free} free cores on its sites, "
            f"at most {most} on one)"
        )
    bpus = [site.free_bpus for site in table]
    return (
        f"waits for {_need(job):.1f} BPUs ({sum(bpus):.1f} free on its sites, "
        f"at most {max(bpus, default=0.0):.1f} on one)"
    )
