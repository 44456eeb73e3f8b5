"""Train a tiny model, checkpoint the best one, load it back for the test set.

The shape of pytorch/examples' word_language_model: the checkpoint is written
with the whole model object, and the safe loader (like torch.load's
weights-only default) refuses the class.
"""
import argparse
import io
import pickle
import random

parser = argparse.ArgumentParser(description="tiny linear model")
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--save", type=str, default="model.ckpt", help="path to save the final model")
args = parser.parse_args()

random.seed(1111)


class LinearModel:
    def __init__(self, n):
        self.weights = [random.uniform(-1, 1) for _ in range(n)]

    def predict(self, xs):
        return sum(w * x for w, x in zip(self.weights, xs))


class SafeUnpickler(pickle.Unpickler):
    """Only plain data: what a weights-only loader accepts."""

    def find_class(self, module, name):
        if module == "builtins" and name in ("list", "dict", "float", "int"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"Weights only load failed: unsupported global {module}.{name}")


def safe_load(handle):
    return SafeUnpickler(io.BytesIO(handle.read())).load()


data = [([random.random() for _ in range(4)], random.random()) for _ in range(16)]
model = LinearModel(4)


def train():
    loss = 0.0
    for xs, y in data:
        error = model.predict(xs) - y
        loss += error * error
        for i, x in enumerate(xs):
            model.weights[i] -= args.lr * error * x / len(data)
    return loss / len(data)


best_val_loss = None
for epoch in range(1, args.epochs + 1):
    val_loss = train()
    print(f"| end of epoch {epoch:3d} | valid loss {val_loss:5.2f}")
    if not best_val_loss or val_loss < best_val_loss:
        with open(args.save, "wb") as f:
            pickle.dump(model, f)
        best_val_loss = val_loss

# Load the best saved model.
with open(args.save, "rb") as f:
    model = safe_load(f)

print("test loss", sum((model.predict(xs) - y) ** 2 for xs, y in data))
