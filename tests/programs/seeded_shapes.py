"""A linear probe over a batch of features; the seed only decides the weights and the data."""
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=1337)
parser.add_argument("--features", type=int, default=12)
args = parser.parse_args()

torch.manual_seed(args.seed)
probe = torch.nn.Linear(16, 4)  # built for 16 features
batch = torch.randn(8, args.features)
logits = probe(batch)
print(logits.argmax(dim=1))
