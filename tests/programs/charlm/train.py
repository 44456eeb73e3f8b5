"""Train a small character-level language model (or the sentence classifier) on a corpus.

    python train.py                       # the GPT on the synthetic corpus
    python train.py --model lstm --max-steps 500
    python train.py --data input.txt --seq-len 128 --block-size 128 --save

Evaluates every --eval-every steps on the validation split, keeps the best
checkpoint with --save, and prints a sample at the end.
"""

import json
import os
import time

import torch

import data
import models
from utils import (
    AverageMeter,
    EarlyStopping,
    Logger,
    Timer,
    accuracy,
    cosine_lr,
    count_parameters,
    environment,
    grad_norm,
    parse_config,
    perplexity,
    save_checkpoint,
    set_lr,
    set_seed,
)

SAMPLE_PROMPT = "Ka"
SAMPLE_LENGTH = 120


def prepare_data(cfg, log):
    corpus = data.load_corpus(cfg.data, cfg.corpus_chars, seed=cfg.seed)
    log.log(f"corpus: {json.dumps(corpus.stats())}")
    if len(corpus.valid) <= cfg.seq_len + 1:
        raise ValueError("the validation split is shorter than one window; use more --corpus-chars")
    train_batches = data.LMBatches(corpus.train, cfg.seq_len, cfg.batch_size, seed=cfg.seed)
    return corpus, train_batches


def prepare_classifier_data(cfg, corpus):
    text = corpus.vocab.decode(corpus.train.tolist())
    dataset = data.SentenceDataset(text, corpus.vocab)
    loader = torch.utils.data.DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True,
                                         collate_fn=data.SentenceDataset.collate)
    return dataset, loader


def build(cfg, vocab_size, log):
    model = models.build_model(cfg.model, vocab_size, cfg)
    log.log(models.describe(model))
    log.log(f"{count_parameters(model):,} trainable parameters")
    optimizer = model.configure_optimizers(cfg.weight_decay, cfg.lr, cfg.betas)
    return model, optimizer


@torch.no_grad()
def evaluate(model, ids, cfg, max_batches=None):
    model.eval()
    meter = AverageMeter("val_loss")
    for index, (x, y) in enumerate(data.sequential_batches(ids, cfg.seq_len, cfg.batch_size)):
        if max_batches is not None and index >= max_batches:
            break
        _, loss = model(x, y)
        meter.update(loss.item(), x.size(0))
    model.train()
    return meter.mean


@torch.no_grad()
def evaluate_classifier(model, loader):
    model.eval()
    meter, acc = AverageMeter("val_loss"), AverageMeter("val_acc")
    for x, y in loader:
        logits, loss = model(x, y)
        meter.update(loss.item(), x.size(0))
        acc.update(accuracy(logits, y), x.size(0))
    model.train()
    return meter.mean, acc.mean


