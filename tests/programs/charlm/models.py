"""The models: a small GPT, an LSTM language model and a bag-of-characters classifier, and their factory."""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class GPTConfig:
    vocab_size: int = 128
    block_size: int = 32
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    dropout: float = 0.1
    bias: bool = True


def sinusoidal_positions(length, dim):
    """The fixed position encoding of "Attention is all you need": any length, no parameters."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    div = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * div)
    table[:, 1::2] = torch.cos(position * div)
    return table


class LayerNorm(nn.Module):
    """LayerNorm with an optional bias (PyTorch's has no bias=False before 2.1)."""

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(ndim))
        self.bias = nn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0, "the embedding must split evenly into heads"
        # key, query, value projections for all heads, in a batch
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        # causal mask to ensure that attention is only applied to the left in the input sequence
        mask = torch.tril(torch.ones(config.block_size, config.block_size))
        self.register_buffer("mask", mask.view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = LayerNorm(config.n_embd, bias=config.bias)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        # scaled init of the residual projections, per GPT-2
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        # idx and targets are both (B,T) tensor of integers
        b, t = idx.size()
        tok_emb = self.wte(idx)  # token embeddings of shape (b, t, n_embd)
        pos_emb = sinusoidal_positions(t, self.config.n_embd).to(idx.device)
        x = self.drop(tok_emb + pos_emb)
        for block in self.blocks:
            x = block(x)
        x = self.ln_f(x)
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=0)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        decay = [p for p in self.parameters() if p.dim() >= 2]
        no_decay = [p for p in self.parameters() if p.dim() < 2]
        groups = [
            {"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


class LSTMLanguageModel(nn.Module):
    """Embedding, a stacked LSTM, a linear decoder; the classic word-language-model shape."""

    def __init__(self, vocab_size, n_embd, hidden, n_layers, dropout=0.2, tie_weights=False):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(vocab_size, n_embd)
        self.rnn = nn.LSTM(n_embd, hidden, n_layers, dropout=dropout if n_layers > 1 else 0.0, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab_size)
        if tie_weights:
            if hidden != n_embd:
                raise ValueError("when tying weights, the hidden size must equal the embedding size")
            self.decoder.weight = self.encoder.weight
        self.hidden = hidden
        self.n_layers = n_layers
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, idx, targets=None, state=None):
        emb = self.drop(self.encoder(idx))
        output, state = self.rnn(emb, state)
        logits = self.decoder(self.drop(output))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=0)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        return torch.optim.AdamW(self.parameters(), lr=learning_rate, betas=betas, weight_decay=weight_decay)


class BagOfCharacters(nn.Module):
    """Mean of character embeddings, then an MLP: the sentence classifier's baseline."""

    def __init__(self, vocab_size, n_embd, n_classes, hidden=128, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, n_embd, padding_idx=0)
        self.hidden1 = nn.Sequential(nn.Linear(n_embd, hidden), nn.ReLU(), nn.Dropout(dropout))
        # self.hidden2 = nn.Sequential(
        #     nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, idx, targets=None):
        mask = (idx != 0).float().unsqueeze(-1)
        emb = self.embed(idx) * mask
        pooled = emb.sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        logits = self.out(self.hidden1(pooled))
        loss = F.cross_entropy(logits, targets) if targets is not None else None
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        return torch.optim.Adam(self.parameters(), lr=learning_rate, betas=betas)


MODELS = {}


def register(name):
    def wrap(builder):
        MODELS[name] = builder
        return builder
    return wrap


@register("gpt")
def build_gpt(vocab_size, opts):
    config = GPTConfig(vocab_size=vocab_size, n_layer=opts.n_layer, n_head=opts.n_head,
                       n_embd=opts.n_embd, dropout=opts.dropout)
    return GPT(config)


@register("lstm")
def build_lstm(vocab_size, opts):
    return LSTMLanguageModel(vocab_size, opts.n_embd, opts.n_embd * 2, opts.n_layer, opts.dropout)


@register("bow")
def build_bow(vocab_size, opts):
    return BagOfCharacters(vocab_size, opts.n_embd, 3, dropout=opts.dropout)


def build_model(name, vocab_size, opts):
    if name not in MODELS:
        raise KeyError(f"unknown model {name!r}; known: {sorted(MODELS)}")
    return MODELS[name](vocab_size, opts)


def describe(model):
    lines = [type(model).__name__]
    for name, module in model.named_children():
        n = sum(p.numel() for p in module.parameters())
        lines.append(f"  {name}: {type(module).__name__} ({n:,} parameters)")
    return "\n".join(lines)
