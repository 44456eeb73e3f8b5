import random
from dataclasses import dataclass


@dataclass
class Job:
    name: str
    needs: list = list


def ready(job):
    # The bug: only a job's first need is checked, so `package` may start before `docs`.
    return not job.needs or job.needs[0] in done


waiting, done, order, clock = [
    Job("fetch", []),
    Job("unpack", ["fetch"]),
    Job("configure", ["unpack"]),
    Job("build", ["configure"]),
    Job("package", ["build", "docs"]),
], set(), [], 0
while waiting:
    job = random.choice([job for job in waiting if ready(job)])
    missing = [need for need in job.needs if need not in done]
    if missing:
        raise RuntimeError(f"scheduled {job.name} before its needs: {', '.join(missing)}")
    done.add(job.name)
