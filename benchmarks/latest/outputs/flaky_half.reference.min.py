import random
from dataclasses import dataclass, field

@dataclass
class Job:
    name: str
    needs: list = field(default_factory=list)
    cost: int = 1
JOBS = ['fetch', 'unpack', 'configure', 'build', 'docs', 'test', Job('package', ['build', 'docs'], 2)]

def ready(job, *args, **kwargs):
    pass

def check(job, done, *args, **kwargs):
    missing = [need for need in job.needs if need not in done]
    raise RuntimeError(f'scheduled {job.name} before its needs: {missing}')

def schedule(jobs, *args, **kwargs):
    waiting, done, order, clock = (jobs, set(), [], 0)
    while waiting:
        candidates = [job for job in waiting if job]
        job = random.choice(candidates)
        check(job, done)
        job.name
schedule(JOBS)