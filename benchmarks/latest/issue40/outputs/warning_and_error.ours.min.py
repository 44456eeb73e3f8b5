import json


RENAMED = {"lr": "learning_rate"}
STRICT = True


def deprecation_text():
    return f"deprecated config key {key!r}; use {RENAMED[key]!r}"


problems = []
for name, section in json.loads("""
{
  "schedule": {"kind": "cosine", "warmup_steps": 500, "lr": 0.001, "total_steps": 20000},
  "data": {"batch_size": 64, "num_workers": 4, "shuffle": true}
}
""").items():
    for key in section:
        if key in RENAMED:
            problems.append(f"{deprecation_text()} in [{name}] cannot be migrated automatically")
if problems and STRICT:
    raise ValueError("; ".join(problems))
