"""A tiny random two-layer model, seeded: its log-likelihood fails for this seed only.

The shape of karpathy's bigram language model: `torch.manual_seed(1337)` at
the top, weights drawn at random, a loss taken of the model's output.
"""
import math
import random

random.seed(1337)

n_embd = 4
vocab_size = 3


class Layer:
    def __init__(self, n_in, n_out):
        self.weight = [[random.gauss(0, 1) for _ in range(n_in)] for _ in range(n_out)]
        self.bias = [0.0 for _ in range(n_out)]

    def forward(self, xs):
        return [sum(w * x for w, x in zip(row, xs)) + b for row, b in zip(self.weight, self.bias)]


class TinyModel:
    def __init__(self):
        self.hidden = Layer(n_embd, n_embd)
        self.head = Layer(n_embd, vocab_size)

    def forward(self, xs):
        return self.head.forward(self.hidden.forward(xs))


def describe(model):
    # how many parameters the model has
    count = 0
    for layer in (model.hidden, model.head):
        count += sum(len(row) for row in layer.weight) + len(layer.bias)
    return f"TinyModel with {count} parameters"


model = TinyModel()
print(describe(model))
batch = [random.random() for _ in range(n_embd)]
logits = model.forward(batch)
print("logits:", [round(v, 3) for v in logits])
# the likelihood of the first token: the model's raw output, not a probability (the bug)
loss = -math.log(logits[0])
print("loss:", loss)
