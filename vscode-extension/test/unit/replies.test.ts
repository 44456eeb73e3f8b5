import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  normalizeArtifact,
  normalizeReply,
  normalizeSuggestions,
  suggestionEnvironment,
  suggestionError,
} from '../../src/replies';

describe('normalizeReply', () => {
  it('keeps a started reply', () => {
    assert.deepEqual(
      normalizeReply({ status: 'started', runId: 'r1', uri: 'file:///w/a.py', outputUri: 'file:///w/a.min.py' }),
      { status: 'started', runId: 'r1', uri: 'file:///w/a.py', outputUri: 'file:///w/a.min.py' },
    );
  });
  it("passes a refusal's message on", () => {
    assert.deepEqual(normalizeReply({ status: 'failed', message: 'already minimizing this file' }), {
      status: 'failed',
      message: 'already minimizing this file',
    });
  });
  it('makes a malformed answer a failure that shows it', () => {
    assert.deepEqual(normalizeReply({ status: 'started', runId: 7 }), {
      status: 'failed',
      message: 'unexpected answer {"status":"started","runId":7}',
    });
    assert.deepEqual(normalizeReply(null), { status: 'failed', message: 'unexpected answer null' });
  });
});

describe('suggestErrMsg answers', () => {
  it('recognizes a refusal', () => {
    assert.equal(suggestionError({ error: 'a.py: no such file' }), 'a.py: no such file');
    assert.equal(suggestionError({ suggestions: ['ValueError: x'] }), undefined);
    assert.equal(suggestionError({ error: '' }), undefined);
    assert.equal(suggestionError(null), undefined);
  });
  it('keeps string suggestions only and defaults what is missing', () => {
    assert.deepEqual(
      normalizeSuggestions({ suggestions: ['ValueError: x', 3, null, 'ValueError'], outputTail: 'tail', returncode: 1 }),
      { suggestions: ['ValueError: x', 'ValueError'], failures: [], outputTail: 'tail', returncode: 1 },
    );
    assert.deepEqual(normalizeSuggestions(undefined), { suggestions: [], failures: [], outputTail: '', returncode: null });
  });
  it('keeps the failures of every kind, and only well-formed ones', () => {
    const raw = {
      suggestions: [],
      failures: [
        { title: 'killed by SIGSEGV', arguments: { crash: 'SIGSEGV' } },
        { title: 'exit status 3', arguments: { exitCode: 3 } },
        { title: 'passes with 4', arguments: { passesWith: '4' } },
        { title: '', arguments: { hang: true } },
        { title: 'no arguments', arguments: {} },
        { title: 'a list', arguments: [1] },
        'junk',
      ],
      outputTail: '',
      returncode: -11,
    };
    assert.deepEqual(normalizeSuggestions(raw).failures, [
      { title: 'killed by SIGSEGV', arguments: { crash: 'SIGSEGV' } },
      { title: 'exit status 3', arguments: { exitCode: 3 } },
      { title: 'passes with 4', arguments: { passesWith: '4' } },
    ]);
  });
});

describe('normalizeArtifact', () => {
  it('keeps a written file', () => {
    assert.deepEqual(normalizeArtifact({ ok: true, path: '/w/a.report.md', uri: 'file:///w/a.report.md' }), {
      ok: true,
      path: '/w/a.report.md',
      uri: 'file:///w/a.report.md',
    });
  });
  it("passes a refusal's message on, and a malformed answer as a refusal", () => {
    assert.deepEqual(normalizeArtifact({ ok: false, message: 'no finished minimization' }), {
      ok: false,
      message: 'no finished minimization',
    });
    assert.deepEqual(normalizeArtifact({ ok: true, path: '/w/a.md' }), {
      ok: false,
      message: 'unexpected answer {"ok":true,"path":"/w/a.md"}',
    });
  });
  it('has no answer for null', () => {
    assert.equal(normalizeArtifact(null), undefined);
  });
});

describe('suggestionEnvironment', () => {
  const reply = {
    suggestions: [],
    failures: [],
    outputTail: "ModuleNotFoundError: No module named 'autodd_missing_module_xyz'",
    returncode: 1,
    error: "/usr/bin/python3 has no module 'autodd_missing_module_xyz'",
    environment: {
      python: '/usr/bin/python3',
      version: '3.12.3',
      module: 'autodd_missing_module_xyz',
      message: "/usr/bin/python3 has no module 'autodd_missing_module_xyz'",
    },
  };
  it('keeps the environment of a reply that has one, in the normalized answer too', () => {
    assert.deepEqual(suggestionEnvironment(reply), reply.environment);
    assert.deepEqual(normalizeSuggestions(reply).environment, reply.environment);
  });
  it('has none without a message, and fills missing fields with ""', () => {
    assert.equal(suggestionEnvironment({ environment: { python: 'p' } }), undefined);
    assert.equal(suggestionEnvironment({ suggestions: ['x'] }), undefined);
    assert.equal(normalizeSuggestions({ suggestions: ['x'] }).environment, undefined);
    assert.deepEqual(suggestionEnvironment({ environment: { message: 'm', version: 3 } }), {
      python: '',
      version: '',
      module: '',
      message: 'm',
    });
  });
});
