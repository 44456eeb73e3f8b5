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
  editorWording,
  NO_FINISHED_RUN,
  problemLocation,
  resultLensTitle,
  statusBarText,
  stderrLevel,
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
    assert.deepEqual(m.actions, ['Open diff']);
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

  it('reports failures as errors without a diff: Show output and Run again instead', () => {
    // a failed run has no diff of its own: an outputUri (an earlier run's file) must not bring one back
    const m = formatResultMessage({ status: 'failed', message: 'the original does not fail', outputUri: 'file:///w/a.min.py' });
    assert.equal(m.severity, 'error');
    assert.deepEqual(m.actions, ['Show output', 'Run again…']);
    assert.equal(m.text, 'AutoDD: minimization failed: the original does not fail');
    assert.equal(formatResultMessage({ status: 'failed', message: '' }).text, 'AutoDD: minimization failed.');
  });

  it('keeps a traceback out of the toast: one line shown, the rest for the output channel', () => {
    const message =
      "the message 'boom' does not reproduce; if it fails only sometimes, --repeat N runs it N times\n" +
      'The program\'s output ends with:\nTraceback (most recent call last):\n  File "a.py", line 3\nValueError: other';
    const m = formatResultMessage({ status: 'failed', message });
    assert.doesNotMatch(m.text, /\n|Traceback|--repeat/);
    assert.match(m.text, /setting autodd\.repeat to N runs it N times/);
    assert.match(m.details, /^The program's output ends with:\nTraceback \(most recent call last\):\n {2}File "a.py", line 3\nValueError: other$/);
    assert.match(m.text, /Show logs/);
  });
});

describe('editorWording (settings, not flags)', () => {
  it('names the setting of each engine flag', () => {
    assert.equal(editorWording('if it fails only sometimes, --repeat N runs it N times'),
      'if it fails only sometimes, setting autodd.repeat to N runs it N times');
    assert.equal(editorWording('--timeout: must be positive'), 'the autodd.timeout setting: must be positive');
    assert.equal(editorWording('-j 4 needs 4 GPUs, --gpus gives 2'), 'setting autodd.jobs to 4 needs 4 GPUs, the autodd.gpus setting gives 2');
    assert.equal(editorWording('--backend ray needs Ray'), 'setting autodd.backend to ray needs Ray');
    assert.equal(editorWording('--keep-imports instead'), 'the autodd.keepImports setting instead');
  });
  it('leaves other text and flags without a setting alone', () => {
    assert.equal(editorWording('give its message with --err-msg'), 'give its message with --err-msg');
    assert.equal(editorWording('a non-flag like x--repeat or well-known'), 'a non-flag like x--repeat or well-known');
  });
});

describe('problemLocation / NO_FINISHED_RUN', () => {
  it('finds the place a refusal names, 0-based', () => {
    assert.deepEqual(problemLocation('bad.py: line 3, column 5: end-freeze without freeze-start'), { line: 2, character: 4 });
    assert.equal(problemLocation('timeout must be a positive number'), undefined);
  });
  it('names the real command', () => {
    assert.match(NO_FINISHED_RUN, /"AutoDD: Minimize this failure"/);
  });
});

describe('stderrLevel (the server\'s stderr in the log)', () => {
  it('logs the start-up report as info and log lines at their level', () => {
    assert.equal(stderrLevel('autodd-lsp: Python 3.11.7 at /usr/bin/python3; using the bundled autodd-lsp 0.1.0'), 'info');
    assert.equal(stderrLevel('autodd-lsp: WARNING something odd'), 'warn');
    assert.equal(stderrLevel('autodd-lsp: ERROR it broke'), 'error');
    assert.equal(stderrLevel('Traceback (most recent call last):'), 'error');
  });
});

describe('statusBarText', () => {
  it('shows each state and the interpreter', () => {
    assert.match(statusBarText({ state: 'starting' }, '/usr/bin/python3').tooltip, /starting\nPython: \/usr\/bin\/python3/);
    assert.equal(statusBarText({ state: 'ready' }, 'py').text, '$(check) AutoDD');
    const running = statusBarText(
      { state: 'running', file: 'a.py', original: { lines: 212, nodes: 1 }, size: { lines: 40, nodes: 1 } },
      'py',
    );
    assert.match(running.text, /212 → 40 lines/);
    assert.match(running.tooltip, /minimizing a\.py/);
    assert.match(statusBarText({ state: 'failed', reason: 'Python 3.8 is too old' }, 'py').tooltip, /not running: Python 3\.8/);
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
