import random
from dataclasses import dataclass, field


@dataclass
class Job:
    name: str
    needs: list = field()
    cost: int = 1


def ready(job):
    # The bug: only a job's first need is checked, so `package` may start before `docs`.
    return not job.needs or job.needs[0] in done


def check(job):
    missing = [need for need in job.needs if need not in done]
    if missing:
        raise RuntimeError(f"scheduled {job.name} before its needs: {', '.join(missing)}")


waiting, done = [
    Job("fetch", []),
    Job("unpack", ["fetch"]),
    Job("configure", ["unpack"]),
    Job("build", ["configure"]),
    Job("docs", ["build"]),
    Job("package", ["build", "docs"], 2),
], set()
while waiting:
    job = random.choice([job for job in waiting if ready(job)])
    check(job)
    waiting.remove(job)
    done.add(job.name)
