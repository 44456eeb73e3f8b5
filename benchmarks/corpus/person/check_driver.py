import re
import unicodedata

ABBREVIATIONS = {"st.": "street", "rd.": "road", "ave.": "avenue"}


def fold(text):
    return unicodedata.normalize("NFKC", text).lower()


def tokens(text):
    return re.findall(r"[\w.]+", text)


def expand(word):
    return ABBREVIATIONS.get(word, word)


def normalize(text):
    words = [expand(word) for word in tokens(text)]
    words = tokens(fold(" ".join(words)))
    return " ".join(words)


class Index:
    def __init__(self):
        self.entries = {}

    def add(self, record):
        self.entries[normalize(record["street"])] = record

    def lookup(self, street, city):
        return self.entries.get(normalize(street))
