import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EchoFilter } from '../../src/echo';

describe('EchoFilter', () => {
  it("drops exactly one server repeat of a message the extension shows", () => {
    const f = new EchoFilter(1000);
    f.expect('AutoDD: Done: 28 -> 3 lines', 0);
    assert.equal(f.isEcho('AutoDD: Done: 28 -> 3 lines', 10), true);
    assert.equal(f.isEcho('AutoDD: Done: 28 -> 3 lines', 20), false, 'a second identical message is shown');
  });
  it('never drops other messages, warnings included', () => {
    const f = new EchoFilter(1000);
    f.expect('AutoDD: Done: 28 -> 3 lines', 0);
    assert.equal(f.isEcho('AutoDD: the runner backend cannot start; using subproc', 10), false);
    assert.equal(f.isEcho('AutoDD: Done', 10), false);
  });
  it('forgets an expected message after its window', () => {
    const f = new EchoFilter(1000);
    f.expect('m', 0);
    assert.equal(f.isEcho('m', 1001), false);
  });
});
