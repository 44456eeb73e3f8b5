import random
from dataclasses import dataclass


@dataclass
class Job:
    name: str
    needs: list


def ready(job, done):
    # The bug: only a job's first need is checked, so `package` may start before `docs`.
    return not job.needs or job.needs[0] in done


def check(job, done):
    missing = [need for need in job.needs if need not in done]
    if missing:
        raise RuntimeError(f"scheduled {job.name} before its needs: {', '.join(missing)}")


waiting = [Job("docs", ["build"]), Job("package", ["build", "docs"])]
done = {"build"}
job = random.choice([job for job in waiting if ready(job, done)])
check(job, done)
