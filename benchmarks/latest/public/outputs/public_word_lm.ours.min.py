# From pytorch/examples (https://github.com/pytorch/examples), file word_language_model/main.py, at commit
# cc8e404cbcbf3a3c326789260deed89ee04b3408 (the parent of the fix commit ac7e960b35f72f24f0b04c3826c9d9e228599b6b,
# "Support torch>=2.6 in word_language_model example (#1347)"). Licence: BSD 3-Clause, Copyright (c) 2017, Pytorch contributors.
# Unchanged but for this comment. The data under data/wikitext-2/ are the first lines of the example's own
# valid.txt and test.txt (train.txt is not in the snapshot; the full data make one epoch take minutes).
# coding: utf-8
import argparse
import torch.onnx


parser = argparse.ArgumentParser()
parser.add_argument('--epochs')
parser.add_argument('--seed', default=1)
parser.add_argument('--save', default='model.pt')
parser.add_argument('--dry-run', action='store_true')
args = parser.parse_args()

# Set the random seed manually for reproducibility.
torch.manual_seed(args.seed)


# Load the best saved model.
torch.load(args.save)
