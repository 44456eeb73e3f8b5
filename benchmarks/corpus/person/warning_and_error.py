RENAMED = {"lr": "learning_rate"}


def deprecation_text(key):
    return f"deprecated config key {key!r}; use {RENAMED[key]!r}"


def validate(config):
    problems = []
    for name, section in config.items():
        for key in section:
            if key in RENAMED:
                problems.append(f"{deprecation_text(key)} in [{name}] cannot be migrated automatically")
    if problems:
        raise ValueError("; ".join(problems))


validate({"schedule": {"lr": 0.001}})
