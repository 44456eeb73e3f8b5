# From pytorch/examples (https://github.com/pytorch/examples), file word_language_model/data.py, at commit
# cc8e404cbcbf3a3c326789260deed89ee04b3408 (the parent of the fix commit ac7e960b35f72f24f0b04c3826c9d9e228599b6b,
# "Support torch>=2.6 in word_language_model example (#1347)"). Licence: BSD 3-Clause, Copyright (c) 2017, Pytorch contributors.
# Unchanged but for this comment. The data under data/wikitext-2/ are the first lines of the example's own
# valid.txt and test.txt (train.txt is not in the snapshot; the full data make one epoch take minutes).
import os
from io import open
import torch

class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    def __init__(self, path):
        self.dictionary = Dictionary()
        self.train = self.tokenize(os.path.join(path, 'train.txt'))
        self.valid = self.tokenize(os.path.join(path, 'valid.txt'))
        self.test = self.tokenize(os.path.join(path, 'test.txt'))

    def tokenize(self, path):
        """Tokenizes a text file."""
        assert os.path.exists(path)
        # Add words to the dictionary
        with open(path, 'r', encoding="utf8") as f:
            for line in f:
                words = line.split() + ['<eos>']
                for word in words:
                    self.dictionary.add_word(word)

        # Tokenize file content
        with open(path, 'r', encoding="utf8") as f:
            idss = []
            for line in f:
                words = line.split() + ['<eos>']
                ids = []
                for word in words:
                    ids.append(self.dictionary.word2idx[word])
                idss.append(torch.tensor(ids).type(torch.int64))
            ids = torch.cat(idss)

        return ids
