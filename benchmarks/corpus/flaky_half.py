"""A job scheduler whose race shows in about half the runs (an unseeded shuffle)."""

import os
import random
from dataclasses import dataclass, field

random.seed(os.urandom(8))


@dataclass
class Job:
    name: str
    needs: list = field(default_factory=list)
    cost: int = 1


JOBS = [
    Job("fetch", [], 3),
    Job("unpack", ["fetch"], 2),
    Job("configure", ["unpack"], 1),
    Job("build", ["configure"], 5),
    Job("docs", ["build"], 2),
    Job("test", ["build"], 4),
    Job("package", ["build", "docs"], 2),
]


def ready(job, done):
    # The bug: only a job's first need is checked, so `package` may start before `docs`.
    return not job.needs or job.needs[0] in done


def check(job, done):
    missing = [need for need in job.needs if need not in done]
    if missing:
        raise RuntimeError(f"scheduled {job.name} before its needs: {', '.join(missing)}")


def schedule(jobs):
    """Run jobs in an order that respects their needs; a free worker takes any ready job."""
    waiting, done, order, clock = list(jobs), set(), [], 0
    while waiting:
        candidates = [job for job in waiting if ready(job, done)]
        job = random.choice(candidates)
        check(job, done)
        waiting.remove(job)
        clock += job.cost
        done.add(job.name)
        order.append((clock, job.name))
    return order


def report(order):
    for clock, name in order:
        print(f"{clock:>3}  {name}")
    print("total", order[-1][0])


report(schedule(JOBS))
