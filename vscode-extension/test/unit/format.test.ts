import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeProgress,
  errorText,
  formatCount,
  formatRate,
  formatReduction,
  formatResultMessage,
  noticeMessage,
  progressIncrement,
  resultLensTitle,
  suggestionItems,
  suggestionPlaceholder,
  TYPE_A_MESSAGE,
  validateErrMsg,
} from '../../src/format';

describe('formatResultMessage', () => {
  it('states the size reduction when done', () => {
    const m = formatResultMessage({
      status: 'done',
      message: 'Done: ...',
      outputUri: 'file:///w/gemm_bug.min.py',
      original: { lines: 212, nodes: 1340 },
      final: { lines: 19, nodes: 180 },
    });
    assert.equal(m.text, 'AutoDD: 212 → 19 lines (1,340 → 180 AST nodes)');
    assert.equal(m.severity, 'info');
    assert.equal(m.canDiff, true);
  });

  it('says cancelled and keeps the sizes of the best result', () => {
    const m = formatResultMessage({
      status: 'cancelled',
      message: 'Stopped early',
      outputUri: 'file:///w/a.min.py',
      original: { lines: 40, nodes: 300 },
      final: { lines: 30, nodes: 250 },
    });
    assert.equal(m.severity, 'warning');
    assert.match(m.text, /^AutoDD: cancelled/);
    assert.match(m.text, /40 → 30 lines \(300 → 250 AST nodes\)/);
  });

  it('falls back to the server message without sizes', () => {
    assert.equal(
      formatResultMessage({ status: 'cancelled', message: 'Stopped before the first pass.' }).text,
      'AutoDD: cancelled. Stopped before the first pass.',
    );
    assert.equal(formatResultMessage({ status: 'done', message: '' }).text, 'AutoDD: done.');
  });

  it('reports failures as errors without a diff', () => {
    const m = formatResultMessage({ status: 'failed', message: 'the original does not fail' });
    assert.equal(m.severity, 'error');
    assert.equal(m.canDiff, false);
    assert.equal(m.text, 'AutoDD: minimization failed: the original does not fail');
    assert.equal(formatResultMessage({ status: 'failed', message: '' }).text, 'AutoDD: minimization failed.');
  });
});

describe('formatCount / formatReduction', () => {
  it('groups thousands', () => {
    assert.equal(formatCount(0), '0');
    assert.equal(formatCount(999), '999');
    assert.equal(formatCount(1340), '1,340');
    assert.equal(formatCount(1234567), '1,234,567');
  });
  it('formats both sizes', () => {
    assert.equal(
      formatReduction({ lines: 2, nodes: 10 }, { lines: 1, nodes: 3 }),
      '2 → 1 lines (10 → 3 AST nodes)',
    );
  });
});

describe('suggestionItems', () => {
  it('keeps order, drops blanks and duplicates, and ends with "Type a message…"', () => {
    const items = suggestionItems([
      'ValueError: shape mismatch (4, 8) vs (8, 4)',
      '  ',
      'ValueError: shape mismatch',
      'ValueError: shape mismatch',
    ]);
    assert.deepEqual(
      items.map((i) => [i.kind, i.label]),
      [
        ['suggestion', 'ValueError: shape mismatch (4, 8) vs (8, 4)'],
        ['suggestion', 'ValueError: shape mismatch'],
        ['custom', TYPE_A_MESSAGE],
      ],
    );
    assert.equal(items[0].description, 'last error line');
    // "Type a message…" starts from the most specific suggestion.
    assert.equal(items[2].value, 'ValueError: shape mismatch (4, 8) vs (8, 4)');
  });

  it('offers only "Type a message…" without suggestions', () => {
    const items = suggestionItems([]);
    assert.equal(items.length, 1);
    assert.equal(items[0].kind, 'custom');
    assert.equal(items[0].value, '');
  });

  it('shortens very long labels but keeps the full value', () => {
    const long = 'E'.repeat(500);
    const [item] = suggestionItems([long]);
    assert.equal(item.value, long);
    assert.ok(item.label.length <= 200);
    assert.ok(item.label.endsWith('…'));
  });
});

