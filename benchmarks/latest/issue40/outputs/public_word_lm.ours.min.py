import torch


class RNNModel:
    pass


# Load data
# Starting from sequential data, batchify arranges the dataset into columns.
# For instance, with the alphabet as the sequence and batch size 4, we'd get
# ┌ a g m s ┐
# │ b h n t │
# │ c i o u │
# │ d j p v │
# │ e k q w │
# └ f l r x ┘.
# These columns are treated as independent by the model, which means that the
# dependence of e. g. 'g' on 'f' can not be learned, but allows more efficient
# batch processing.
# Build the model
model = RNNModel()


# Training code
# Save the model if the validation loss is the best we've seen so far.
f = open('model.pt', 'wb')
torch.save(model, f)

# Load the best saved model.
f = open('model.pt', 'rb')
model = torch.load(f)
