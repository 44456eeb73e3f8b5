"""A text-normalisation plugin that a host program loads and drives (it does nothing when run alone)."""

import re
import unicodedata

ABBREVIATIONS = {"st.": "street", "rd.": "road", "ave.": "avenue"}
STOP = {"the", "a", "an"}


def fold(text):
    return unicodedata.normalize("NFKC", text).lower()


def tokens(text):
    return re.findall(r"[\w.]+", text)


def expand(word):
    return ABBREVIATIONS.get(word, word)


def strip_stop(words):
    return [word for word in words if word not in STOP]


def squeeze(words):
    out = []
    for word in words:
        if not out or out[-1] != word:
            out.append(word)
    return out


def normalize(text):
    words = [expand(word) for word in tokens(text)]
    words = tokens(fold(" ".join(words)))
    words = strip_stop(words)
    words = squeeze(words)
    return " ".join(word.rstrip(".") for word in words)


def key(record):
    return normalize(record["street"]) + "|" + record["city"].upper()


class Index:
    def __init__(self):
        self.entries = {}

    def add(self, record):
        self.entries.setdefault(key(record), []).append(record)

    def lookup(self, street, city):
        return self.entries.get(key({"street": street, "city": city}), [])


def describe(index):
    return {name: len(records) for name, records in index.entries.items()}
