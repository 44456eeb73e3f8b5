import json
import warnings
LEGACY_CONFIG = '\n{\n  "model": {"name": "resnet18", "dropout": 0.1, "width": 64},\n  "optimizer": {"name": "adamw", "lr": 0.0003, "weight_decay": 0.01},\n  "schedule": {"kind": "cosine", "warmup_steps": 500, "lr": 0.001, "total_steps": 20000},\n  "data": {"batch_size": 64, "num_workers": 4, "shuffle": true}\n}\n'

def deprecation_text(key, *args, **kwargs):
    return f'deprecated config key {key!r}'

def migrate_section(name, section, *args, **kwargs):
    for key, value in section.items():
        warnings.warn(f'{deprecation_text(key)}')

def migrate(config, *args, **kwargs):
    return {name: migrate_section(name, section) for name, section in config.items()}

def main(*args, **kwargs):
    migrate(json.loads(LEGACY_CONFIG))
main()