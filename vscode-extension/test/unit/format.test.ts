import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  besideOutputPath,
  describeProgress,
  formatCount,
  formatReduction,
  formatResultMessage,
  isDuplicateRunMessage,
  MessageType,
  parseProgressMessage,
  progressIncrement,
  reductionPercent,
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

describe('progress messages', () => {
  it('parses "pass · N → M nodes · K candidates"', () => {
    assert.deepEqual(parseProgressMessage('statements · 1,340 → 420 nodes · 212 candidates'), {
      pass: 'statements',
      fromNodes: 1340,
      toNodes: 420,
      candidates: 212,
    });
    assert.deepEqual(parseProgressMessage('ddmin·10->5 nodes·1 candidate'), {
      pass: 'ddmin',
      fromNodes: 10,
      toNodes: 5,
      candidates: 1,
    });
  });
  it('returns undefined for other text', () => {
    assert.equal(parseProgressMessage(undefined), undefined);
    assert.equal(parseProgressMessage('checking that the failure reproduces'), undefined);
  });
  it('computes the share removed', () => {
    assert.equal(reductionPercent({ pass: '', fromNodes: 200, toNodes: 50, candidates: 0 }), 75);
    assert.equal(reductionPercent({ pass: '', fromNodes: 0, toNodes: 0, candidates: 0 }), 0);
  });
  it('describes progress for the notification, passing unknown text through', () => {
    assert.equal(
      describeProgress('statements · 1340 → 335 nodes · 12 candidates'),
      'statements · 1,340 → 335 nodes (75% smaller) · 12 candidates',
    );
    assert.equal(describeProgress('warming up'), 'warming up');
  });
  it('turns absolute percentages into non-negative increments', () => {
    assert.deepEqual(progressIncrement(0, undefined), { increment: undefined, total: 0 });
    assert.deepEqual(progressIncrement(0, 30), { increment: 30, total: 30 });
    assert.deepEqual(progressIncrement(30, 20), { increment: undefined, total: 30 });
    assert.deepEqual(progressIncrement(30, 150), { increment: 70, total: 100 });
  });
});

describe('besideOutputPath', () => {
  it('puts <stem>.min.py beside the source', () => {
    assert.equal(besideOutputPath('/w/examples/gemm_bug.py'), '/w/examples/gemm_bug.min.py');
    assert.equal(besideOutputPath('/w/script'), '/w/script.min.py');
  });
});

describe('isDuplicateRunMessage', () => {
  it('hides the server announcements of a run this extension reports', () => {
    assert.equal(isDuplicateRunMessage(MessageType.Info, 'AutoDD: Done: 28 -> 3 lines ... Result: a.min.py', true), true);
    assert.equal(isDuplicateRunMessage(MessageType.Info, 'AutoDD: Stopped early: 28 -> 20 lines', true), true);
    assert.equal(isDuplicateRunMessage(MessageType.Error, 'AutoDD: the original does not fail', true), true);
    assert.equal(isDuplicateRunMessage(MessageType.Warning, 'AutoDD: stopped: the document was edited', true), true);
  });
  it('shows everything when no run is in flight, and freeze refusals always', () => {
    assert.equal(isDuplicateRunMessage(MessageType.Info, 'AutoDD: Done: 28 -> 3 lines', false), false);
    assert.equal(isDuplicateRunMessage(MessageType.Error, 'AutoDD: freeze: the document is not open', true), false);
    assert.equal(isDuplicateRunMessage(MessageType.Info, 'AutoDD: something else', true), false);
  });
});
