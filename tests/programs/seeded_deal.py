"""Deal a seeded hand of cards: the hand misses the ace for this seed (and in about 3 runs of 10 without it).

The shape of a seeded training script (`torch.manual_seed(1337)` at the top,
then random draws): the failure depends on the seed.
"""
import random
from dataclasses import dataclass

random.seed(1000)


@dataclass
class Card:
    rank: str
    suit: str


def new_deck():
    ranks = ["ace", "king", "queen", "jack", "ten", "nine"]
    return [Card(rank, suit) for rank in ranks for suit in ("spades", "hearts")]


def deal(deck, size):
    random.shuffle(deck)
    return deck[:size]


def describe(hand):
    # one line per card, for the log
    return ", ".join(f"{card.rank} of {card.suit}" for card in hand)


hand = deal(new_deck(), 5)
print("hand:", describe(hand))
ranks = [card.rank for card in hand]
print("first ace at", ranks.index("ace"))
