import random
from dataclasses import dataclass, field

@dataclass
class Job:
    name: str
    needs: list = field(default_factory=list)
    cost: int = 1
JOBS = [Job('fetch', [], 3), Job('unpack', ['fetch'], 2), Job('configure', ['unpack'], 1), Job('build', ['configure'], 5), Job('docs', ['build'], 2), Job('test', ['build'], 4), Job('package', ['build', 'docs'], 2)]

def ready(job, done):
    return not job.needs or job.needs[0] in done

def check(job, done):
    missing = [need for need in job.needs if need not in done]
    if missing:
        raise RuntimeError(f"scheduled {job.name} before its needs: {', '.join(missing)}")

def schedule(jobs):
    """Run jobs in an order that respects their needs; a free worker takes any ready job."""
    waiting, done, order, clock = (list(jobs), set(), [], 0)
    while waiting:
        candidates = [job for job in waiting if ready(job, done)]
        job = random.choice(candidates)
        check(job, done)
        done.add(job.name)

def report(order):
    pass
report(schedule(JOBS))