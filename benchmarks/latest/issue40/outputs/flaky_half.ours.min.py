import random
from dataclasses import dataclass, field


@dataclass
class Job:
    name: str
    needs: list = field(default_factory=list)
    cost: int = 1


def check(job):
    missing = [need for need in job.needs if need not in done]
    if missing:
        raise RuntimeError(f"scheduled {job.name} before its needs: {', '.join(missing)}")


waiting, done = [Job("build"), Job("package", ["build", "docs"], 2)], set()
while waiting:
    job = random.choice([job for job in waiting if job])
    check(job)
    done.add(job.name)
