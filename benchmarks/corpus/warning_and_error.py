"""Load a legacy training config, migrating renamed keys; strict mode rejects the rest.

Migrating the [optimizer] section warns `deprecated config key 'lr'` (a
UserWarning on stderr) and goes on; validation then finds the same key in
[schedule], which cannot be migrated, and raises a ValueError with the same
words. A reducer that accepts any line showing the message can keep only the
warning and drop the error.
"""

import json
import warnings

LEGACY_CONFIG = """
{
  "model": {"name": "resnet18", "dropout": 0.1, "width": 64},
  "optimizer": {"name": "adamw", "lr": 0.0003, "weight_decay": 0.01},
  "schedule": {"kind": "cosine", "warmup_steps": 500, "lr": 0.001, "total_steps": 20000},
  "data": {"batch_size": 64, "num_workers": 4, "shuffle": true}
}
"""

RENAMED = {"lr": "learning_rate", "bs": "batch_size", "wd": "weight_decay"}
MIGRATABLE_SECTIONS = ("optimizer", "data")
REQUIRED = {"model": ("name",), "optimizer": ("name", "learning_rate"), "data": ("batch_size",)}
STRICT = True


def deprecation_text(key):
    return f"deprecated config key {key!r}; use {RENAMED[key]!r}"


def migrate_section(name, section):
    migrated = {}
    for key, value in section.items():
        if key in RENAMED and name in MIGRATABLE_SECTIONS:
            warnings.warn(f"{deprecation_text(key)} (in [{name}], migrated)", UserWarning, stacklevel=2)
            migrated[RENAMED[key]] = value
        else:
            migrated[key] = value
    return migrated


def migrate(config):
    return {name: migrate_section(name, section) for name, section in config.items()}


def validate(config):
    problems = []
    for name, keys in REQUIRED.items():
        missing = [key for key in keys if key not in config.get(name, {})]
        if missing:
            problems.append(f"[{name}] is missing {', '.join(missing)}")
    for name, section in config.items():
        for key in section:
            if key in RENAMED:
                problems.append(f"{deprecation_text(key)} in [{name}] cannot be migrated automatically")
    if problems and STRICT:
        raise ValueError("; ".join(problems))
    return problems


def describe(config):
    opt, sched = config["optimizer"], config["schedule"]
    steps = sched["total_steps"] - sched["warmup_steps"]
    return (f"{config['model']['name']}: {opt['name']} lr={opt['learning_rate']:g}, "
            f"{steps} cosine steps after warmup, batch {config['data']['batch_size']}")


def main():
    config = migrate(json.loads(LEGACY_CONFIG))
    validate(config)
    print(describe(config))


main()
