import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  choiceHeading,
  failureChoices,
  failureMeaning,
  failureMessage,
  flagOf,
  LABEL_WIDTH,
  SHORTER_IS_ROBUST,
  splitAt,
  TYPE_A_MESSAGE,
  USE_A_CHECK,
  CHECK_PROMPT,
  checkFailure,
  validateCheck,
  validateErrMsg,
} from '../../src/choices';

describe('failureChoices', () => {
  it('keeps the order, drops blanks and duplicates, and ends with "Type a message…"', () => {
    const items = failureChoices({
      suggestions: ['ValueError: shape mismatch (4, 8) vs (8, 4)', '  ', 'ValueError: shape mismatch', 'ValueError: shape mismatch'],
      failures: [],
    });
    assert.deepEqual(
      items.map((i) => [i.kind, i.label]),
      [
        ['failure', 'ValueError: shape mismatch (4, 8) vs (8, 4)'],
        ['failure', 'ValueError: shape mismatch'],
        ['custom', TYPE_A_MESSAGE],
        ['check', USE_A_CHECK],
      ],
    );
    assert.equal(items[0].description, 'the last error line');
    assert.deepEqual(items[1].failure, { errMsg: 'ValueError: shape mismatch' });
    assert.ok(items[1].detail?.includes(SHORTER_IS_ROBUST));
    // "Type a message…" starts from the most specific suggestion, and repeats the CLI's advice
    assert.equal(failureMessage(items[2].failure), 'ValueError: shape mismatch (4, 8) vs (8, 4)');
    assert.ok(items[2].detail?.includes(SHORTER_IS_ROBUST));
  });

  it('offers every failure kind the server sends, with its arguments and its meaning', () => {
    const items = failureChoices({
      suggestions: [],
      failures: [
        { title: 'killed by SIGSEGV', arguments: { crash: 'SIGSEGV' } },
        { title: 'exit status 3', arguments: { exitCode: 3 } },
        { title: 'hangs past 60 s', arguments: { hang: true } },
        { title: 'a wrong answer', arguments: { wrongAnswer: { expected: '4' } } },
      ],
    });
    assert.deepEqual(items.map((i) => i.label), ['killed by SIGSEGV', 'exit status 3', 'hangs past 60 s', 'a wrong answer', TYPE_A_MESSAGE, USE_A_CHECK]);
    assert.deepEqual(items[0].failure, { crash: 'SIGSEGV' });
    assert.equal(items[0].description, '--crash SIGSEGV');
    assert.match(items[0].detail ?? '', /killed by SIGSEGV/);
    assert.match(items[1].detail ?? '', /exit with status 3/);
    assert.match(items[2].detail ?? '', /autodd\.timeout/);
    assert.equal(items[2].description, '--hang');
    // a kind unknown here is still offered, its arguments passed through unchanged
    assert.deepEqual(items[3].failure, { wrongAnswer: { expected: '4' } });
    assert.ok(items[3].detail);
    assert.ok(items.slice(0, 4).every((i) => i.kind === 'failure' && !i.editable));
  });

  it('never cuts a long message: the rest goes on the detail line', () => {
    const long = `RuntimeError: ${'word '.repeat(60).trim()}`;
    const [item] = failureChoices({ suggestions: [long], failures: [] });
    assert.equal(item.failure.errMsg, long);
    assert.ok(item.label.length <= LABEL_WIDTH + 2);
    const shown = `${item.label.replace(/ …$/, '')} ${(item.detail ?? '').replace(/^… /, '')}`;
    assert.equal(shown, long);
  });

  it('offers only "Type a message…" and "Use my own check command…" when the run showed nothing', () => {
    const items = failureChoices({ suggestions: [], failures: [] });
    assert.deepEqual(items.map((i) => i.kind), ['custom', 'check']);
    assert.equal(failureMessage(items[0].failure), '');
    assert.equal(items[1].label, USE_A_CHECK);
    assert.match(items[1].detail ?? '', /\{\}/, 'the item says what {} stands for');
  });

  it('a check command is the check kind, said in words, with its flag', () => {
    assert.deepEqual(checkFailure('python t.py {}'), { check: 'python t.py {}' });
    assert.match(failureMeaning(checkFailure('python t.py {}')), /python t\.py \{\} must exit with status 0/);
    assert.equal(flagOf(checkFailure('x')), '--check x');
    assert.match(CHECK_PROMPT, /\{\} stands for the candidate's path/);
    assert.match(CHECK_PROMPT, /exit status 0 means the bug is still there/);
    assert.equal(validateCheck('  '), 'The command must not be empty');
    assert.equal(validateCheck('true'), undefined);
  });
});

describe('failureMeaning / flagOf / splitAt', () => {
  it('says each kind in words', () => {
    assert.match(failureMeaning({ errMsg: 'x' }), /output must contain/);
    assert.match(failureMeaning({ errRegex: 'a+' }), /\/a\+\//);
    assert.match(failureMeaning({ crash: true }), /killed by a signal/);
    assert.match(failureMeaning({ wrongAnswer: true }), /same numeric comparison must fail/);
    assert.doesNotMatch(failureMeaning({ wrongAnswer: true }), /wrongAnswer/);
    assert.equal(flagOf({ crash: true }), '--crash');
    assert.equal(flagOf({ exitCode: 3 }), '--exit-code 3');
  });
  it('splits at a word boundary', () => {
    assert.deepEqual(splitAt('short'), ['short', '']);
    const [a, b] = splitAt('aaaa bbbb cccc', 10);
    assert.equal(`${a} ${b}`, 'aaaa bbbb cccc');
    assert.ok(a.length <= 10);
  });
});

describe('choiceHeading / validateErrMsg', () => {
  it('puts the long line in the title and keeps the placeholder short', () => {
    const h = choiceHeading('gemm_bug.py', 1, 2);
    assert.match(h.title, /gemm_bug\.py exited with code 1/);
    assert.ok(h.placeholder.length < 40, h.placeholder);
    assert.match(choiceHeading('a.py', null, 1).title, /did not finish/);
    assert.match(choiceHeading('a.py', -11, 1).title, /killed by signal 11/);
    assert.match(choiceHeading('a.py', 0, 0).title, /exited normally/);
  });
  it('rejects empty messages', () => {
    assert.ok(validateErrMsg('   '));
    assert.equal(validateErrMsg('boom'), undefined);
  });
});