def train_step(model, optimizer, x, y, cfg, step):
    lr = cosine_lr(step, cfg.lr, cfg.warmup_steps, cfg.max_steps)
    set_lr(optimizer, lr)
    _, loss = model(x, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    norm = grad_norm(model)
    if cfg.grad_clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
    optimizer.step()
    return loss.item(), lr, norm


def train_language_model(cfg, log):
    corpus, batches = prepare_data(cfg, log)
    model, optimizer = build(cfg, len(corpus.vocab), log)
    log.log("first batch:\n" + data.describe_batch(*batches.sample(), corpus.vocab))
    stopper = EarlyStopping(patience=4)
    meter = AverageMeter("loss")
    timer = Timer()
    best = float("inf")
    history = []
    for step, (x, y) in enumerate(batches):
        if step >= cfg.max_steps:
            break
        loss, lr, norm = train_step(model, optimizer, x, y, cfg, step)
        meter.update(loss)
        if step % cfg.log_every == 0:
            log.log(f"step {step:5d} | {meter} | lr {lr:.2e} | grad norm {norm:.2f} | {timer.lap():.2f}s")
            meter.reset()
        if step % cfg.eval_every == 0 or step == cfg.max_steps - 1:
            val = evaluate(model, corpus.valid, cfg, cfg.eval_batches)
            history.append({"step": step, "val_loss": val, "val_ppl": perplexity(val)})
            log.log(f"eval  {step:5d} | val loss {val:.4f} | val ppl {perplexity(val):.2f}")
            if val < best:
                best = val
                if cfg.save:
                    path = save_checkpoint(cfg.out_dir, model, optimizer, step, cfg)
                    log.log(f"saved {path}")
            if stopper.step(val):
                log.log(f"no improvement in {stopper.patience} evaluations: stopping")
                break
    test = evaluate(model, corpus.test, cfg)
    log.log(f"test loss {test:.4f} | test ppl {perplexity(test):.2f}")
    return model, corpus, history


def train_classifier(cfg, log):
    corpus = data.load_corpus(cfg.data, cfg.corpus_chars, seed=cfg.seed)
    dataset, loader = prepare_classifier_data(cfg, corpus)
    log.log(f"{len(dataset)} sentences; class weights {data.class_weights(dataset).tolist()}")
    model, optimizer = build(cfg, len(corpus.vocab), log)
    meter = AverageMeter("loss")
    step = 0
    history = []
    while step < cfg.max_steps:
        for x, y in loader:
            loss, lr, _ = train_step(model, optimizer, x, y, cfg, step)
            meter.update(loss)
            step += 1
            if step % cfg.eval_every == 0:
                val, acc = evaluate_classifier(model, loader)
                history.append({"step": step, "val_loss": val, "val_acc": acc})
                log.log(f"step {step:5d} | {meter} | val loss {val:.4f} | val acc {acc:.3f}")
                meter.reset()
            if step >= cfg.max_steps:
                break
    return model, corpus, history


def sample(model, corpus, log, prompt=SAMPLE_PROMPT, length=SAMPLE_LENGTH):
    if not hasattr(model, "generate"):
        return None
    model.eval()
    idx = torch.tensor([corpus.vocab.encode(prompt)], dtype=torch.long)
    out = model.generate(idx, length, temperature=0.8, top_k=10)
    text = corpus.vocab.decode(out[0].tolist())
    log.log(f"sample: {text!r}")
    return text


def write_summary(cfg, history, started, path):
    summary = {
        "config": json.loads(cfg.to_json()),
        "history": history,
        "seconds": round(time.time() - started, 2),
        "best_val_loss": min((h["val_loss"] for h in history), default=None),
    }
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as handle:
        json.dump(summary, handle, indent=2)
    return summary


def resume(cfg, model, optimizer, log):
    """Continue from the newest checkpoint in --out-dir, if there is one."""
    if not os.path.isdir(cfg.out_dir):
        return 0
    checkpoints = sorted(f for f in os.listdir(cfg.out_dir) if f.startswith("ckpt_") and f.endswith(".pt"))
    if not checkpoints:
        return 0
    path = os.path.join(cfg.out_dir, checkpoints[-1])
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    log.log(f"resumed from {path} at step {state['step']}")
    return state["step"] + 1


def find_lr(cfg, log, low=1e-5, high=1.0, steps=40):
    """The learning-rate range test: the loss at exponentially growing rates, one batch each."""
    corpus, batches = prepare_data(cfg, log)
    model, optimizer = build(cfg, len(corpus.vocab), log)
    factor = (high / low) ** (1 / max(1, steps - 1))
    lr, results = low, []
    for step, (x, y) in enumerate(batches):
        if step >= steps:
            break
        set_lr(optimizer, lr)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        results.append((lr, loss.item()))
        if loss.item() > 4 * min(r[1] for r in results):
            break
        lr *= factor
    best = min(results, key=lambda r: r[1])
    log.log(f"lowest loss {best[1]:.4f} at lr {best[0]:.2e}; try about a tenth of it")
    return results


def markdown_report(cfg, history, path):
    """A short report for the experiment log: the configuration and the evaluations as tables."""
    lines = [f"# {cfg.model} on {cfg.data}", "", "| setting | value |", "|---|---|"]
    for key, value in sorted(json.loads(cfg.to_json()).items()):
        lines.append(f"| {key} | {value} |")
    lines += ["", "| step | validation loss | perplexity |", "|---|---|---|"]
    for record in history:
        loss = record["val_loss"]
        lines.append(f"| {record['step']} | {loss:.4f} | {perplexity(loss):.2f} |")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def check_config(cfg):
    """Settings that cannot work together, said before any data is loaded."""
    problems = []
    if cfg.n_embd % cfg.n_head:
        problems.append(f"--n-embd {cfg.n_embd} is not a multiple of --n-head {cfg.n_head}")
    if cfg.seq_len < 2:
        problems.append("--seq-len must be at least 2")
    if cfg.warmup_steps > cfg.max_steps:
        problems.append("--warmup-steps is longer than the run")
    if not 0.0 <= cfg.dropout < 1.0:
        problems.append("--dropout must be in [0, 1)")
    if problems:
        raise SystemExit("bad configuration:\n  " + "\n  ".join(problems))


def main():
    cfg = parse_config()
    check_config(cfg)
    set_seed(cfg.seed)
    torch.set_num_threads(1)
    log = Logger(cfg.out_dir if cfg.save else None)
    log.log(f"training {cfg.model} on {cfg.data} for {cfg.max_steps} steps ({environment()})")
    started = time.time()
    if cfg.model == "bow":
        model, corpus, history = train_classifier(cfg, log)
    else:
        model, corpus, history = train_language_model(cfg, log)
        sample(model, corpus, log)
    if cfg.save:
        summary = write_summary(cfg, history, started, os.path.join(cfg.out_dir, "summary.json"))
        log.log(f"best validation loss {summary['best_val_loss']}")
        markdown_report(cfg, history, os.path.join(cfg.out_dir, "report.md"))
    log.log(f"done in {time.time() - started:.1f}s")


if __name__ == "__main__":
    main()
