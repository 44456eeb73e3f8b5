import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinArgs, splitArgs } from '../../src/arguments';

describe('splitArgs / joinArgs', () => {
  it('blanks separate words; runs of blanks and edges are ignored', () => {
    assert.deepEqual(splitArgs('  --size 3\t-v  '), ['--size', '3', '-v']);
    assert.deepEqual(splitArgs(''), []);
  });

  it('quotes keep blanks and join with the text around them', () => {
    assert.deepEqual(splitArgs(`--name 'a b' "c d" x"y z"w`), ['--name', 'a b', 'c d', 'xy zw']);
    assert.deepEqual(splitArgs(`'' ""`), ['', '']);
    assert.deepEqual(splitArgs(`'it''s'`), ['its']);
  });

  it('single quotes are literal; double quotes honour \\" \\\\ \\$ \\` only', () => {
    assert.deepEqual(splitArgs(String.raw`'a\"b' "a\"b\\c\nd"`), [String.raw`a\"b`, String.raw`a"b\c\nd`]);
    assert.deepEqual(splitArgs(String.raw`a\ b \'q`), ['a b', "'q"]);
  });

  it('no expansion: $VAR, globs and ~ stay as typed', () => {
    assert.deepEqual(splitArgs('$HOME *.py ~'), ['$HOME', '*.py', '~']);
  });

  it('an unclosed quote or a trailing backslash is an error, not a guess', () => {
    assert.match((splitArgs(`--name 'a b`) as { error: string }).error, /quote ' is not closed/);
    assert.match((splitArgs(`"x`) as { error: string }).error, /quote " is not closed/);
    assert.match((splitArgs('a \\') as { error: string }).error, /backslash/);
  });

  it('joinArgs gives a line that splits back into the same words', () => {
    for (const args of [['--size', '3'], ['a b', "it's", '', '$X', 'x"y', 'back\\slash'], []]) {
      assert.deepEqual(splitArgs(joinArgs(args)), args);
    }
    assert.equal(joinArgs(['--size', '3']), '--size 3');
  });
});
