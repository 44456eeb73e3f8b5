"""Character-level data: a corpus (synthetic or from a file), its vocabulary, batches for training."""

import os
import random
import string
from collections import Counter

import torch

PAD = "\0"
UNK = "\1"

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "en", "or", "al", "ith"]
WORDS_PER_SENTENCE = (4, 12)
PUNCTUATION = [".", ".", ".", "!", "?"]


def synthetic_corpus(n_chars, seed=0):
    """Sentences of made-up words: deterministic for a seed, with enough structure to learn."""
    rng = random.Random(seed)
    words = []
    for _ in range(400):
        n = rng.randint(1, 4)
        words.append("".join(rng.choice(SYLLABLES) for _ in range(n)))
    pieces, size = [], 0
    while size < n_chars:
        count = rng.randint(*WORDS_PER_SENTENCE)
        sentence = " ".join(rng.choice(words) for _ in range(count))
        sentence = sentence.capitalize() + rng.choice(PUNCTUATION) + " "
        pieces.append(sentence)
        size += len(sentence)
    return "".join(pieces)[:n_chars]


def read_corpus(path, max_chars=None):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if max_chars:
        text = text[:max_chars]
    return normalize_text(text)


def normalize_text(text):
    allowed = set(string.printable)
    return "".join(c if c in allowed else " " for c in text.replace("\r\n", "\n"))


class Vocabulary:
    """Characters to ids and back; ids 0 and 1 are padding and unknown."""

    def __init__(self, chars=()):
        self.itos = [PAD, UNK]
        self.stoi = {PAD: 0, UNK: 1}
        for c in chars:
            self.add(c)

    def add(self, c):
        if c not in self.stoi:
            self.stoi[c] = len(self.itos)
            self.itos.append(c)
        return self.stoi[c]

    @classmethod
    def from_text(cls, text, min_count=1):
        counts = Counter(text)
        chars = sorted(c for c, n in counts.items() if n >= min_count)
        return cls(chars)

    def __len__(self):
        return len(self.itos)

    def encode(self, text):
        unk = self.stoi[UNK]
        return [self.stoi.get(c, unk) for c in text]

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids if i != 0)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join(self.itos[2:]))

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as handle:
            return cls(handle.read())


class Corpus:
    """The corpus split into train / validation / test id tensors."""

    def __init__(self, text, vocab=None, split=(0.8, 0.1)):
        self.vocab = vocab or Vocabulary.from_text(text)
        ids = torch.tensor(self.vocab.encode(text), dtype=torch.long)
        n_train = int(len(ids) * split[0])
        n_valid = int(len(ids) * split[1])
        self.train = ids[:n_train]
        self.valid = ids[n_train:n_train + n_valid]
        self.test = ids[n_train + n_valid:]

    def stats(self):
        return {
            "vocab": len(self.vocab),
            "train": len(self.train),
            "valid": len(self.valid),
            "test": len(self.test),
        }


def load_corpus(source, n_chars, seed=0):
    if source == "synthetic":
        text = synthetic_corpus(n_chars, seed)
    elif os.path.exists(source):
        text = read_corpus(source, n_chars)
    else:
        raise FileNotFoundError(f"no corpus at {source!r}")
    return Corpus(text)


class LMBatches:
    """Random windows of `seq_len` characters: inputs and the same shifted by one as targets."""

    def __init__(self, ids, seq_len, batch_size, seed=0):
        if len(ids) <= seq_len + 1:
            raise ValueError(f"the split has {len(ids)} characters, fewer than a window of {seq_len + 1}")
        self.ids = ids
        self.seq_len = seq_len
        self.batch_size = batch_size
        self.generator = torch.Generator().manual_seed(seed)

    def sample(self):
        starts = torch.randint(len(self.ids) - self.seq_len - 1, (self.batch_size,), generator=self.generator)
        x = torch.stack([self.ids[s:s + self.seq_len] for s in starts])
        y = torch.stack([self.ids[s + 1:s + 1 + self.seq_len] for s in starts])
        return x, y

    def __iter__(self):
        while True:
            yield self.sample()


def sequential_batches(ids, seq_len, batch_size):
    """The split cut into consecutive windows, for evaluation (every character once)."""
    n = (len(ids) - 1) // seq_len
    windows = [(ids[i * seq_len:(i + 1) * seq_len], ids[i * seq_len + 1:(i + 1) * seq_len + 1]) for i in range(n)]
    for start in range(0, len(windows), batch_size):
        chunk = windows[start:start + batch_size]
        yield torch.stack([w[0] for w in chunk]), torch.stack([w[1] for w in chunk])


def pad_batch(sequences, pad_id=0):
    longest = max(len(s) for s in sequences)
    out = torch.full((len(sequences), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(sequences):
        out[row, :len(seq)] = torch.as_tensor(seq)
    return out


class SentenceDataset(torch.utils.data.Dataset):
    """Sentences with a label (the punctuation that ends them), for the bag-of-characters classifier."""

    LABELS = {".": 0, "!": 1, "?": 2}

    def __init__(self, text, vocab, max_len=80):
        self.vocab = vocab
        self.items = []
        sentence = []
        for c in text:
            if c in self.LABELS:
                if sentence:
                    self.items.append((vocab.encode("".join(sentence).strip()[:max_len]), self.LABELS[c]))
                sentence = []
            else:
                sentence.append(c)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]

    @staticmethod
    def collate(batch):
        ids, labels = zip(*batch)
        return pad_batch(ids), torch.tensor(labels)


def class_weights(dataset):
    counts = Counter(label for _, label in dataset.items)
    total = sum(counts.values())
    return torch.tensor([total / (len(counts) * counts.get(i, 1)) for i in range(len(SentenceDataset.LABELS))])


def describe_batch(x, y, vocab, n=2):
    lines = []
    for row in range(min(n, x.shape[0])):
        lines.append(f"x: {vocab.decode(x[row].tolist())!r}")
        lines.append(f"y: {vocab.decode(y[row].tolist())!r}")
    return "\n".join(lines)