describe('suggestionPlaceholder / validateErrMsg', () => {
  it('explains how the program ended', () => {
    assert.match(suggestionPlaceholder(1, 2), /exited with code 1/);
    assert.match(suggestionPlaceholder(null, 1), /did not finish/);
    assert.match(suggestionPlaceholder(0, 0), /exited normally/);
    assert.match(suggestionPlaceholder(1, 0), /No error line/);
  });
  it('rejects empty messages', () => {
    assert.ok(validateErrMsg('   '));
    assert.equal(validateErrMsg('boom'), undefined);
  });
});

const progress = {
  runId: 'r1',
  uri: 'file:///w/a.py',
  outputUri: 'file:///w/a.min.py',
  pass: 'statements',
  size: { lines: 40, nodes: 335 },
  original: { lines: 212, nodes: 1340 },
  candidates: 1212,
  rate: 35.4,
  percentage: 40,
};

describe('describeProgress (autodd/progress fields)', () => {
  it('renders pass, both sizes, the share removed, candidates and rate', () => {
    assert.equal(
      describeProgress(progress),
      'statements · 212 → 40 lines (1,340 → 335 AST nodes, 75% smaller) · 1,212 candidates, 35/s',
    );
  });
  it('shows a slow rate with a decimal and leaves out a zero rate', () => {
    assert.equal(formatRate(2.46), '2.5');
    assert.match(describeProgress({ ...progress, rate: 0.5 }), /candidates, 0\.5\/s$/);
    assert.match(describeProgress({ ...progress, rate: 0 }), /1,212 candidates$/);
  });
  it('leaves the share out while the program is not smaller in nodes (e.g. just inlined)', () => {
    assert.doesNotMatch(describeProgress({ ...progress, original: { lines: 0, nodes: 0 } }), /smaller/);
    assert.equal(
      describeProgress({ ...progress, original: { lines: 8, nodes: 50 }, size: { lines: 3, nodes: 62 } }),
      'statements · 8 → 3 lines (50 → 62 AST nodes) · 1,212 candidates, 35/s',
    );
  });
  it('turns absolute percentages into non-negative increments', () => {
    assert.deepEqual(progressIncrement(0, undefined), { increment: undefined, total: 0 });
    assert.deepEqual(progressIncrement(0, 30), { increment: 30, total: 30 });
    assert.deepEqual(progressIncrement(30, 20), { increment: undefined, total: 30 });
    assert.deepEqual(progressIncrement(30, 150), { increment: 70, total: 100 });
  });
});

describe('noticeMessage (autodd/notice)', () => {
  it('shows warnings as warnings and everything else as information', () => {
    const fallback = noticeMessage({ level: 'warning', message: 'the runner backend cannot start here; using subproc' });
    assert.deepEqual(fallback, {
      severity: 'warning',
      text: 'AutoDD: the runner backend cannot start here; using subproc',
    });
    assert.equal(noticeMessage({ level: 'info', message: 'kept import torch' }).severity, 'info');
  });
  it('does not prefix twice', () => {
    assert.equal(noticeMessage({ level: 'info', message: 'AutoDD: x' }).text, 'AutoDD: x');
  });
});

describe('resultLensTitle', () => {
  it('states what the last run did', () => {
    const sizes = { original: { lines: 212, nodes: 1340 }, final: { lines: 19, nodes: 180 } };
    assert.equal(resultLensTitle({ status: 'done', message: '', ...sizes }), 'AutoDD: 212 → 19 lines (1,340 → 180 AST nodes)');
    assert.match(resultLensTitle({ status: 'cancelled', message: '', ...sizes }), /^AutoDD: cancelled, best so far 212 → 19/);
    assert.equal(resultLensTitle({ status: 'failed', message: 'x' }), 'AutoDD: the last run failed');
  });
});

describe('errorText', () => {
  it("is an Error's message, anything else as a string", () => {
    assert.equal(errorText(new Error('Connection got disposed.')), 'Connection got disposed.');
    assert.equal(errorText('timed out'), 'timed out');
    assert.equal(errorText(undefined), 'undefined');
  });
});
