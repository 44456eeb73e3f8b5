import torch
import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)


model = RNNModel(138, 200, 200, 2, 0.2)
with open('model.pt', 'wb') as f:
    torch.save(model, f)
with open('model.pt', 'rb') as f:
    model = torch.load(f)
